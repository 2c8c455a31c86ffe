import Foundation
import GRDB
@testable import LiveResults
@testable import LiveResultsSQLite
import LiveResultsPostgres
import PostgresNIO
import PostgresSupport
import Testing
import TestSupport

/// `changes()` over PostgreSQL: the same sequence, fed by the LISTEN connection and the log.
@Suite struct PostgresAsyncSequenceTests {
    @Test("A consumer loop sees another connection's commits as checked batches; cancelling it closes the feed's connection")
    @MainActor func otherConnectionWritesThenCancel() async throws {
        let database = try await PostgresItems()
        do {
            try await database.insert(AsyncSequenceTests.items)
            let controller = database.controller(recorder: nil)
            let changes = controller.changes()
            let connectionsBefore = try await connections(database)
            try controller.performFetch()
            weak let feed = controller.feed
            #expect(feed != nil)
            let consumer = Task { @MainActor in
                var report = ConsumerReport()
                var held = controller.layout
                for try await change in changes {
                    let now = controller.layout
                    switch change {
                    case .reset: report.resets += 1
                    case .batch(let batch, _):
                        report.batches += 1
                        report.problems += batchViolations(old: held, new: now, events: events(of: batch, in: now))
                    }
                    held = now
                    report.converged = now.contains { $0.name == "Last" }
                    // Goes on after the last commit, until the task is cancelled.
                }
                return (report, controller.isTracking, controller.layout)
            }
            var random = SplitMix64(seed: 36)
            for _ in 0..<40 {
                let id = Int.random(in: 1...12, using: &random)
                let zone = ["Africa", "Asia", "Europe", "Oceania"].randomElement(using: &random)!
                switch Int.random(in: 0..<4, using: &random) {
                case 0: try await database.run("INSERT INTO item (name, zone, score, flag) VALUES ('n\(id)', '\(zone)', \(id % 5), 1)")
                case 1: try await database.run("DELETE FROM item WHERE id = \(id)")
                case 2: try await database.run("UPDATE item SET zone = '\(zone)' WHERE id = \(id)")
                default: try await database.run("BEGIN", "UPDATE item SET score = score + 3 WHERE id = \(id)", "UPDATE item SET name = 'r' || name WHERE id = \(id % 6 + 1)", "COMMIT")
                }
            }
            try await database.run("INSERT INTO item (name, zone, score, flag) VALUES ('zz', 'Last', 0, 1)")
            let deadline = ContinuousClock.now + .seconds(20)
            while !controller.layout.contains(where: { $0.name == "Last" }) && ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(10))
            }
            consumer.cancel()
            let (report, trackingAfterwards, shown) = try await consumer.value
            #expect(shown == expectedLayout(try await database.allRows()))
            #expect(report.problems == [])
            #expect(report.resets == 0)
            #expect(report.batches > 0)
            #expect(report.converged, "the loop never showed the result of the last commit")
            #expect(!trackingAfterwards)
            #expect(feed == nil, "the feed outlived the cancelled loop")
            // What stays is the reader's connection for the controller's reads; a connection the
            // feed held for LISTEN closes on its event loop, soon after.
            var connectionsNow = try await connections(database)
            let closing = ContinuousClock.now + .seconds(10)
            while connectionsNow > connectionsBefore + 1 && ContinuousClock.now < closing {
                try await Task.sleep(for: .milliseconds(20))
                connectionsNow = try await connections(database)
            }
            #expect(connectionsNow == connectionsBefore + 1, "the feed's connection outlived the cancelled loop")
        } catch {
            await database.close()
            throw error
        }
        await database.close()
    }

    /// How many connections the test's database has.
    func connections(_ database: PostgresItems) async throws -> Int {
        let rows = try await database.writer.query(
            "SELECT count(*)::int8 FROM pg_stat_activity WHERE datname = current_database()", logger: TestServer.logger)
        var count = 0
        for try await value in rows.decode(Int64.self) { count = Int(value) }
        return count
    }
}
