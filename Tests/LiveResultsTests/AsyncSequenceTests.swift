import Foundation
import GRDB
@testable import LiveResults
@testable import LiveResultsSQLite
import Synchronization
import Testing
import TestSupport

/// `changes()` and `snapshots()`: no pumping, the controller's state matching each element,
/// commits of other processes, a slow consumer, cancellation and the controller going away.
@Suite struct AsyncSequenceTests {
    static let items = [
        Item(name: "Brazil", zone: "South America", score: 3),
        Item(name: "Argentina", zone: "South America", score: 5),
        Item(name: "Ghana", zone: "Africa", score: 1),
        Item(name: "France", zone: "Europe", score: 4),
        Item(name: "Spain", zone: "Europe", score: 2),
    ]

    @Test("A consumer loop sees every commit of other processes as checked batches")
    @MainActor func otherProcessesWrite() async throws {
        let fixture = try Fixture(Self.items, tracking: false, otherConnection: true)
        let file = fixture.database.path
        fixture.controller.changeLogPollInterval = .milliseconds(50) // the fixture turns it off
        // Fetched before the sequence, without a delegate: the loop starts with a reset.
        let consumer = Task { @MainActor in
            var report = ConsumerReport()
            var held = fixture.layout
            for try await change in fixture.controller.changes() {
                let now = fixture.layout
                switch change {
                case .reset:
                    report.resets += 1
                    if report.batches > 0 { report.problems.append("a reset came after \(report.batches) batches") }
                case .batch(let batch, let origin):
                    report.batches += 1
                    if origin != .elsewhere { report.problems.append("another process's batch came as \(origin)") }
                    report.problems += batchViolations(old: held, new: now, events: events(of: batch, in: now))
                }
                held = now
                if now.contains(where: { $0.name == "Last" }) {
                    report.converged = try now == fixture.freshLayout()
                    break
                }
            }
            return report
        }
        var random = SplitMix64(seed: 36)
        var commits = 0
        for _ in 0..<24 {
            let script = Self.transactions(10, rows: 60, using: &random)
            commits += 10
            try await runSQLite3(on: file, script: script)
            try await Task.sleep(for: .milliseconds(20))
        }
        try await runSQLite3(on: file, script: "INSERT INTO item (name, zone, score, flag) VALUES ('zz', 'Last', 0, 1);")
        let watchdog = Task { try await Task.sleep(for: .seconds(30)); consumer.cancel() }
        defer { watchdog.cancel() }
        let report = try await consumer.value
        #expect(report.problems == [])
        #expect(report.resets == 1)
        #expect(report.batches > 0)
        #expect(report.batches <= commits + 1)
        #expect(report.converged, "the loop never showed the result of the last commit")
    }

    @Test("A slow consumer gets the commits made meanwhile as one batch, and the state matches it")
    @MainActor func slowConsumer() async throws {
        let fixture = try Fixture(Self.items, tracking: false)
        var iterator = fixture.controller.changes().makeAsyncIterator()
        #expect(try await iterator.next() == .reset)
        var held = fixture.layout
        for round in 0..<3 {
            // Five commits before the consumer asks again: a score, a zone, a new row, a delete, a rename.
            try await fixture.database.write { try $0.execute(sql: "UPDATE item SET score = score + 7 WHERE name = 'Ghana'") }
            try await fixture.database.write { try $0.execute(sql: "UPDATE item SET zone = 'Africa' WHERE name = 'Spain'") }
            try insertItems([Item(name: "New \(round)", zone: "Asia", score: round)], into: fixture.database)
            try await fixture.database.write { try $0.execute(sql: "DELETE FROM item WHERE name = 'Argentina'") }
            try await fixture.database.write { try $0.execute(sql: "UPDATE item SET name = 'A' || name WHERE name = 'Brazil'") }
            let change = try await iterator.next()
            let now = fixture.layout
            #expect(now == (try fixture.freshLayout()), "the state read after the element is not the whole of the commits")
            guard case .batch(let batch, origin: .ownWrites) = change else {
                Issue.record("expected one batch, got \(String(describing: change))")
                return
            }
            #expect(batchViolations(old: held, new: now, events: events(of: batch, in: now)) == [])
            held = now
        }
    }

    @Test("Snapshots: the whole result after each step, with the rows to reload")
    @MainActor func snapshots() async throws {
        let fixture = try Fixture(Self.items, tracking: false)
        let snapshots = fixture.controller.snapshots()
        var iterator = snapshots.makeAsyncIterator()
        let first = try #require(try await iterator.next())
        #expect(first.reloadedItemIdentifiers == Set(first.itemIdentifiers.joined()))
        try await fixture.database.write { try $0.execute(sql: "UPDATE item SET score = 9 WHERE name = 'Spain'") }
        let second = try #require(try await iterator.next())
        #expect(second.sectionIdentifiers == fixture.layout.map(\.name))
        #expect(second.itemIdentifiers == fixture.layout.map(\.ids))
        let spain = try #require(try await fixture.database.read { try Int64.fetchOne($0, sql: "SELECT id FROM item WHERE name = 'Spain'") })
        #expect(second.reloadedItemIdentifiers == [spain])
    }

    @Test("Cancelling the consuming task ends the loop and stops the feed")
    @MainActor func cancellation() async throws {
        let fixture = try Fixture(Self.items, tracking: false, otherConnection: true)
        fixture.controller.changeLogPollInterval = .milliseconds(50) // the fixture turns it off
        let changes = fixture.controller.changes()
        try fixture.controller.performFetch() // tracking starts: the sequence exists
        weak let feed = fixture.controller.feed
        #expect(feed != nil)
        let seen = Mutex(0)
        let consumer = Task { @MainActor in
            for try await _ in changes { seen.withLock { $0 += 1 } }
            return fixture.controller.isTracking
        }
        try await fixture.otherConnection?.write { try $0.execute(sql: "UPDATE item SET score = 8 WHERE name = 'Ghana'") }
        let deadline = ContinuousClock.now + .seconds(10)
        while seen.withLock({ $0 }) == 0 && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
        #expect(seen.withLock { $0 } == 1)
        consumer.cancel()
        let trackingAfterwards = try await consumer.value
        #expect(!trackingAfterwards)
        #expect(feed == nil, "the feed (its observer and its poller) outlived the cancelled loop")
        // Commits after the end are not queued for anyone.
        try await fixture.database.write { try $0.execute(sql: "UPDATE item SET score = 0 WHERE name = 'Ghana'") }
        #expect(!fixture.controller.isTracking)
    }

    @Test("The loop ends when the controller goes away, and nothing keeps it alive")
    @MainActor func controllerGoesAway() async throws {
        let database = try makeItemDatabase()
        try insertItems(Self.items, into: database)
        weak var released: ResultsController<Item>?
        let consumer: Task<Int, any Error>
        do {
            let controller = ResultsController<Item>(database: database, fetchRequest: ResultsRequest(sortDescriptors: zoneScoreName), sectionNameKeyPath: "zone")
            released = controller
            let changes = controller.changes()
            try controller.performFetch()
            consumer = Task { @MainActor in
                var count = 0
                for try await _ in changes { count += 1 }
                return count
            }
        }
        try await database.write { try $0.execute(sql: "UPDATE item SET score = 8 WHERE name = 'Ghana'") }
        let watchdog = Task { try await Task.sleep(for: .seconds(30)); consumer.cancel() }
        defer { watchdog.cancel() }
        _ = try await consumer.value
        #expect(released == nil)
        #expect(!consumer.isCancelled, "the loop went on after the controller went away")
    }

    /// `count` transactions of one to four statements on `item`, as SQL for sqlite3: inserts,
    /// deletes, and updates of the sort keys, the section key and the name.
    static func transactions(_ count: Int, rows: Int, using random: inout SplitMix64) -> String {
        let zones = ["'Africa'", "'Asia'", "'Europe'", "'South America'", "NULL"]
        var script = ".timeout 10000\n"
        for _ in 0..<count {
            script += "BEGIN;\n"
            for _ in 0..<Int.random(in: 1...4, using: &random) {
                let id = Int.random(in: 1...rows, using: &random)
                let zone = zones.randomElement(using: &random)!
                let score = Int.random(in: 0...9, using: &random)
                switch Int.random(in: 0..<5, using: &random) {
                case 0: script += "INSERT INTO item (name, zone, score, flag) VALUES ('n\(id)', \(zone), \(score), 1);\n"
                case 1: script += "DELETE FROM item WHERE id = \(id);\n"
                case 2: script += "UPDATE item SET zone = \(zone) WHERE id = \(id);\n"
                case 3: script += "UPDATE item SET name = 'r\(score)' WHERE id = \(id);\n"
                default: script += "UPDATE item SET score = \(score) WHERE id = \(id);\n"
                }
            }
            script += "COMMIT;\n"
        }
        return script
    }
}

/// What a consumer loop saw: how many resets and batches, the checker's complaints, and
/// whether its last state was a fresh read's.
struct ConsumerReport: Sendable {
    var resets = 0
    var batches = 0
    var problems: [String] = []
    var converged = false
}

/// A batch as the delegate calls that deliver it, for `batchViolations`: an inserted section
/// reports its rows in `new`.
func events(of batch: ChangeBatch, in new: [Layout]) -> [Recorder.Event] {
    var events: [Recorder.Event] = [.willChange]
    for change in batch.sectionChanges {
        let count = change.kind == .insert && new.indices.contains(change.index) ? new[change.index].ids.count : 0
        events.append(.section(change.kind, index: change.index, name: change.name, count: count))
    }
    for change in batch.rowChanges {
        events.append(.row(change.kind, id: change.id, from: change.indexPath, to: change.newIndexPath))
    }
    return events + [.didChange]
}

/// Runs `script` through the sqlite3 shell on `file`: another process's commits.
func runSQLite3(on file: String, script: String) async throws {
    let folder = try TemporaryFolder(prefix: "liveresults-sqlite3")
    let input = folder.file("script.sql")
    try script.write(to: input, atomically: true, encoding: .utf8)
    let (status, _, err) = try await withCheckedThrowingContinuation { continuation in
        DispatchQueue.global().async {
            continuation.resume(with: Result {
                try Executable.run([file], executable: URL(fileURLWithPath: "/usr/bin/sqlite3"), input: FileHandle(forReadingFrom: input))
            })
        }
    }
    try #require(status == 0, "sqlite3 failed: \(err)")
}
