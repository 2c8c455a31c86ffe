import Foundation
import GRDB
import Testing
@testable import LiveResults
@testable import LiveResultsSQLite

/// A commit of this connection that follows another connection's commit, both changing the
/// related table: each is read at its own commit, or both as one change, never the other's
/// entries against the related rows ours left (a section whose related row is gone would
/// still hold the rows that left it in our commit, which stops a debug build).
@Suite("Sections through a related table: our commit after another connection's")
struct RelatedInterleavedCommitTests {
    /// A (10): a; B (20): b. The poller is off: the other connection's commit is found by ours.
    static func makeFixture() throws -> ClubFixture {
        try ClubFixture(clubs: [(1, "A", 10), (2, "B", 20)], players: [
            Member(name: "a", clubID: 1, wins: 1), Member(name: "b", clubID: 2, wins: 1),
        ])
    }

    /// Commits `other` on the other connection, then `ours` on this one, and processes what
    /// this connection found: the batches must rebuild the fresh result, each by the rules.
    static func check(other: String, ours: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let fixture = try makeFixture()
        let old = try fixture.freshLayout()
        try fixture.otherConnection.write { try $0.execute(sql: other) }
        try fixture.database.write { try $0.execute(sql: ours) }
        try fixture.controller.processPendingChanges()
        let events = fixture.recorder.take()
        let new = try fixture.freshLayout()
        #expect(batchViolations(old: old, new: new, events: events) == [], "\(events)", sourceLocation: sourceLocation)
        #expect(fixture.controller.layout == new, sourceLocation: sourceLocation)
    }

    @Test("Another connection renames a zone; ours empties it into another and deletes it")
    func renameThenMerge() throws {
        try Self.check(other: "UPDATE club SET name = 'B2' WHERE id = 2",
                       ours: "UPDATE member SET clubID = 1 WHERE clubID = 2; DELETE FROM club WHERE id = 2")
    }

    @Test("Another connection moves a zone; ours deletes it with its rows")
    func moveThenDelete() throws {
        try Self.check(other: "UPDATE club SET position = 5 WHERE id = 2",
                       ours: "DELETE FROM member WHERE clubID = 2; DELETE FROM club WHERE id = 2")
    }

    @Test("Another connection renames a zone; ours deletes it with its rows, and refresh() runs before processing")
    func renameThenDeleteWithRefresh() throws {
        let fixture = try Self.makeFixture()
        let old = try fixture.freshLayout()
        try fixture.otherConnection.write { try $0.execute(sql: "UPDATE club SET name = 'B2' WHERE id = 2") }
        try fixture.database.write { try $0.execute(sql: "UPDATE member SET clubID = 1 WHERE clubID = 2; DELETE FROM club WHERE id = 2") }
        try fixture.controller.refresh()
        let events = fixture.recorder.take()
        let new = try fixture.freshLayout()
        #expect(batchViolations(old: old, new: new, events: events) == [], "\(events)")
        #expect(fixture.controller.layout == new)
    }
}
