import Foundation
@testable import LiveResults
@testable import LiveResultsPostgres
import PostgresNIO
import PostgresSupport
import Testing

/// An idle controller on PostgreSQL: one server connection, and a heartbeat that costs the
/// server no read where notifications arrive.
@Suite struct PostgresIdleTests {
    @Test func anIdleControllerHoldsOneConnectionAndItsHeartbeatReadsNoLog() async throws {
        let database = try await PostgresItems()
        do {
            let ids = try await database.insert((0..<6).map { Item(name: "team \($0)", zone: ["A", "B"][$0 % 2], score: $0) })
            let recorder = Recorder()
            let controller = database.controller(recorder: recorder)
            // A heartbeat every 400 ms.
            controller.changeLogPollInterval = .milliseconds(20)
            try controller.performFetch()
            #expect(controller.changesPollInterval == nil, "the probe came back: notifications arrive")
            let feed = try #require(database.database.ownWrites.listeners(under: "item").first)
            // The read that follows the fetch has ended by now.
            try await Task.sleep(for: .milliseconds(200))
            let readsBefore = feed.logReadsBegun
            // Five beats: more than the three an unanswered ping may take before its
            // connection is made again (and the log read from the cursor).
            try await Task.sleep(for: .milliseconds(2_000))
            #expect(feed.logReadsBegun == readsBefore, "the heartbeat pinged, and read no log")
            #expect(controller.isLive)
            let backends = try await database.writer.query("""
                SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()
                """, logger: TestServer.logger).collect().first?.decode(Int64.self)
            #expect(backends == 1, "the controller's reads and its LISTEN share one connection")
            // Another connection's commit still arrives.
            try await database.run("UPDATE item SET score = 100 WHERE id = \(ids[2])")
            #expect(try await controller.processChanges { controller.layout == expectedLayout(try await database.allRows()) })
        } catch {
            await database.close()
            throw error
        }
        await database.close()
    }
}
