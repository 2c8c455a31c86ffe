import Foundation
import GRDB
import Testing
@testable import LiveResults
@testable import LiveResultsSQLite

/// The events of sections through a relationship, one by one: a rename is one section update,
/// a reorder one section move (its rows travel unreported), a member changing club a row move,
/// a club appearing or going with its players a section insert or delete.
@Suite("Sections through a related table: the events")
struct RelatedSectionEventTests {
    /// Europe (0): 1, 2; Africa (1): 3; Asia (2): 4, 5.
    static func makeFixture(predicate: String? = nil, fetchLimit: Int = 0, filter: ResultsFilter? = nil) throws -> ClubFixture {
        try ClubFixture(clubs: [(1, "Europe", 0), (2, "Africa", 1), (3, "Asia", 2)], players: [
            Member(name: "France", clubID: 1, wins: 5), Member(name: "Spain", clubID: 1, wins: 3),
            Member(name: "Ghana", clubID: 2, wins: 4),
            Member(name: "Japan", clubID: 3, wins: 2), Member(name: "Korea", clubID: 3, wins: 1),
        ], predicate: predicate, fetchLimit: fetchLimit, filter: filter)
    }

    /// Checks a batch against the fresh results before and after, with the checker.
    /// `changedSections`: the clubs whose row changed, when the test says (rules 11 and 12).
    static func check(_ events: [Recorder.Event], old: [Layout], fixture: ClubFixture, changedSections: Set<String>? = nil,
                      sourceLocation: SourceLocation = #_sourceLocation) throws {
        let new = try fixture.freshLayout()
        #expect(batchViolations(old: old, new: new, events: events, changedSections: changedSections) == [], "\(events)", sourceLocation: sourceLocation)
        #expect(fixture.controller.layout == new, sourceLocation: sourceLocation)
    }

    @Test("The fetch sections rows by their related row: titled by its name, ordered by its position, identified by its key")
    func fetch() throws {
        let fixture = try Self.makeFixture()
        #expect(fixture.controller.layout == [Layout("Europe", [1, 2], identifier: "1"), Layout("Africa", [3], identifier: "2"),
                                              Layout("Asia", [4, 5], identifier: "3")])
        #expect(try fixture.freshLayout() == fixture.controller.layout)
        #expect(fixture.controller.sectionNameKeyPath == nil && fixture.controller.relatedSections == ClubFixture.sections)
    }

    @Test("Renaming a related row is one section update, at its old and new index, and reads no member")
    func rename() throws {
        let fixture = try Self.makeFixture()
        let old = try fixture.freshLayout()
        let events = try fixture.execute("UPDATE club SET name = 'CAF' WHERE id = 2")
        #expect(events == [.willChange, .sectionKept(.update, from: 1, to: 1, name: "CAF", count: 1), .didChange])
        try Self.check(events, old: old, fixture: fixture)
        #expect(fixture.reads.take() == [])
        #expect(fixture.recorder.batches.last?.sectionChanges == [SectionChange(kind: .update, index: 1, newIndex: 1, name: "CAF", identifier: "2")])
    }

    @Test("Reordering a related row is one section move: its rows travel with it, unreported, and no member is read")
    func move() throws {
        let fixture = try Self.makeFixture()
        let old = try fixture.freshLayout()
        let events = try fixture.execute("UPDATE club SET position = -1 WHERE id = 3")
        #expect(events == [.willChange, .sectionKept(.move, from: 2, to: 0, name: "Asia", count: 2), .didChange])
        try Self.check(events, old: old, fixture: fixture)
        #expect(fixture.reads.take() == [])
    }

    @Test("The board's move renumbers positions in one transaction: one section moves, the renumbered ones that kept their place are updated (rule 11)")
    func renumberingMove() throws {
        let fixture = try Self.makeFixture()
        let old = try fixture.freshLayout()
        // Asia to the top: Asia 0, Europe 1, Africa 2.
        let events = try fixture.write { db in
            try db.execute(sql: "UPDATE club SET position = position + 1 WHERE position < 2")
            try db.execute(sql: "UPDATE club SET position = 0 WHERE id = 3")
        }
        #expect(events == [.willChange, .sectionKept(.move, from: 2, to: 0, name: "Asia", count: 2),
                           .sectionKept(.update, from: 0, to: 1, name: "Europe", count: 2), .sectionKept(.update, from: 1, to: 2, name: "Africa", count: 1),
                           .didChange])
        try Self.check(events, old: old, fixture: fixture, changedSections: ["1", "2", "3"])
    }

    @Test("A section moved and renamed at once is one move carrying the new name")
    func moveAndRename() throws {
        let fixture = try Self.makeFixture()
        let old = try fixture.freshLayout()
        let events = try fixture.execute("UPDATE club SET position = 9, name = 'UEFA' WHERE id = 1")
        #expect(events == [.willChange, .sectionKept(.move, from: 0, to: 2, name: "UEFA", count: 2), .didChange])
        try Self.check(events, old: old, fixture: fixture)
    }

    @Test("A row of a moved section that changed is reported from its old path in the old index to its new path in the new one")
    func rowOfMovedSection() throws {
        let fixture = try Self.makeFixture()
        let old = try fixture.freshLayout()
        let events = try fixture.write { db in
            try db.execute(sql: "UPDATE club SET position = -1 WHERE id = 3")
            try db.execute(sql: "UPDATE member SET wins = 9 WHERE id = 5") // Korea passes Japan
        }
        #expect(events == [.willChange, .sectionKept(.move, from: 2, to: 0, name: "Asia", count: 2),
                           .row(.move, id: 5, from: ip(2, 1), to: ip(0, 0)), .didChange])
        try Self.check(events, old: old, fixture: fixture)
    }

    @Test("A row going to another related row is a row move between sections, into a moved one too")
    func reassign() throws {
        let fixture = try Self.makeFixture()
        var old = try fixture.freshLayout()
        var events = try fixture.execute("UPDATE member SET clubID = 3 WHERE id = 1")
        #expect(events == [.willChange, .row(.move, id: 1, from: ip(0, 0), to: ip(2, 0)), .didChange])
        try Self.check(events, old: old, fixture: fixture)
        old = try fixture.freshLayout()
        // Europe [2], Africa [3], Asia [1, 4, 5]: Africa to the top, Japan (4) into it.
        events = try fixture.write { db in
            try db.execute(sql: "UPDATE club SET position = -1 WHERE id = 2")
            try db.execute(sql: "UPDATE member SET clubID = 2 WHERE id = 4")
        }
        #expect(events == [.willChange, .sectionKept(.move, from: 1, to: 0, name: "Africa", count: 2),
                           .row(.move, id: 4, from: ip(2, 1), to: ip(0, 1)), .didChange])
        try Self.check(events, old: old, fixture: fixture)
    }

    @Test("A new related row with rows is a section insert; its last row leaving is a section delete; an empty one is no section")
    func appearAndGo() throws {
        let fixture = try Self.makeFixture()
        var old = try fixture.freshLayout()
        #expect(try fixture.execute("INSERT INTO club (id, name, position) VALUES (4, 'Oceania', 1)") == [])
        var events = try fixture.execute("UPDATE member SET clubID = 4 WHERE id = 3")
        #expect(events == [.willChange, .section(.delete, index: 1, name: "Africa", count: 0), .section(.insert, index: 1, name: "Oceania", count: 1),
                           .row(.delete, id: 3, from: ip(1, 0), to: nil), .row(.insert, id: 3, from: nil, to: ip(1, 0)), .didChange])
        try Self.check(events, old: old, fixture: fixture)
        old = try fixture.freshLayout()
        #expect(try fixture.execute("DELETE FROM club WHERE id = 2") == [])
        events = try fixture.write { db in
            try db.execute(sql: "INSERT INTO club (id, name, position) VALUES (5, 'Antarctica', 7)")
            try db.execute(sql: "INSERT INTO member (name, clubID, wins, flag) VALUES ('Penguin', 5, 0, 1)")
        }
        #expect(events == [.willChange, .section(.insert, index: 3, name: "Antarctica", count: 1), .row(.insert, id: 6, from: nil, to: ip(3, 0)), .didChange])
        try Self.check(events, old: old, fixture: fixture)
    }

    @Test("Rows whose related row is deleted leave the result, and come back with it (an inner join), read by their foreign key")
    func orphans() throws {
        let fixture = try Self.makeFixture()
        var old = try fixture.freshLayout()
        var events = try fixture.execute("DELETE FROM club WHERE id = 3")
        #expect(events == [.willChange, .section(.delete, index: 2, name: "Asia", count: 0),
                           .row(.delete, id: 5, from: ip(2, 1), to: nil), .row(.delete, id: 4, from: ip(2, 0), to: nil), .didChange])
        try Self.check(events, old: old, fixture: fixture)
        #expect(!fixture.reads.take().isEmpty, "the rows of a deleted related row are read")
        old = try fixture.freshLayout()
        events = try fixture.execute("INSERT INTO club (id, name, position) VALUES (3, 'AFC', -5)")
        #expect(events == [.willChange, .section(.insert, index: 0, name: "AFC", count: 2),
                           .row(.insert, id: 4, from: nil, to: ip(0, 0)), .row(.insert, id: 5, from: nil, to: ip(0, 1)), .didChange])
        try Self.check(events, old: old, fixture: fixture)
    }

    @Test("Another process's rename, move and delete arrive through the change log as the same events")
    func otherProcess() throws {
        let fixture = try Self.makeFixture()
        var old = try fixture.freshLayout()
        var events = try fixture.execute(other: true, "UPDATE club SET name = 'CAF' WHERE id = 2")
        #expect(events == [.willChange, .sectionKept(.update, from: 1, to: 1, name: "CAF", count: 1), .didChange])
        try Self.check(events, old: old, fixture: fixture)
        #expect(fixture.reads.take() == [], "a rename read from the log reads no member")
        old = try fixture.freshLayout()
        events = try fixture.execute(other: true, "UPDATE club SET position = 10 WHERE id = 1")
        #expect(events == [.willChange, .sectionKept(.move, from: 0, to: 2, name: "Europe", count: 2), .didChange])
        try Self.check(events, old: old, fixture: fixture)
        old = try fixture.freshLayout()
        events = try fixture.write(other: true) { db in
            try db.execute(sql: "UPDATE member SET clubID = 1 WHERE clubID = 2")
            try db.execute(sql: "DELETE FROM club WHERE id = 2")
        }
        try Self.check(events, old: old, fixture: fixture)
        #expect(events.contains(.section(.delete, index: 0, name: "CAF", count: 0)))
    }

    @Test("With a predicate, a filter or a fetchLimit, section moves and updates are those of what is shown")
    func shownResult() throws {
        let filtered = try Self.makeFixture(filter: .contains("a", inColumn: "name"))
        var old = try filtered.freshLayout(filter: "a")
        var events = try filtered.execute("UPDATE club SET position = -1, name = 'AFC' WHERE id = 3")
        #expect(events == [.willChange, .sectionKept(.move, from: 2, to: 0, name: "AFC", count: 2), .didChange])
        #expect(batchViolations(old: old, new: try filtered.freshLayout(filter: "a"), events: events) == [])
        #expect(filtered.controller.layout == (try filtered.freshLayout(filter: "a")))

        let limited = try Self.makeFixture(fetchLimit: 3)
        old = try limited.freshLayout(limit: 3)
        events = try limited.execute("UPDATE club SET position = -1 WHERE id = 3")
        let new = try limited.freshLayout(limit: 3)
        #expect(new == [Layout("Asia", [4, 5], identifier: "3"), Layout("Europe", [1], identifier: "1")])
        #expect(batchViolations(old: old, new: new, events: events) == [], "\(events)")
        #expect(limited.controller.layout == new)
    }

    @Test("changes() merges commits with section moves and updates into one batch; snapshots() names the sections to redraw")
    func sequences() async throws {
        let fixture = try Self.makeFixture()
        let changes = fixture.controller.changes()
        try fixture.controller.performFetch()
        let old = fixture.controller.layout
        try await fixture.database.write { try $0.execute(sql: "UPDATE club SET name = 'CAF' WHERE id = 2") }
        try await fixture.database.write { try $0.execute(sql: "UPDATE club SET position = -1 WHERE id = 2") }
        try await fixture.database.write { try $0.execute(sql: "UPDATE member SET clubID = 2 WHERE id = 4") }
        var iterator = changes.makeAsyncIterator()
        guard case .batch(let batch, _)? = try await iterator.next() else {
            Issue.record("no batch")
            return
        }
        #expect(batch.sectionChanges == [SectionChange(kind: .move, index: 1, newIndex: 0, name: "CAF", identifier: "2")])
        #expect(batch.rowChanges == [RowChange(kind: .move, id: 4, indexPath: ip(2, 0), newIndexPath: ip(0, 1))])
        #expect(fixture.controller.layout == (try fixture.freshLayout()))
        #expect(batchViolations(old: old, new: try fixture.freshLayout(), events: fixture.recorder.take()) == [], "the delegate has the same batch")
        let snapshot = fixture.controller.snapshot(after: batch)
        #expect(snapshot.sectionIdentifiers == ["2", "1", "3"] && snapshot.sectionNames == ["CAF", "Europe", "Asia"])
        #expect(snapshot.reloadedSectionIdentifiers == ["2"] && snapshot.reloadedItemIdentifiers == [4])
    }

    @Test("A section cache never shows a stale title: a related row changed between launches is read afresh")
    func cache() throws {
        let folder = try makeTemporaryFolder()
        let file = folder.appendingPathComponent("clubs.sqlite")
        let clubs: [(Int64, String, Int)] = [(1, "Europe", 0), (2, "Africa", 1)]
        let players = [Member(name: "France", clubID: 1), Member(name: "Ghana", clubID: 2)]
        do {
            let first = try ClubFixture(clubs: clubs, players: players, cacheName: "clubs", cacheDirectory: folder, file: file)
            try first.execute("UPDATE member SET wins = 3 WHERE id = 1")
        }
        do {
            let second = try ClubFixture(clubs: [], players: [], cacheName: "clubs", cacheDirectory: folder, file: file)
            #expect(second.controller.lastFetchSource == .cache)
            #expect(second.controller.layout == (try second.freshLayout()))
            try second.otherConnection.write { try $0.execute(sql: "UPDATE club SET name = 'CAF', position = -1 WHERE id = 2") }
        }
        let third = try ClubFixture(clubs: [], players: [], cacheName: "clubs", cacheDirectory: folder, file: file)
        #expect(third.controller.lastFetchSource == .database, "a related row changed since the cache was written")
        #expect(third.controller.layout == [Layout("CAF", [2], identifier: "2"), Layout("Europe", [1], identifier: "1")])
    }

    @Test("A relationship whose related table or column is missing is refused at the fetch")
    func refused() throws {
        let fixture = try Self.makeFixture()
        let controller = ResultsController(database: fixture.database, fetchRequest: ResultsRequest<Member>(sortDescriptors: ClubFixture.playerOrder),
                                           sections: RelatedSections(table: "club", foreignKey: "clubID", title: "label"))
        #expect(throws: LiveResultsError.self) { try controller.performFetch() }
    }
}
