import Foundation
import LiveResults
@testable import LiveResultsPostgres
import PostgresNIO
import PostgresSupport
import Testing

/// The feed's log read, prepared on a connection made as the feed makes it, is planned once
/// (generically) and not again at every run: planning it costs more than running it.
@Suite struct LogReadPlanTests {
    @Test func theFeedsLogReadIsPlannedOnceForEveryRun() async throws {
        let (configuration, drop) = try await TestServer.freshDatabase()
        let reader = PostgresReader(configuration: configuration)
        let setup = try await TestServer.connect(configuration)
        let feed = try await PostgresChangeFeed.connection(to: reader, on: setup.eventLoop).get()
        do {
            try await setup.run("CREATE TABLE item (id bigint PRIMARY KEY, rank int4 NOT NULL)",
                                "INSERT INTO item SELECT n, n FROM generate_series(1, 100) AS n")
            try await PostgresChangeLog.install(on: "item", connection: setup)
            let statements = try PostgresKeyQuery(tableName: "item", sortDescriptors: [SortColumn("rank")]).prepare(setup)
            let read = try LogRead(statements)
            let executor = EventLoopTaskExecutor(feed.eventLoop)
            let runs = 8
            for run in 1...runs {
                try await setup.run("UPDATE item SET rank = rank + 1000 WHERE id = \(run)")
                let rows = try await PreparedLogRead.run(read.query(after: ChangeLogCursor(position: 0)), on: feed,
                                                         executor: executor, logger: logger).get()
                let found = try read.decode(rows)
                #expect(found.rows.map(\.id).sorted() == Array(1...Int64(run)), "read \(run) finds every row updated so far")
            }
            // The server counts, per prepared statement of this session, the plans it made.
            let plans = try await feed.query("""
                SELECT generic_plans, custom_plans FROM pg_prepared_statements WHERE name LIKE 'liveresults_log_read%'
                """, logger: logger).collect().first?.decode((Int64, Int64).self)
            #expect(plans?.0 == Int64(runs), "every run used the generic plan")
            #expect(plans?.1 == 0, "no run was planned again for its own values")
        } catch {
            try? await feed.close()
            try? await setup.close()
            await drop()
            throw error
        }
        try await feed.close()
        try await setup.close()
        reader.close()
        await drop()
    }
}
