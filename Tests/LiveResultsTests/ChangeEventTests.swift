import Foundation
import GRDB
import Synchronization
import Testing
@testable import LiveResults
@testable import LiveResultsSQLite

/// The standard result of these tests, sorted by zone, most score, then name:
///
///     section 0 "A": 1 Ann 5, 2 Bob 3, 3 Cid 3
///     section 1 "B": 4 Dan 4, 5 Eve 2
///     section 2 "C": 6 Fay 7
private let standardItems = [
    Item(name: "Ann", zone: "A", score: 5),
    Item(name: "Bob", zone: "A", score: 3),
    Item(name: "Cid", zone: "A", score: 3),
    Item(name: "Dan", zone: "B", score: 4),
    Item(name: "Eve", zone: "B", score: 2),
    Item(name: "Fay", zone: "C", score: 7),
]
private let ann: RecordID = 1, bob: RecordID = 2, cid: RecordID = 3, dan: RecordID = 4, eve: RecordID = 5, fay: RecordID = 6

private func standardFixture(predicate: String? = nil) throws -> Fixture {
    let fixture = try Fixture(standardItems, predicate: predicate)
    #expect(fixture.layout == [Layout("A", [ann, bob, cid]), Layout("B", [dan, eve]), Layout("C", [fay])])
    return fixture
}

/// Runs a write, and checks the batch it produced against every rule, and the controller's
/// result against a fresh fetch.
private func checkedWrite(_ fixture: Fixture, touched: Set<RecordID>? = nil, _ updates: (Database) throws -> Void) throws -> [Recorder.Event] {
    let before = try fixture.freshLayout()
    let events = try fixture.write(updates)
    let after = try fixture.freshLayout()
    let problems = batchViolations(old: before, new: after, events: events, touched: touched)
    #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))\nevents: \(events)")
    #expect(fixture.layout == after)
    return events
}

@Suite("Change events")
struct ChangeEventTests {
    @Test("A tap that does not change the row's place is an update at the same index path")
    func tapWithoutMove() throws {
        let fixture = try standardFixture()
        let events = try checkedWrite(fixture, touched: [bob]) { try $0.execute(sql: "UPDATE item SET score = score + 1 WHERE id = ?", arguments: [bob]) }
        #expect(events == [.willChange, .row(.update, id: bob, from: ip(0, 1), to: ip(0, 1)), .didChange])
        #expect(try fixture.controller.object(at: ip(0, 1)).score == 4)
    }

    @Test("A tap that changes the row's place is one move; rows that merely shift are not reported")
    func tapWithMove() throws {
        let fixture = try standardFixture()
        // Cid 3 -> 4 passes Bob (3).
        var events = try checkedWrite(fixture, touched: [cid]) { try $0.execute(sql: "UPDATE item SET score = score + 1 WHERE id = ?", arguments: [cid]) }
        #expect(events == [.willChange, .row(.move, id: cid, from: ip(0, 2), to: ip(0, 1)), .didChange])
        #expect(fixture.layout[0] == Layout("A", [ann, cid, bob]))
        // Cid 4 -> 5 ties Ann (5); "Ann" < "Cid" keeps Cid second: an update, not a move to itself.
        events = try checkedWrite(fixture, touched: [cid]) { try $0.execute(sql: "UPDATE item SET score = score + 1 WHERE id = ?", arguments: [cid]) }
        #expect(events == [.willChange, .row(.update, id: cid, from: ip(0, 1), to: ip(0, 1)), .didChange])
        // Cid 5 -> 6 passes Ann.
        events = try checkedWrite(fixture, touched: [cid]) { try $0.execute(sql: "UPDATE item SET score = score + 1 WHERE id = ?", arguments: [cid]) }
        #expect(events == [.willChange, .row(.move, id: cid, from: ip(0, 1), to: ip(0, 0)), .didChange])
        #expect(fixture.layout == [Layout("A", [cid, ann, bob]), Layout("B", [dan, eve]), Layout("C", [fay])])
        #expect(try fixture.controller.object(at: ip(0, 0)).score == 6)
    }

    @Test("A row added to an existing section is one insert")
    func addIntoExistingSection() throws {
        let fixture = try standardFixture()
        let events = try checkedWrite(fixture) { db in
            var item = Item(name: "Gus", zone: "B", score: 3)
            try item.insert(db)
        }
        #expect(events == [.willChange, .row(.insert, id: 7, from: nil, to: ip(1, 1)), .didChange])
        #expect(fixture.layout[1] == Layout("B", [dan, 7, eve]))
    }

    @Test("A row added to a new section inserts the section at its new index, then the row", arguments: [
        ("0", 0), ("Aa", 1), ("Bz", 2), ("D", 3), ("a", 3),
    ])
    func addIntoNewSection(zone: String, sectionIndex: Int) throws {
        let fixture = try standardFixture()
        let events = try checkedWrite(fixture) { db in
            var item = Item(name: "Hal", zone: zone, score: 0)
            try item.insert(db)
        }
        #expect(events == [
            .willChange,
            .section(.insert, index: sectionIndex, name: zone, count: 1),
            .row(.insert, id: 7, from: nil, to: ip(sectionIndex, 0)),
            .didChange,
        ])
        #expect(fixture.controller.sections.map(\.name) == (["A", "B", "C"] as [String]).inserting(zone, at: sectionIndex))
    }

    @Test("Deleting a row that is not the last of its section is one delete")
    func deleteRow() throws {
        let fixture = try standardFixture()
        let events = try checkedWrite(fixture, touched: [bob]) { try $0.execute(sql: "DELETE FROM item WHERE id = ?", arguments: [bob]) }
        #expect(events == [.willChange, .row(.delete, id: bob, from: ip(0, 1), to: nil), .didChange])
    }

    @Test("Deleting the last row of a section deletes the row and the section at its old index")
    func deleteLastRowOfSection() throws {
        let fixture = try standardFixture()
        var events = try checkedWrite(fixture, touched: [fay]) { try $0.execute(sql: "DELETE FROM item WHERE id = ?", arguments: [fay]) }
        #expect(events == [
            .willChange,
            .section(.delete, index: 2, name: "C", count: 0),
            .row(.delete, id: fay, from: ip(2, 0), to: nil),
            .didChange,
        ])
        // A middle section emptied in one transaction: rows deleted last place first.
        events = try checkedWrite(fixture, touched: [dan, eve]) { try $0.execute(sql: "DELETE FROM item WHERE zone = 'B'") }
        #expect(events == [
            .willChange,
            .section(.delete, index: 1, name: "B", count: 0),
            .row(.delete, id: eve, from: ip(1, 1), to: nil),
            .row(.delete, id: dan, from: ip(1, 0), to: nil),
            .didChange,
        ])
        #expect(fixture.layout == [Layout("A", [ann, bob, cid])])
    }

    @Test("A predicate with bound values: the rows a commit touches are read with their ids bound after those values")
    func predicateWithArguments() throws {
        let fixture = try Fixture(standardItems, predicate: "score >= ? AND name <> ?", predicateArguments: [3.databaseValue, "Fay".databaseValue])
        #expect(fixture.layout == [Layout("A", [ann, bob, cid]), Layout("B", [dan])])
        var events = try checkedWrite(fixture) { try $0.execute(sql: "UPDATE item SET score = 6 WHERE id = ?", arguments: [eve]) }
        #expect(events == [.willChange, .row(.insert, id: eve, from: nil, to: ip(1, 0)), .didChange])
        events = try checkedWrite(fixture) { try $0.execute(sql: "UPDATE item SET score = 2 WHERE id = ?", arguments: [bob]) }
        #expect(events == [.willChange, .row(.delete, id: bob, from: ip(0, 1), to: nil), .didChange])
        // Several rows in one commit: more ids after the same values.
        _ = try checkedWrite(fixture) { db in
            try db.execute(sql: "UPDATE item SET score = score + 4 WHERE id IN (?, ?, ?)", arguments: [bob, cid, fay])
        }
        #expect(fixture.layout == [Layout("A", [cid, bob, ann]), Layout("B", [eve, dan])])
    }

    @Test("A row that starts matching the predicate is an insert; one that stops matching is a delete")
    func predicateEnterAndLeave() throws {
        let fixture = try Fixture(standardItems, predicate: "flag = 1", setup: { db in
            try db.execute(sql: "UPDATE item SET flag = 0 WHERE id = ?", arguments: [eve])
        })
        #expect(fixture.layout == [Layout("A", [ann, bob, cid]), Layout("B", [dan]), Layout("C", [fay])])

        var events = try checkedWrite(fixture) { try $0.execute(sql: "UPDATE item SET flag = 1 WHERE id = ?", arguments: [eve]) }
        #expect(events == [.willChange, .row(.insert, id: eve, from: nil, to: ip(1, 1)), .didChange])

        events = try checkedWrite(fixture) { try $0.execute(sql: "UPDATE item SET flag = 0 WHERE id = ?", arguments: [dan]) }
        #expect(events == [.willChange, .row(.delete, id: dan, from: ip(1, 0), to: nil), .didChange])

        events = try checkedWrite(fixture) { try $0.execute(sql: "UPDATE item SET flag = 0 WHERE id = ?", arguments: [eve]) }
        #expect(events == [
            .willChange,
            .section(.delete, index: 1, name: "B", count: 0),
            .row(.delete, id: eve, from: ip(1, 0), to: nil),
            .didChange,
        ])

        events = try checkedWrite(fixture) { try $0.execute(sql: "UPDATE item SET flag = 1 WHERE id = ?", arguments: [eve]) }
        #expect(events == [
            .willChange,
            .section(.insert, index: 1, name: "B", count: 1),
            .row(.insert, id: eve, from: nil, to: ip(1, 0)),
            .didChange,
        ])

        // Changes to rows outside the predicate are not reported at all.
        events = try checkedWrite(fixture) { try $0.execute(sql: "UPDATE item SET score = 99, name = 'Zed' WHERE id = ?", arguments: [dan]) }
        #expect(events.isEmpty)
    }

    @Test("A section key change into an existing section is a move across sections")
    func sectionKeyChangeIntoExistingSection() throws {
        let fixture = try standardFixture()
        let events = try checkedWrite(fixture, touched: [eve]) { try $0.execute(sql: "UPDATE item SET zone = 'A' WHERE id = ?", arguments: [eve]) }
        #expect(events == [.willChange, .row(.move, id: eve, from: ip(1, 1), to: ip(0, 3)), .didChange])
        #expect(fixture.layout == [Layout("A", [ann, bob, cid, eve]), Layout("B", [dan]), Layout("C", [fay])])
    }

    @Test("A section key change into a new section is a delete and an insert (rule 4)")
    func sectionKeyChangeIntoNewSection() throws {
        let fixture = try standardFixture()
        let events = try checkedWrite(fixture, touched: [eve]) { try $0.execute(sql: "UPDATE item SET zone = 'D' WHERE id = ?", arguments: [eve]) }
        #expect(events == [
            .willChange,
            .section(.insert, index: 3, name: "D", count: 1),
            .row(.delete, id: eve, from: ip(1, 1), to: nil),
            .row(.insert, id: eve, from: nil, to: ip(3, 0)),
            .didChange,
        ])
    }

    @Test("A section key change out of a section it empties is a delete and an insert (rule 4)")
    func sectionKeyChangeOutOfDeletedSection() throws {
        let fixture = try standardFixture()
        var events = try checkedWrite(fixture, touched: [fay]) { try $0.execute(sql: "UPDATE item SET zone = 'A' WHERE id = ?", arguments: [fay]) }
        #expect(events == [
            .willChange,
            .section(.delete, index: 2, name: "C", count: 0),
            .row(.delete, id: fay, from: ip(2, 0), to: nil),
            .row(.insert, id: fay, from: nil, to: ip(0, 0)),
            .didChange,
        ])
        // Out of a deleted section into a new one at the same index.
        events = try checkedWrite(fixture, touched: [dan, eve]) { try $0.execute(sql: "UPDATE item SET zone = 'Ba' WHERE zone = 'B'") }
        #expect(events == [
            .willChange,
            .section(.delete, index: 1, name: "B", count: 0),
            .section(.insert, index: 1, name: "Ba", count: 2),
            .row(.delete, id: eve, from: ip(1, 1), to: nil),
            .row(.delete, id: dan, from: ip(1, 0), to: nil),
            .row(.insert, id: dan, from: nil, to: ip(1, 0)),
            .row(.insert, id: eve, from: nil, to: ip(1, 1)),
            .didChange,
        ])
    }

    /// Old: A [a], B [x, y], C [c]. One transaction deletes a (section A goes) and moves x to the
    /// front of C. x is at [1,0] before (in B) and at [1,0] after (in C): it changed section, so
    /// an update would break rule 1 (B loses a row, C gains one, and neither is reported).
    @Test("A row that changes section but keeps the same index path numbers is not an update (rule 1)")
    func sectionChangeWithSameIndexPathNumbers() throws {
        let fixture = try Fixture([
            Item(name: "a", zone: "A", score: 1),
            Item(name: "x", zone: "B", score: 5),
            Item(name: "y", zone: "B", score: 1),
            Item(name: "c", zone: "C", score: 3),
        ])
        #expect(fixture.layout == [Layout("A", [1]), Layout("B", [2, 3]), Layout("C", [4])])
        let events = try checkedWrite(fixture, touched: [1, 2]) { db in
            try db.execute(sql: "DELETE FROM item WHERE id = 1")
            try db.execute(sql: "UPDATE item SET zone = 'C', score = 9 WHERE id = 2")
        }
        #expect(fixture.layout == [Layout("B", [3]), Layout("C", [2, 4])])
        #expect(!events.contains(.row(.update, id: 2, from: ip(1, 0), to: ip(1, 0))), "events: \(events)")
    }

    /// Old: B [e], C [x, y]. One transaction adds a row in a new section A and moves x to the
    /// front of B: x is at [1,0] before (in C) and after (in B).
    @Test("A row that changes section while a section is inserted before it is not an update (rule 1)")
    func sectionChangeWithSameIndexPathNumbersAfterSectionInsert() throws {
        let fixture = try Fixture([
            Item(name: "e", zone: "B", score: 3),
            Item(name: "x", zone: "C", score: 9),
            Item(name: "y", zone: "C", score: 1),
        ])
        let events = try checkedWrite(fixture, touched: [2, 4]) { db in
            try db.execute(sql: "INSERT INTO item (id, name, zone, score, flag) VALUES (4, 'n', 'A', 0, 1)")
            try db.execute(sql: "UPDATE item SET zone = 'B' WHERE id = 2")
        }
        #expect(fixture.layout == [Layout("A", [4]), Layout("B", [2, 1]), Layout("C", [3])])
        #expect(!events.contains(.row(.update, id: 2, from: ip(1, 0), to: ip(1, 0))), "events: \(events)")
    }

    @Test("Callbacks come in order: willChange, section deletes, section inserts, rows, didChange")
    func callbackOrder() throws {
        let fixture = try standardFixture()
        var layoutAtDidChange: [Layout] = []
        fixture.recorder.onDidChange = { [fixture] _ in layoutAtDidChange = fixture.layout }
        let events = try checkedWrite(fixture, touched: [ann, cid, dan, eve, fay, 7, 8]) { db in
            try db.execute(sql: "UPDATE item SET zone = 'A' WHERE zone = 'B'") // section B goes
            try db.execute(sql: "UPDATE item SET score = 10 WHERE id = ?", arguments: [cid]) // a move
            try db.execute(sql: "UPDATE item SET name = 'Anne' WHERE id = ?", arguments: [ann]) // an update
            try db.execute(sql: "DELETE FROM item WHERE id = ?", arguments: [fay]) // section C goes
            try db.execute(sql: "INSERT INTO item (name, zone, score, flag) VALUES ('Ian', '0', 1, 1), ('Jo', 'Z', 1, 1)")
        }
        #expect(events.first == .willChange)
        #expect(events.last == .didChange)
        let body = events.dropFirst().dropLast()
        let sectionEvents = body.prefix { if case .section = $0 { return true } else { return false } }
        #expect(sectionEvents == [
            .section(.delete, index: 2, name: "C", count: 0),
            .section(.delete, index: 1, name: "B", count: 0),
            .section(.insert, index: 0, name: "0", count: 1),
            .section(.insert, index: 2, name: "Z", count: 1),
        ])
        #expect(body.dropFirst(sectionEvents.count).allSatisfy { if case .row = $0 { return true } else { return false } })
        // At didChange the controller answers with the new result.
        #expect(layoutAtDidChange == [Layout("0", [7]), Layout("A", [cid, ann, dan, bob, eve]), Layout("Z", [8])])
        #expect(layoutAtDidChange == fixture.layout)
    }

    @Test("Each commit is its own batch, in commit order")
    func oneBatchPerCommit() throws {
        let fixture = try standardFixture()
        try fixture.database.write { try $0.execute(sql: "UPDATE item SET score = score + 1 WHERE id = ?", arguments: [bob]) }
        try fixture.database.write { try $0.execute(sql: "DELETE FROM item WHERE id = ?", arguments: [ann]) }
        try fixture.database.write { try $0.execute(sql: "UPDATE item SET score = 0 WHERE id = 99") } // touches nothing
        try fixture.controller.processPendingChanges()
        #expect(fixture.recorder.take() == [
            .willChange, .row(.update, id: bob, from: ip(0, 1), to: ip(0, 1)), .didChange,
            .willChange, .row(.delete, id: ann, from: ip(0, 0), to: nil), .didChange,
        ])
        try fixture.controller.processPendingChanges()
        #expect(fixture.recorder.events.isEmpty)
    }

    @Test("A rolled back transaction reports nothing")
    func rollback() throws {
        let fixture = try standardFixture()
        try fixture.database.inTransaction { db in
            try db.execute(sql: "DELETE FROM item")
            return .rollback
        }
        try fixture.controller.processPendingChanges()
        #expect(fixture.recorder.events.isEmpty)
        #expect(try fixture.layout == fixture.freshLayout())
    }

    @Test("Rows touched by a rolled back savepoint are not reported")
    func rolledBackSavepoint() throws {
        let fixture = try standardFixture()
        let events = try checkedWrite(fixture, touched: [bob]) { db in
            try db.execute(sql: "UPDATE item SET score = 0 WHERE id = ?", arguments: [bob])
            try db.execute(sql: "SAVEPOINT s")
            try db.execute(sql: "DELETE FROM item WHERE id = ?", arguments: [ann])
            try db.execute(sql: "ROLLBACK TO SAVEPOINT s")
            try db.execute(sql: "RELEASE SAVEPOINT s")
        }
        #expect(events == [.willChange, .row(.move, id: bob, from: ip(0, 1), to: ip(0, 2)), .didChange])
    }

    @Test("Deleting every row with an unqualified DELETE is tracked (no truncate optimisation)")
    func deleteAll() throws {
        let fixture = try standardFixture()
        let events = try checkedWrite(fixture) { try $0.execute(sql: "DELETE FROM item") }
        #expect(fixture.layout.isEmpty)
        #expect(events.filter { if case .section(.delete, _, _, _) = $0 { return true } else { return false } }.count == 3)
        #expect(fixture.controller.numberOfObjects == 0)
    }

    @Test("A row whose id changes leaves its old place")
    func rowIDChange() throws {
        let fixture = try standardFixture()
        _ = try checkedWrite(fixture) { try $0.execute(sql: "UPDATE item SET id = 100 WHERE id = ?", arguments: [bob]) }
        #expect(fixture.controller.indexPath(for: bob) == nil)
        #expect(fixture.controller.indexPath(for: 100) == ip(0, 1))
        #expect(fixture.controller.numberOfObjects == standardItems.count)
    }

    @Test("Without a delegate nothing is tracked: the result stays as fetched")
    func noTracking() throws {
        let fixture = try Fixture(standardItems, tracking: false)
        try fixture.database.write { try $0.execute(sql: "DELETE FROM item WHERE zone = 'A'") }
        try fixture.controller.processPendingChanges()
        #expect(fixture.layout == [Layout("A", [ann, bob, cid]), Layout("B", [dan, eve]), Layout("C", [fay])])
        // A new fetch sees the change.
        try fixture.controller.performFetch()
        #expect(fixture.layout == [Layout("B", [dan, eve]), Layout("C", [fay])])
    }

    @Test("Changes to other tables are not reported")
    func otherTable() throws {
        let fixture = try standardFixture()
        try fixture.database.write { db in
            try db.execute(sql: "CREATE TABLE other (id INTEGER PRIMARY KEY, zone TEXT)")
            try db.execute(sql: "INSERT INTO other (id, zone) VALUES (1, 'A'), (2, 'B')")
        }
        try fixture.controller.processPendingChanges()
        #expect(fixture.recorder.events.isEmpty)
    }

    @Test("onChangesAvailable is called after a commit that touches the table")
    func changesAvailable() throws {
        let database = try makeItemDatabase()
        try insertItems(standardItems, into: database)
        let controller = ResultsController<Item>(database: database, fetchRequest: ResultsRequest(sortDescriptors: zoneScoreName), sectionNameKeyPath: "zone")
        let recorder = Recorder()
        controller.delegate = recorder
        let calls = Counter()
        controller.onChangesAvailable = { calls.increment() }
        try controller.performFetch()
        try database.write { try $0.execute(sql: "UPDATE item SET score = 1 WHERE id = 1") }
        #expect(calls.value == 1)
        try database.write { try $0.execute(sql: "CREATE TABLE other (id INTEGER PRIMARY KEY)") }
        #expect(calls.value == 1)
        try controller.processPendingChanges()
        #expect(recorder.rowEvents.count == 1)
    }

    /// Sorted by score only and sectioned by zone: the rows of A are 6 and 4, B's row is 3.
    /// B's row going to 5 splits section A in two (A 6, B 5, A 4): performFetch would refuse this
    /// result, so processPendingChanges must not accept it silently.
    @Test("A commit that splits a section under the first sort descriptor is a sectionOutOfOrder error")
    func sectionSplitByChange() throws {
        let fixture = try Fixture([
            Item(name: "p", zone: "A", score: 6),
            Item(name: "q", zone: "A", score: 4),
            Item(name: "r", zone: "B", score: 3),
        ], sortDescriptors: [SortColumn("score", ascending: false)])
        #expect(fixture.layout == [Layout("A", [1, 2]), Layout("B", [3])])
        try fixture.database.write { try $0.execute(sql: "UPDATE item SET score = 5 WHERE id = 3") }
        // A fresh fetch refuses this result.
        let fetchError = #expect(throws: LiveResultsError.self) {
            try Fixture([], sortDescriptors: [SortColumn("score", ascending: false)], setup: { db in
                try db.execute(sql: "INSERT INTO item (name, zone, score, flag) VALUES ('p', 'A', 6, 1), ('q', 'A', 4, 1), ('r', 'B', 5, 1)")
            })
        }
        #expect(fetchError?.kind == .sectionOutOfOrder)
        // So must the tracked change.
        let error = #expect(throws: LiveResultsError.self) {
            try fixture.controller.processPendingChanges()
        }
        #expect(error?.kind == .sectionOutOfOrder)
        let fresh = try fixture.freshLayout()
        #expect(fixture.recorder.events.isEmpty || fixture.layout == fresh, "events: \(fixture.recorder.events), controller: \(fixture.layout)")
    }

    /// Sorted by score only and sectioned by zone: A [6, 4], B [3]. B's row going to 9 puts
    /// section B first; sections that trade places must be reported (as a delete and an insert),
    /// or the batch does not describe the new result.
    @Test("A commit that changes the order of sections reports the sections that moved")
    func sectionOrderChangedByChange() throws {
        let fixture = try Fixture([
            Item(name: "p", zone: "A", score: 6),
            Item(name: "q", zone: "A", score: 4),
            Item(name: "r", zone: "B", score: 3),
        ], sortDescriptors: [SortColumn("score", ascending: false)])
        let before = try fixture.freshLayout()
        let events = try fixture.execute("UPDATE item SET score = 9 WHERE id = 3")
        let after = try fixture.freshLayout()
        #expect(after == [Layout("B", [3]), Layout("A", [1, 2])])
        #expect(fixture.layout == after)
        let problems = batchViolations(old: before, new: after, events: events, touched: [3])
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))\nevents: \(events)")
    }
}

/// Sections sorted by a rank (score DESC, name) and keyed by zone, so that they can trade places.
@Suite("Sections that trade places")
struct SectionOrderTests {
    private let rankSort = [SortColumn("score", ascending: false), SortColumn("name")]

    /// Old: Oceania [o 22], Africa [a 17]. Oceania's row drops to 4: the sections trade places.
    /// There are no section moves, so one section is deleted and inserted again with its rows;
    /// it must be Oceania, whose row changed, not Africa, whose row did not (rule 6).
    @Test("When sections trade places, the section whose rows changed is the one reported")
    func movedSectionIsTheChangedOne() throws {
        let fixture = try Fixture([
            Item(name: "a", zone: "Africa", score: 17),
            Item(name: "o", zone: "Oceania", score: 22),
        ], sortDescriptors: rankSort)
        #expect(fixture.layout == [Layout("Oceania", [2]), Layout("Africa", [1])])
        let events = try checkedWrite(fixture, touched: [2]) { try $0.execute(sql: "UPDATE item SET score = 4 WHERE zone = 'Oceania'") }
        #expect(fixture.layout == [Layout("Africa", [1]), Layout("Oceania", [2])])
        #expect(!events.contains { if case .row(_, 1, _, _) = $0 { return true } else { return false } }, "events: \(events)")
    }

    /// A: a1 6, a2 5; B: b 3; C: c 1. b going to 6 interleaves A and B (a1 6, b 6, a2 5): an
    /// error. While the result is out of order, c's flag changes (not a sort value). When b goes
    /// back to 3 the result is in order again, and c must be reported as updated: its row on
    /// screen is stale otherwise.
    @Test("A row changed while the result was out of order is reported once it is in order again")
    func changeDuringOutOfOrderIsReported() throws {
        let fixture = try Fixture([
            Item(name: "a1", zone: "A", score: 6),
            Item(name: "a2", zone: "A", score: 5),
            Item(name: "b", zone: "B", score: 3),
            Item(name: "c", zone: "C", score: 1),
        ], sortDescriptors: rankSort)
        let before = fixture.layout
        #expect(before == [Layout("A", [1, 2]), Layout("B", [3]), Layout("C", [4])])

        try fixture.database.write { try $0.execute(sql: "UPDATE item SET score = 6 WHERE id = 3") }
        var error = #expect(throws: LiveResultsError.self) { try fixture.controller.processPendingChanges() }
        #expect(error?.kind == .sectionOutOfOrder)
        #expect(fixture.recorder.take().isEmpty)
        #expect(fixture.layout == before, "the result stays as it was delivered")

        try fixture.database.write { try $0.execute(sql: "UPDATE item SET flag = 0 WHERE id = 4") }
        error = #expect(throws: LiveResultsError.self) { try fixture.controller.processPendingChanges() }
        #expect(error?.kind == .sectionOutOfOrder)
        #expect(fixture.recorder.take().isEmpty)

        try fixture.database.write { try $0.execute(sql: "UPDATE item SET score = 3 WHERE id = 3") }
        try fixture.controller.processPendingChanges()
        let events = fixture.recorder.take()
        #expect(fixture.layout == before)
        #expect(events.contains { if case .row(_, 4, _, _) = $0 { return true } else { return false } }, "c changed and must be reported; events: \(events)")
        #expect(try fixture.controller.object(at: ip(2, 0)).flag == 0)
    }
}

/// A thread-safe counter.
final class Counter: Sendable {
    private let storage = Mutex(0)
    func increment() { storage.withLock { $0 += 1 } }
    var value: Int { storage.withLock { $0 } }
}

extension Array {
    func inserting(_ element: Element, at index: Int) -> [Element] {
        var copy = self
        copy.insert(element, at: index)
        return copy
    }
}
