import Foundation
import GRDB
import Testing
@testable import LiveResults
@testable import LiveResultsSQLite

/// The cases a strict table-view consumer found: each batch, applied the way a table view
/// applies it, must give exactly what a fresh fetch gives, on every path (this connection,
/// another connection through the change log, the refetch fallback).
@Suite("Exact events in every batch")
struct ExactEventsTests {
    /// Where a commit comes from.
    enum Writer: String, CaseIterable, CustomTestStringConvertible {
        /// This connection, in memory, without a change log.
        case ownWithoutLog
        /// This connection, in a file with a change log.
        case ownWithLog
        /// This connection through `liveResultsWrite`, in a file with a change log: keys read
        /// inside the transaction.
        case ownLiveResultsWrite
        /// A second connection to the file, read through the change log.
        case other

        var testDescription: String { rawValue }
    }

    /// A fixture for `writer`, with `setup` run before the fetch.
    static func fixture(_ items: [Item], for writer: Writer, sortDescriptors: [SortColumn] = [SortColumn("zone"), SortColumn("name")],
                        setup: ((Database) throws -> Void)? = nil) throws -> Fixture {
        try Fixture(items, sortDescriptors: sortDescriptors, otherConnection: writer != .ownWithoutLog, setup: setup)
    }

    /// Commits `updates` as `writer` and returns the events the controller delivered.
    static func commit(_ fixture: Fixture, as writer: Writer, _ updates: (Database) throws -> Void) throws -> [Recorder.Event] {
        switch writer {
        case .ownWithoutLog, .ownWithLog:
            try fixture.database.write(updates)
            try fixture.controller.processPendingChanges()
        case .ownLiveResultsWrite:
            try fixture.database.liveResultsWrite(updates)
            try fixture.controller.processPendingChanges()
        case .other:
            try fixture.otherConnection!.write(updates)
            try fixture.controller.refresh()
        }
        return fixture.recorder.take()
    }

    /// Checks a batch against the old and new results, as a table view would apply it.
    static func expectExact(_ events: [Recorder.Event], old: [Layout], fixture: Fixture, dataChanged: Set<RecordID> = [],
                            sourceLocation: SourceLocation = #_sourceLocation) throws {
        let new = try fixture.freshLayout()
        let problems = batchViolations(old: old, new: new, events: events, dataChanged: dataChanged)
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))\nevents: \(events)", sourceLocation: sourceLocation)
        #expect(fixture.layout == new, sourceLocation: sourceLocation)
    }

    // MARK: - 1. An update that should be a move

    static let france = [(1, "Arthur"), (2, "Barbara"), (7, "Claire"), (8, "Diane")].map { Item(id: $0.0, name: $0.1, zone: "FR") }

    @Test("Delete Arthur and rename Barbara to Cyril: Cyril passed Claire, a move to the same index path", arguments: Writer.allCases)
    func renamePastANeighbourAfterADelete(_ writer: Writer) throws {
        let fixture = try Self.fixture(Self.france, for: writer)
        let old = fixture.layout
        let events = try Self.commit(fixture, as: writer) { db in
            try db.execute(sql: "DELETE FROM item WHERE id = 1")
            try db.execute(sql: "UPDATE item SET name = 'Cyril' WHERE id = 2")
        }
        #expect(events == [
            .willChange,
            .row(.delete, id: 1, from: ip(0, 0), to: nil),
            .row(.move, id: 2, from: ip(0, 1), to: ip(0, 1)),
            .didChange,
        ])
        try Self.expectExact(events, old: old, fixture: fixture, dataChanged: [2])
        #expect(fixture.layout == [Layout("FR", [7, 2, 8])])
    }

    @Test("Insert Aaron and rename David to Bob: Bob passed Craig, a move to the same index path", arguments: Writer.allCases)
    func renamePastANeighbourAfterAnInsert(_ writer: Writer) throws {
        let items = [Item(name: "Ann", zone: "AF"), Item(name: "Zed", zone: "EU"), Item(name: "Craig", zone: "US"), Item(name: "David", zone: "US")]
        let fixture = try Self.fixture(items, for: writer)
        let old = fixture.layout
        let events = try Self.commit(fixture, as: writer) { db in
            try db.execute(sql: "INSERT INTO item (id, name, zone, score, flag) VALUES (10, 'Aaron', 'US', 0, 1)")
            try db.execute(sql: "UPDATE item SET name = 'Bob' WHERE id = 4")
        }
        #expect(events == [
            .willChange,
            .row(.insert, id: 10, from: nil, to: ip(2, 0)),
            .row(.move, id: 4, from: ip(2, 1), to: ip(2, 1)),
            .didChange,
        ])
        try Self.expectExact(events, old: old, fixture: fixture, dataChanged: [4])
    }

    @Test("Rows that keep their order among the unmoved rows are updates, whatever their index paths")
    func updatesWithShiftedPaths() throws {
        let fixture = try Self.fixture(Self.france, for: .ownWithoutLog)
        let old = fixture.layout
        let events = try Self.commit(fixture, as: .ownWithoutLog) { db in
            try db.execute(sql: "DELETE FROM item WHERE id = 1")
            try db.execute(sql: "UPDATE item SET flag = 0 WHERE id IN (7, 8)")
        }
        #expect(events == [
            .willChange,
            .row(.delete, id: 1, from: ip(0, 0), to: nil),
            .row(.update, id: 7, from: ip(0, 2), to: ip(0, 1)),
            .row(.update, id: 8, from: ip(0, 3), to: ip(0, 2)),
            .didChange,
        ])
        try Self.expectExact(events, old: old, fixture: fixture, dataChanged: [7, 8])
    }

    @Test("Two changed rows that trade places: one move, the other an update")
    func twoRowsTradePlaces() throws {
        let fixture = try Self.fixture(Self.france, for: .ownWithoutLog)
        let old = fixture.layout
        let events = try Self.commit(fixture, as: .ownWithoutLog) { db in
            try db.execute(sql: "UPDATE item SET name = 'Cyril' WHERE id = 2")   // after Claire
            try db.execute(sql: "UPDATE item SET name = 'Bea' WHERE id = 7")     // before Cyril
        }
        let kinds = events.compactMap { event -> ChangeKind? in
            if case let .row(kind, _, _, _) = event { return kind } else { return nil }
        }
        #expect(kinds.sorted { "\($0)" < "\($1)" } == [.move, .update].sorted { "\($0)" < "\($1)" })
        try Self.expectExact(events, old: old, fixture: fixture, dataChanged: [2, 7])
    }

    // MARK: - 2. Rows removed by REPLACE

    /// Flowers of zone F, with a unique index on their names.
    static func fixtureWithUniqueNames(_ names: [String], for writer: Writer) throws -> Fixture {
        try fixture(names.map { Item(name: $0, zone: "F") }, for: writer) { db in
            try db.execute(sql: "CREATE UNIQUE INDEX item_on_name ON item (name)")
            // The change log learns the table's unique indexes when installed (again).
            if try db.tableExists(ChangeLog.tableName) { try ChangeLog.install(on: "item", in: db) }
        }
    }

    @Test("INSERT OR REPLACE that collides on a unique name deletes the old row", arguments: Writer.allCases)
    func replaceRemovesACollidingRow(_ writer: Writer) throws {
        let fixture = try Self.fixtureWithUniqueNames(["Rose", "Tulip"], for: writer)
        let old = fixture.layout
        let events = try Self.commit(fixture, as: writer) { db in
            try db.execute(sql: "INSERT OR REPLACE INTO item (id, name, zone, score, flag) VALUES (3, 'Rose', 'F', 0, 1)")
        }
        try Self.expectExact(events, old: old, fixture: fixture)
        #expect(fixture.layout == [Layout("F", [3, 2])])
        #expect(events.contains(.row(.delete, id: 1, from: ip(0, 0), to: nil)))
    }

    @Test("UPDATE OR REPLACE that collides on a unique name deletes the old row", arguments: Writer.allCases)
    func updateOrReplaceRemovesACollidingRow(_ writer: Writer) throws {
        let fixture = try Self.fixtureWithUniqueNames(["Rose", "Tulip", "Violet"], for: writer)
        let old = fixture.layout
        let events = try Self.commit(fixture, as: writer) { db in
            try db.execute(sql: "UPDATE OR REPLACE item SET name = 'Rose' WHERE id = 3")
        }
        try Self.expectExact(events, old: old, fixture: fixture)
        #expect(fixture.layout == [Layout("F", [3, 2])])
    }

    @Test("Rows deleted by a foreign-key cascade and by a trigger are deletes", arguments: Writer.allCases)
    func cascadesAndTriggers(_ writer: Writer) throws {
        let items = [Item(name: "a", zone: "X"), Item(name: "b", zone: "X"), Item(name: "c", zone: "Y"), Item(name: "d", zone: "Z")]
        let fixture = try Self.fixture(items, for: writer) { db in
            try db.execute(sql: """
                CREATE TABLE owner (id INTEGER PRIMARY KEY);
                INSERT INTO owner (id) VALUES (1), (2);
                ALTER TABLE item ADD COLUMN ownerID INTEGER REFERENCES owner(id) ON DELETE CASCADE;
                UPDATE item SET ownerID = 1 WHERE zone = 'X';
                CREATE TABLE purge (zone TEXT);
                CREATE TRIGGER purge_zone AFTER INSERT ON purge BEGIN DELETE FROM item WHERE zone = NEW.zone; END;
                """)
            // The change log learns the table's columns when installed (again).
            if try db.tableExists(ChangeLog.tableName) { try ChangeLog.install(on: "item", in: db) }
        }
        var old = fixture.layout
        var events = try Self.commit(fixture, as: writer) { db in
            try db.execute(sql: "DELETE FROM owner WHERE id = 1")
        }
        try Self.expectExact(events, old: old, fixture: fixture)
        #expect(fixture.layout == [Layout("Y", [3]), Layout("Z", [4])])
        old = fixture.layout
        events = try Self.commit(fixture, as: writer) { db in
            try db.execute(sql: "INSERT INTO purge (zone) VALUES ('Y')")
        }
        try Self.expectExact(events, old: old, fixture: fixture)
        #expect(fixture.layout == [Layout("Z", [4])])
    }

    // MARK: - 3. The refetch fallback

    @Test("A reader whose log position was pruned still gets every changed row, updates included")
    func prunedLogReportsUpdates() throws {
        let fixture = try Fixture([Item(name: "a", zone: "X", score: 1), Item(name: "b", zone: "X", score: 2), Item(name: "c", zone: "Y")],
                                  otherConnection: true) { db in
            try ChangeLog.install(on: "item", in: db, retaining: 1000)
        }
        let old = fixture.layout
        try fixture.otherConnection!.write { db in
            try db.execute(sql: "UPDATE item SET flag = 0 WHERE id = 3")       // not a key: only data
        }
        for _ in 0..<3 {
            // Many commits, so the entries after the controller's position are pruned.
            try fixture.otherConnection!.write { db in
                for _ in 0..<1000 { try db.execute(sql: "UPDATE item SET score = score + 1 WHERE id = 1") }
            }
        }
        let pruned = try fixture.database.read { db in
            try Int64.fetchOne(db, sql: "SELECT MIN(position) FROM \(ChangeLog.tableName)") ?? 0
        }
        #expect(pruned > 100, "the entries of the first commits were pruned")
        try fixture.controller.refresh()
        let events = fixture.recorder.take()
        #expect(events == [
            .willChange,
            .row(.move, id: 1, from: ip(0, 1), to: ip(0, 0)),
            .row(.update, id: 3, from: ip(1, 0), to: ip(1, 0)),
            .didChange,
        ])
        try Self.expectExact(events, old: old, fixture: fixture, dataChanged: [1, 3])
    }

    @Test("Without a summary of pruned entries the controller resets, never stays silent")
    func prunedLogWithoutSummaryResets() throws {
        let fixture = try Fixture([Item(name: "a", zone: "X"), Item(name: "b", zone: "Y")], otherConnection: true) { db in
            try ChangeLog.install(on: "item", in: db, retaining: 1000)
            // A log made before pruned entries were summarised.
            try db.execute(sql: """
                DROP TABLE \(ChangeLog.prunedTableName);
                DROP TRIGGER liveresults_prune;
                CREATE TRIGGER liveresults_prune AFTER INSERT ON \(ChangeLog.tableName) WHEN NEW.position % 1000 = 0 BEGIN
                    DELETE FROM \(ChangeLog.tableName) WHERE position <= NEW.position - 1000;
                END;
                """)
        }
        var snapshots: [ResultsSnapshot] = []
        fixture.controller.onSnapshot = { snapshots.append($0) }
        try fixture.otherConnection!.write { db in
            try db.execute(sql: "UPDATE item SET flag = 0 WHERE id = 2")
            for _ in 0..<2500 { try db.execute(sql: "UPDATE item SET score = score + 1 WHERE id = 1") }
        }
        try fixture.controller.refresh()
        #expect(fixture.recorder.take() == [.reset])
        #expect(try fixture.layout == fixture.freshLayout())
        #expect(snapshots.count == 1)
        #expect(snapshots.last?.reloadedItemIdentifiers == [1, 2], "a reset snapshot reloads every row")
    }

    @Test("A change log that went back (dropped and made again) resets the controller")
    func logThatWentBackResets() throws {
        let fixture = try Fixture([Item(name: "a", zone: "X"), Item(name: "b", zone: "Y")], otherConnection: true)
        try fixture.database.write { try $0.execute(sql: "UPDATE item SET score = 5 WHERE id = 2") }
        try fixture.controller.processPendingChanges()
        _ = fixture.recorder.take()
        try fixture.otherConnection!.write { db in
            try db.execute(sql: "DROP TABLE \(ChangeLog.tableName)")
            try ChangeLog.install(on: "item", in: db)
            try db.execute(sql: "DELETE FROM item WHERE id = 1")
        }
        try fixture.controller.refresh()
        #expect(fixture.recorder.take() == [.reset])
        #expect(fixture.layout == [Layout("Y", [2])])
    }

    @Test("A commit of ours that finds the log made again resets the controller too")
    func ownCommitAfterTheLogWentBack() throws {
        let fixture = try Fixture([Item(name: "a", zone: "X"), Item(name: "b", zone: "Y")], otherConnection: true)
        for score in 1...3 { try fixture.execute("UPDATE item SET score = ? WHERE id = 2", [score]) }
        _ = fixture.recorder.take()
        try fixture.otherConnection!.write { db in
            try db.execute(sql: "DROP TABLE \(ChangeLog.tableName)")
            try ChangeLog.install(on: "item", in: db)
            try db.execute(sql: "DELETE FROM item WHERE id = 1")
        }
        let events = try fixture.execute("UPDATE item SET score = 9 WHERE id = 2")
        #expect(events == [.reset])
        #expect(try fixture.layout == fixture.freshLayout())
    }

    @Test("liveResultsWrite reads the keys inside the transaction, for every controller of the connection; a plain write after it")
    func keysReadBeforeTheCommit() throws {
        let fixture = try Self.fixture(Self.france, for: .ownWithLog)
        let tracker = try #require((fixture.controller.feed as? SQLiteChangeFeed)?.tracker)
        var old = fixture.layout
        var events = try Self.commit(fixture, as: .ownWithLog) { try $0.execute(sql: "UPDATE item SET name = 'Zed' WHERE id = 1") }
        try Self.expectExact(events, old: old, fixture: fixture)
        #expect(tracker.keyReadsAfterCommit == 1)
        do {
            // A second controller of the same connection reads before the commit too.
            let second = ResultsController<Item>(database: fixture.database, fetchRequest: ResultsRequest(sortDescriptors: [SortColumn("name")]), sectionNameKeyPath: nil)
            let recorder = Recorder()
            second.delegate = recorder
            try second.performFetch()
            let secondTracker = try #require((second.feed as? SQLiteChangeFeed)?.tracker)
            old = fixture.layout
            events = try Self.commit(fixture, as: .ownLiveResultsWrite) { try $0.execute(sql: "UPDATE item SET name = 'Aaron' WHERE id = 1") }
            try Self.expectExact(events, old: old, fixture: fixture)
            try second.processPendingChanges()
            #expect((0..<second.numberOfObjects(inSection: 0)).map { second.id(at: ip(0, $0)) } == [1, 2, 7, 8])
            #expect(!recorder.take().isEmpty)
            #expect(tracker.keyReadsAfterCommit == 1)
            #expect(secondTracker.keyReadsAfterCommit == 0)
        }
        // The second controller is gone: the connection's writes reach the first alone.
        old = fixture.layout
        events = try Self.commit(fixture, as: .ownLiveResultsWrite) { try $0.execute(sql: "DELETE FROM item WHERE id = 7") }
        try Self.expectExact(events, old: old, fixture: fixture)
        #expect(tracker.keyReadsAfterCommit == 1)
        // A rowid change: only the log knows the old rowid, so the keys are read after the commit.
        old = fixture.layout
        events = try Self.commit(fixture, as: .ownLiveResultsWrite) { try $0.execute(sql: "UPDATE item SET id = 50 WHERE id = 2") }
        try Self.expectExact(events, old: old, fixture: fixture)
        #expect(tracker.keyReadsAfterCommit == 2)
        #expect(fixture.layout == [Layout("FR", [1, 50, 8])])
    }

    // MARK: - 4. Without a change log

    @Test("A rowid change and another row's update in one transaction: both reported")
    func rowIDChangeWithAnUpdate() throws {
        let fixture = try Self.fixture([Item(name: "a", zone: "X"), Item(name: "b", zone: "X"), Item(name: "c", zone: "X")], for: .ownWithoutLog)
        let old = fixture.layout
        let events = try Self.commit(fixture, as: .ownWithoutLog) { db in
            try db.execute(sql: "UPDATE item SET id = 100 WHERE id = 1")
            try db.execute(sql: "UPDATE item SET flag = 0 WHERE id = 3")
        }
        #expect(events.contains(.row(.update, id: 3, from: ip(0, 2), to: ip(0, 2))))
        #expect(events.contains(.row(.delete, id: 1, from: ip(0, 0), to: nil)))
        #expect(events.contains(.row(.insert, id: 100, from: nil, to: ip(0, 0))))
        try Self.expectExact(events, old: old, fixture: fixture, dataChanged: [3])
    }

    // MARK: - 5. One section without a section key

    @Test("Without a section key the result always has one section: no section event, ever", arguments: [Writer.ownWithoutLog, .other])
    func oneSectionWithoutAKey(_ writer: Writer) throws {
        let fixture = try Fixture([], sortDescriptors: [SortColumn("name")], sectionNameKeyPath: nil, otherConnection: writer == .other)
        #expect(fixture.controller.sections.map(\.numberOfObjects) == [0])
        #expect(fixture.controller.sections.map(\.name) == [""])
        var events = try Self.commit(fixture, as: writer) { try $0.execute(sql: "INSERT INTO item (name, score, flag) VALUES ('a', 0, 1)") }
        #expect(events == [.willChange, .row(.insert, id: 1, from: nil, to: ip(0, 0)), .didChange])
        events = try Self.commit(fixture, as: writer) { try $0.execute(sql: "DELETE FROM item") }
        #expect(events == [.willChange, .row(.delete, id: 1, from: ip(0, 0), to: nil), .didChange])
        #expect(fixture.controller.sections.map(\.numberOfObjects) == [0])
        #expect(fixture.controller.snapshot().sectionIdentifiers == [""])
    }

    @Test("An unsectioned, limited request keeps its one section too")
    func oneSectionWithALimit() throws {
        let fixture = try Fixture([Item(name: "a", zone: nil)], sortDescriptors: [SortColumn("name")], sectionNameKeyPath: nil, fetchLimit: 2)
        let events = try fixture.execute("DELETE FROM item")
        #expect(events == [.willChange, .row(.delete, id: 1, from: ip(0, 0), to: nil), .didChange])
        #expect(fixture.controller.sections.count == 1)
    }
}
