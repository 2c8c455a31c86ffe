import Foundation
import Glibc
@testable import LiveResults
@testable import LiveResultsPostgres
import NIOPosix
import PostgresNIO
import PostgresSupport
import Testing
import TestSupport

/// No read of a controller waits for good: one whose connection stops answering mid-prepare
/// (a frozen network), or is terminated mid-fetch, fails at the reader's deadline, and the
/// controller catches up once the server answers again.
@Suite(.serialized) struct PostgresDeadlineTests {
    /// A controller over the fixture's table that follows changes (`recorder` is its
    /// delegate), with a reader of its own, whose deadline is `deadline`.
    func controller(_ configuration: PostgresConnection.Configuration, deadline: TimeAmount, recorder: Recorder) -> ResultsController<Item> {
        let controller = ResultsController<Item>(database: PostgresReader(configuration: configuration, deadline: deadline),
                                                 fetchRequest: ResultsRequest(sortDescriptors: zoneScoreName), sectionNameKeyPath: "zone")
        controller.delegate = recorder
        return controller
    }

    @Test func aPrepareWhoseNetworkFreezesFailsAtTheDeadlineAndTheControllerCatchesUp() async throws {
        let database = try await PostgresItems()
        let socket = try #require(database.configuration.unixSocketPath, "the test server listens on a Unix socket")
        let relay = try TCPRelay(upstream: socket)
        defer { relay.kill() }
        try await database.insert((0..<6).map { Item(name: "team \($0)", zone: ["A", "B"][$0 % 2], score: $0) })
        let configuration = PostgresConnection.Configuration(host: "127.0.0.1", port: relay.port, username: database.configuration.username,
                                                             password: nil, database: database.configuration.database, tls: .disable)
        let recorder = Recorder()
        let controller = controller(configuration, deadline: .seconds(2), recorder: recorder)
        try controller.performFetch()

        relay.signal(SIGSTOP)
        // The fetch's first statement (the prepare) is sent and never answered.
        let start = ContinuousClock.now
        #expect(throws: LiveResultsError.self) { try controller.performFetch() }
        #expect(ContinuousClock.now - start < .seconds(20), "the frozen fetch waited \(ContinuousClock.now - start)")

        relay.signal(SIGCONT)
        try await database.insert([Item(name: "late", zone: "C", score: 1)])
        try controller.performFetch()
        #expect(controller.layout == expectedLayout(try await database.allRows()))
        #expect(try await controller.processChanges(forUpTo: 10) { controller.isLive })
        // Live again: a change made now arrives.
        try await database.run("UPDATE item SET score = 40 WHERE name = 'late'")
        #expect(try await controller.processChanges(forUpTo: 10) { controller.layout == expectedLayout(try await database.allRows()) })
        await database.close()
    }

    @Test func aFetchWhoseBackendIsTerminatedEndsAndTheControllerCatchesUp() async throws {
        let database = try await PostgresItems()
        try await database.insert((0..<6).map { Item(name: "team \($0)", zone: ["A", "B"][$0 % 2], score: $0) })
        let recorder = Recorder()
        let controller = controller(database.configuration, deadline: .seconds(2), recorder: recorder)
        // The fetch's snapshot waits behind a lock; its backend is terminated while it waits.
        try await database.run("BEGIN", "LOCK TABLE item IN ACCESS EXCLUSIVE MODE")
        let configuration = database.configuration
        let killer = Thread {
            guard let connection = try? PostgresConnection.connect(on: MultiThreadedEventLoopGroup.singleton.next(), configuration: configuration,
                                                                    id: 99, logger: TestServer.logger).wait() else { return }
            for _ in 0..<200 {
                let rows = try? connection.query("""
                    SELECT pg_terminate_backend(pid) FROM pg_stat_activity
                    WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()
                    """, logger: TestServer.logger).wait()
                if rows?.first != nil { break }
                Thread.sleep(forTimeInterval: 0.02)
            }
            try? connection.close().wait()
        }
        killer.start()
        let start = ContinuousClock.now
        #expect(throws: LiveResultsError.self) { try controller.performFetch() }
        #expect(ContinuousClock.now - start < .seconds(20), "the fetch waited \(ContinuousClock.now - start)")

        try await database.run("ROLLBACK")
        try await database.insert([Item(name: "late", zone: "C", score: 1)])
        try controller.performFetch()
        #expect(controller.layout == expectedLayout(try await database.allRows()))
        #expect(try await controller.processChanges(forUpTo: 10) { controller.isLive })
        try await database.run("UPDATE item SET zone = 'A' WHERE name = 'late'")
        #expect(try await controller.processChanges(forUpTo: 10) { controller.layout == expectedLayout(try await database.allRows()) })
        await database.close()
    }

    /// postgres-nio can leave a statement sent just as the server ends the connection
    /// unanswered for good; a wait for it (modelled by a future nobody completes) held the
    /// reader's connection, and so its feeds, to the deadline. It ends when the connection
    /// closes, and the next read runs on a new connection.
    @Test func aWaitOnAConnectionTheServerClosesEndsWithItNotAtTheDeadline() async throws {
        let database = try await PostgresItems()
        let reader = PostgresReader(configuration: database.configuration, deadline: .seconds(20))
        let killer = PostgresReader(configuration: database.configuration, deadline: .seconds(20))
        let start = ContinuousClock.now
        #expect(throws: reader.connectionClosed) {
            try reader.withConnection { connection in
                let pid = try #require(try connection.rowsWithinDeadline("SELECT pg_backend_pid()", logger: TestServer.logger).first?.decode(Int32.self))
                let unanswered = connection.eventLoop.makePromise(of: Void.self)
                defer { unanswered.succeed() }
                _ = try killer.withConnection { try $0.rowsWithinDeadline("SELECT pg_terminate_backend(\(pid))", logger: TestServer.logger) }
                try unanswered.futureResult.waitWithinDeadline()
            }
        }
        #expect(ContinuousClock.now - start < .seconds(5), "the wait ended after \(ContinuousClock.now - start)")
        let answer = try reader.withConnection { try $0.rowsWithinDeadline("SELECT 1", logger: TestServer.logger).first?.decode(Int32.self) }
        #expect(answer == 1)
        reader.close()
        killer.close()
        await database.close()
    }
}
