import Foundation
import GRDB
@testable import LiveResults
@testable import LiveResultsSQLite
import LiveResultsPostgres
import PostgresNIO
import PostgresSupport
import Testing
import ThrowawayPostgres

/// The controller when its connections die in the middle of writes: it makes them again,
/// catches up from its cursor (or, when the log was pruned past it, by comparing a fresh
/// fetch), and misses nothing.
@Suite struct PostgresFaultTests {
    /// Taps every item `rounds` times, one commit each, from the writer.
    func tap(_ database: PostgresItems, _ ids: [Int64], rounds: Int) async throws {
        for round in 0..<rounds {
            for id in ids { try await database.run("UPDATE item SET score = score + \(round % 3) WHERE id = \(id)") }
        }
    }

    /// Terminates every connection to the test's database but the writer's.
    func terminateOthers(_ database: PostgresItems) async throws -> Int {
        var killed = 0
        let rows = try await database.writer.query("""
            SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()
            """, logger: TestServer.logger)
        for try await done in rows.decode(Bool.self) where done { killed += 1 }
        return killed
    }

    /// Refreshes until the controller shows `expected`, checking every batch on the way;
    /// true when it got there within 10 seconds.
    func converge(_ controller: ResultsController<Item>, _ recorder: Recorder, from held: inout [Layout],
                  to expected: [Layout], layouts: () -> [[Layout]], clear: () -> Void) async throws -> Bool {
        let deadline = Date().addingTimeInterval(10)
        while true {
            try? controller.refresh()
            var batches: [[Recorder.Event]] = []
            for event in recorder.take() where event != .reset {
                if event == .willChange { batches.append([]) }
                batches[batches.count - 1].append(event)
            }
            for (batch, after) in zip(batches, layouts()) {
                let problems = batchViolations(old: held, new: after, events: batch)
                #expect(problems.isEmpty, "\(problems)\n\(batch)")
                held = after
            }
            clear()
            if controller.layout == expected { return true }
            if Date() > deadline { return false }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    @Test(arguments: [PostgresChangeLog.defaultRetained, 10])
    func connectionsTerminatedInTheMiddleOfWritesAreMadeAgainAndNothingIsMissed(retained: Int) async throws {
        let database = try await PostgresItems(retaining: retained)
        do {
            let ids = try await database.insert((0..<12).map { Item(name: "team \($0)", zone: ["A", "B", "C"][$0 % 3], score: $0 % 4) })
            let recorder = Recorder()
            let controller = database.controller(recorder: recorder)
            nonisolated(unsafe) var layouts: [[Layout]] = []
            recorder.onDidChange = { layouts.append($0.layout) }
            try controller.performFetch()
            var held = controller.layout

            try await tap(database, ids, rounds: 2)
            #expect(try await terminateOthers(database) == 1, "the controller's one connection, for its reads and its LISTEN, was there to kill")
            // Written while the controller's connections are down: with a log of 10 entries,
            // pruned past the controller's cursor.
            try await tap(database, ids, rounds: 3)
            let expected = expectedLayout(try await database.allRows())
            #expect(try await converge(controller, recorder, from: &held, to: expected, layouts: { layouts }, clear: { layouts.removeAll() }))

            // And live again: a later commit arrives.
            try await database.run("UPDATE item SET zone = 'A' WHERE id = \(ids[1])")
            let after = expectedLayout(try await database.allRows())
            #expect(try await converge(controller, recorder, from: &held, to: after, layouts: { layouts }, clear: { layouts.removeAll() }))
        } catch {
            await database.close()
            throw error
        }
        await database.close()
    }

    @Test func theServerRestartedAsAfterACrashInTheMiddleOfWrites() async throws {
        // A cluster of its own: restarting the shared one would cut the other tests.
        let cluster = try ThrowawayPostgres.start()
        defer { cluster.stop() }
        let database = try await PostgresItems(configuration: cluster.configuration(), retaining: 50)
        let ids = try await database.insert((0..<9).map { Item(name: "team \($0)", zone: ["A", "B", "C"][$0 % 3], score: $0 % 4) })
        let recorder = Recorder()
        let controller = database.controller(recorder: recorder)
        nonisolated(unsafe) var layouts: [[Layout]] = []
        recorder.onDidChange = { layouts.append($0.layout) }
        try controller.performFetch()
        var held = controller.layout

        try await tap(database, ids, rounds: 2)
        try cluster.restart(immediate: true)
        // The writer's connection died with the server: a new one writes on.
        let writer = try await TestServer.connect(cluster.configuration())
        for id in ids { try await writer.query("UPDATE item SET score = score + 2 WHERE id = \(id)", logger: TestServer.logger) }
        var rows: [Int64: Item] = [:]
        for try await (id, name, zone, score) in try await writer.query("SELECT id, name, zone, score FROM item", logger: TestServer.logger)
            .decode((Int64, String?, String?, Int32).self) {
            rows[id] = Item(id: id, name: name, zone: zone, score: Int(score))
        }
        let expected = expectedLayout(rows)
        #expect(try await converge(controller, recorder, from: &held, to: expected, layouts: { layouts }, clear: { layouts.removeAll() }))
        try? await writer.close()
        try? await database.writer.close()
        database.database.close()
    }
}
