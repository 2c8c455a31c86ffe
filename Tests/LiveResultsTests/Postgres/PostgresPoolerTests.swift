import Foundation
@testable import LiveResults
import LiveResultsPostgres
import PostgresNIO
import PostgresSupport
import Testing
import ThrowawayPostgres

/// A controller behind a real PgBouncer in transaction mode (Debian's 1.18: no prepared
/// statements across server sessions, unknown startup parameters refused): its feed finds
/// out that notifications never come, says so (`changesPollInterval`), and still follows
/// every commit, read unprepared at its heartbeat; a direct connection says nothing of it.
@Suite(.serialized) struct PostgresPoolerTests {
    @Test func aControllerBehindATransactionPoolerSaysSoAndFollowsEveryCommitAtItsHeartbeat() async throws {
        let cluster = try ThrowawayPostgres.start(maxConnections: 50)
        defer { cluster.stop() }
        let bouncer = try ThrowawayPgBouncer.start(for: cluster)
        defer { bouncer.stop() }
        let admin = try await TestServer.connect(cluster.configuration())
        try await admin.query("CREATE DATABASE items", logger: TestServer.logger)
        try? await admin.close()
        let database = try await PostgresItems(configuration: cluster.configuration(database: "items"))
        do {
            let ids = try await database.insert(PostgresControllerTests.items)
            let pooled = PostgresReader(configuration: .init(unixSocketPath: bouncer.socketDirectory + "/.s.PGSQL.\(bouncer.port)",
                                                             username: "postgres", password: nil, database: "items"))
            defer { pooled.close() }
            let controller = ResultsController<Item>(database: pooled, fetchRequest: ResultsRequest(sortDescriptors: zoneScoreName),
                                                     sectionNameKeyPath: "zone")
            let recorder = Recorder()
            controller.delegate = recorder
            try controller.performFetch()
            let direct = database.controller(recorder: Recorder())
            try direct.performFetch()
            // The probe is given a second.
            #expect(try await controller.processChanges(forUpTo: 3) { controller.changesPollInterval == .seconds(1) })
            try direct.refresh()
            #expect(direct.changesPollInterval == nil, "a direct connection hears its probe")
            for round in 0..<4 {
                try await database.run("UPDATE item SET score = score + \(round + 1) WHERE id = \(ids[round % ids.count])")
                let expected = expectedLayout(try await database.allRows())
                let converged = try await controller.processChanges(forUpTo: 2.5) { controller.layout == expected }
                #expect(converged, "round \(round): the heartbeat read the commit")
            }
            #expect(controller.refetchCount == 0, "every read went through the pooler: none failed")
            #expect(controller.isLive)
        } catch {
            await database.close()
            throw error
        }
        await database.close()
    }
}
