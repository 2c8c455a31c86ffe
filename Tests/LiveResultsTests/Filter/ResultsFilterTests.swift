import Foundation
import GRDB
import Testing
@testable import LiveResults
@testable import LiveResultsSQLite

/// The in-memory filter (`ResultsFilter`) on SQLite: what it matches, its events, its errors.
/// (The model tests run it against random transactions.)
@Suite struct ResultsFilterTests {
    static let items = [
        Item(name: "Arthur", zone: "FR", score: 3), Item(name: "Barbara", zone: "FR", score: 2), Item(name: "Claire", zone: "FR"),
        Item(name: "caf\u{E9}", zone: "IT"), Item(name: nil, zone: "IT"), Item(name: "", zone: "IT"),
    ]

    // (No text with NUL here: GRDB binds text only up to its first NUL, so the oracle would
    // search for less than the filter does.)
    @Test("It matches exactly what instr(column, text) > 0 keeps, byte for byte")
    func matchesLikeInstr() throws {
        var fixture = try Fixture(Self.items)
        for text in ["ar", "r", "Ar", "é", "\u{E9}", "e\u{301}", "", "af", "Arthur!", "rbara"] {
            try fixture.setFilter(.contains(text, inColumn: "name"))
            #expect(fixture.layout == (try fixture.freshLayout()), "filter “\(text.debugDescription)”")
        }
        // Typed a key at a time, then back: each step against the oracle.
        for text in ["B", "Ba", "Bar", "Barb", "Bar", "a", ""] {
            try fixture.setFilter(.contains(text, inColumn: "name"))
            #expect(fixture.layout == (try fixture.freshLayout()), "filter “\(text)”")
        }
    }

    @Test("Erasing the end of a filter goes back to what it was before it was typed further; after a commit it is found afresh")
    func erasingAfterTyping() throws {
        var fixture = try Fixture(Self.items)
        for text in ["", "B", "Ba", "Bar", "Ba"] {
            try fixture.setFilter(.contains(text, inColumn: "name"))
            #expect(fixture.layout == (try fixture.freshLayout()), "filter “\(text)”")
        }
        // Kept: "Ba" and the states before it. A commit makes them stale: Claire becomes Bart
        // and Barbara leaves, so "B" must find Bart and lose Barbara.
        _ = try fixture.execute("UPDATE item SET name = 'Bart' WHERE id = 3")
        _ = try fixture.execute("UPDATE item SET name = 'Zoe' WHERE id = 2")
        for text in ["B", "", "Ba", "Bar", "Ba", "B", "Bx", "B"] {
            try fixture.setFilter(.contains(text, inColumn: "name"))
            #expect(fixture.layout == (try fixture.freshLayout()), "after the commits, filter “\(text)”")
        }
        #expect(fixture.layout == [Layout("FR", [3])], "Bart alone")
    }

    @Test("Renames start and stop matches (inserts and deletes); a tap moves a matching row")
    func eventsWhileFiltered() throws {
        var fixture = try Fixture(Self.items)
        try fixture.setFilter(.contains("ar", inColumn: "name"))
        #expect(fixture.layout == [Layout("FR", [2])], "Barbara; not Arthur (a capital A)")
        var events = try fixture.execute("UPDATE item SET name = 'Carl' WHERE id = 3")
        #expect(events == [.willChange, .row(.insert, id: 3, from: nil, to: ip(0, 1)), .didChange])
        events = try fixture.execute("UPDATE item SET score = 9 WHERE id = 3")
        #expect(events == [.willChange, .row(.move, id: 3, from: ip(0, 1), to: ip(0, 0)), .didChange])
        events = try fixture.execute("UPDATE item SET name = 'Bobby' WHERE id = 2")
        #expect(events == [.willChange, .row(.delete, id: 2, from: ip(0, 1), to: nil), .didChange])
        events = try fixture.execute("UPDATE item SET score = 5 WHERE id = 1")
        #expect(events.isEmpty, "a row that does not pass changes nothing shown")
        #expect(fixture.layout == (try fixture.freshLayout()))
        try fixture.setFilter(nil)
        #expect(fixture.layout == (try fixture.freshLayout()))
        #expect(fixture.controller.numberOfObjects == Self.items.count)
    }

    @Test("A column the table lacks is refused in one sentence, leaving no filter")
    func unknownColumn() throws {
        var fixture = try Fixture(Self.items)
        try fixture.setFilter(.contains("ar", inColumn: "name"))
        #expect(throws: LiveResultsError.self) { try fixture.controller.setFilter(.contains("ar", inColumn: "nickname")) }
        #expect(fixture.controller.filter == nil)
        #expect(fixture.controller.numberOfObjects == Self.items.count)
    }
}
