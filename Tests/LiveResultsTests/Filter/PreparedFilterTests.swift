import Foundation
import GRDB
import TestSupport
import Testing
@testable import LiveResults
@testable import LiveResultsSQLite

/// A filter whose column is read in the background (`prepareFilter(inColumn:)`): the result
/// stays whole until the column arrives, commits applied meanwhile reach it, and it arrives
/// as a reset. The column's read waits at a gate the test opens, so that commits surely fall
/// inside it.
@Suite struct PreparedFilterTests {
    /// How long any wait of these tests may last before it fails.
    static let deadline: TimeInterval = 10

    /// Waits (at most `deadline`) until the store's background read has started.
    static func waitForRead(_ store: GatedStore) throws {
        guard store.readStarted.wait(timeout: .now() + deadline) == .success else {
            throw TestFailure("The filter's column was not read within \(Int(deadline)) s of prepareFilter.")
        }
    }

    /// Processes pending changes until the pending filter applied (at most `deadline`).
    static func waitForFilter(_ controller: ResultsController<Item>) throws {
        let end = Date().addingTimeInterval(deadline)
        while controller.isFilterPending {
            guard Date() < end else { throw TestFailure("The prepared filter did not apply within \(Int(deadline)) s.") }
            usleep(1000)
            try controller.processPendingChanges()
        }
    }

    static let items = (0..<40).map { i in
        Item(name: ["Arthur", "Barbara", "Carl", "Dora", "Marc"][i % 5] + " \(i)", zone: ["FR", "IT", "DE"][i % 3], score: i % 7)
    }

    /// A fixture over `items` whose controller is reading the `name` column in the
    /// background, held at the gate of the store it returns.
    static func readingInTheBackground() throws -> (Fixture, GatedStore) {
        let gated = GatedStoreBox()
        let fixture = try Fixture(items, gate: gated)
        let store = try #require(gated.store)
        fixture.controller.prepareFilter(inColumn: "name")
        try waitForRead(store)
        return (fixture, store)
    }

    @Test("Until its column arrives the result stays whole; then the filter applies as a reset, with the commits made meanwhile")
    func commitsDuringTheRead() throws {
        let (gatedFixture, store) = try Self.readingInTheBackground()
        var fixture = gatedFixture
        try fixture.setFilter(.contains("ar", inColumn: "name"))
        #expect(fixture.controller.isFilterPending)
        #expect(fixture.layout == (try fixture.freshLayout(applyingFilter: false)), "the whole result while the column is read")

        // While the column is read: a match renamed away, a row renamed into the filter, a
        // matching row added, one deleted, a tap; each arrives as exact events, unfiltered.
        for sql in ["UPDATE item SET name = 'Zoe' WHERE id = 2", "UPDATE item SET name = 'Carla' WHERE id = 4",
                    "INSERT INTO item (name, zone, score) VALUES ('Marco', 'IT', 3)", "DELETE FROM item WHERE id = 7",
                    "UPDATE item SET score = score + 9 WHERE id = 12"] {
            let old = try fixture.freshLayout(applyingFilter: false)
            let events = try fixture.execute(sql)
            let new = try fixture.freshLayout(applyingFilter: false)
            #expect(fixture.layout == new, "\(sql)")
            #expect(batchViolations(old: old, new: new, events: events).isEmpty, "\(sql): \(events)")
        }
        #expect(fixture.controller.isFilterPending)

        store.open()
        try Self.waitForFilter(fixture.controller)
        #expect(fixture.recorder.take().contains(.reset))
        #expect(fixture.layout == (try fixture.freshLayout()))
        #expect(fixture.controller.numberOfObjects < Self.items.count)

        // Filtered now: exact events in the filtered result, narrowing and clearing in memory.
        for sql in ["UPDATE item SET name = 'Marcel' WHERE id = 3", "UPDATE item SET name = 'Bo' WHERE id = 4",
                    "UPDATE item SET score = 99 WHERE name LIKE 'Carl%'"] {
            let old = try fixture.freshLayout()
            let events = try fixture.execute(sql)
            let new = try fixture.freshLayout()
            #expect(fixture.layout == new, "\(sql)")
            #expect(batchViolations(old: old, new: new, events: events).isEmpty, "\(sql): \(events)")
        }
        try fixture.setFilter(.contains("arc", inColumn: "name"))
        #expect(fixture.layout == (try fixture.freshLayout()))
        try fixture.setFilter(nil)
        #expect(fixture.layout == (try fixture.freshLayout()))
        #expect(!fixture.controller.isFilterPending)
    }

    @Test("Random commits during the read, then filtered: the result matches a fresh fetch (seed printed)", arguments: 0..<6)
    func randomCommitsDuringTheRead(round: Int) throws {
        let seed = UInt64(0xF11_7E2) &+ UInt64(round) &* 0x9E37_79B9
        var random = SplitMix64(seed: seed)
        let (gatedFixture, store) = try Self.readingInTheBackground()
        var fixture = gatedFixture
        let texts = ["a", "ar", "r", "Ma", "1", "o"]
        try fixture.setFilter(.contains(texts[Int(random.next() % UInt64(texts.count))], inColumn: "name"))
        func randomStatement() -> String {
            let id = Int(random.next() % 50) + 1
            let name = ["Arthur", "Marc", "Zoe", "Bo", "Carla", "Ola"][Int(random.next() % 6)] + " \(random.next() % 100)"
            switch random.next() % 4 {
            case 0: return "UPDATE item SET name = '\(name)' WHERE id = \(id)"
            case 1: return "INSERT INTO item (name, zone, score) VALUES ('\(name)', '\(["FR", "IT", "DE", "ES"][Int(random.next() % 4)])', \(random.next() % 9))"
            case 2: return "DELETE FROM item WHERE id = \(id)"
            default: return "UPDATE item SET score = score + 1 WHERE id = \(id)"
            }
        }
        var executed: [String] = []
        for _ in 0..<12 {
            let sql = randomStatement()
            executed.append(sql)
            // A name that repeats is refused by nothing here; a statement may touch no row.
            try fixture.execute(sql)
        }
        store.open()
        try Self.waitForFilter(fixture.controller)
        #expect(fixture.recorder.take().contains(.reset), "seed 0x\(String(seed, radix: 16))")
        #expect(fixture.layout == (try fixture.freshLayout()), "seed 0x\(String(seed, radix: 16)), after \(executed)")
        for _ in 0..<12 {
            let sql = randomStatement()
            let old = try fixture.freshLayout()
            let events = try fixture.execute(sql)
            let new = try fixture.freshLayout()
            #expect(fixture.layout == new, "seed 0x\(String(seed, radix: 16)): \(sql)")
            #expect(batchViolations(old: old, new: new, events: events).isEmpty, "seed 0x\(String(seed, radix: 16)): \(sql): \(events)")
        }
    }

    @Test("Clearing the filter while its column is read stops waiting for it; a column that does not exist fails once, in one sentence")
    func clearAndErrors() throws {
        let (gatedFixture, store) = try Self.readingInTheBackground()
        var fixture = gatedFixture
        try fixture.setFilter(.contains("ar", inColumn: "name"))
        try fixture.setFilter(nil)
        #expect(!fixture.controller.isFilterPending)
        store.open()
        #expect(fixture.layout == (try fixture.freshLayout()))

        fixture.controller.prepareFilter(inColumn: "nickname")
        var failure: (any Error)?
        // The read may be over already (the gate is open): then setFilter itself throws.
        do { try fixture.setFilter(.contains("ar", inColumn: "nickname")) } catch { failure = error }
        let end = Date().addingTimeInterval(Self.deadline)
        while failure == nil, fixture.controller.isFilterPending, Date() < end {
            usleep(1000)
            do { try fixture.controller.processPendingChanges() } catch { failure = error }
        }
        let error = try #require(failure as? LiveResultsError)
        #expect(error.description == "The table “item” has no column named “nickname” to filter on.")
        #expect(fixture.controller.filter == nil && !fixture.controller.isFilterPending)
        #expect(fixture.controller.numberOfObjects == Self.items.count)
    }
}

/// Where a test gets the gated store a fixture made (`Fixture(gate:)`).
final class GatedStoreBox {
    var store: GatedStore?

    func wrap(_ inner: any ResultsStore) -> any ResultsStore {
        let store = GatedStore(inner)
        self.store = store
        return store
    }
}

/// A store whose reads of a whole column (a filter's, in the background) wait until the test
/// opens the gate (at most `PreparedFilterTests.deadline`); everything else goes through.
final class GatedStore: ResultsStore, @unchecked Sendable {
    let inner: any ResultsStore
    /// Signalled when a whole-column read starts.
    let readStarted = DispatchSemaphore(value: 0)
    private let gate = DispatchSemaphore(value: 0)

    init(_ inner: any ResultsStore) {
        self.inner = inner
    }

    /// Lets the waiting read, and every later one, go on.
    func open() {
        gate.signal()
    }

    func fetch(_ query: StoreQuery, tracking: Tracking?) throws -> StoreFetch {
        try inner.fetch(query, tracking: tracking)
    }

    func fetchAll(_ query: StoreQuery) throws -> StoreRows {
        try inner.fetchAll(query)
    }

    func forEachText(inColumn column: String, table: String, ids: [RecordID]?, _ body: (RecordID, UnsafeRawBufferPointer?) throws -> Void) throws {
        if ids == nil {
            readStarted.signal()
            guard gate.wait(timeout: .now() + PreparedFilterTests.deadline) == .success else {
                throw TestFailure("The test did not open the gate within \(Int(PreparedFilterTests.deadline)) s.")
            }
            gate.signal() // open for the next read too
        }
        try inner.forEachText(inColumn: column, table: table, ids: ids, body)
    }
}

/// A failure of a test's own wait, in one sentence.
struct TestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
