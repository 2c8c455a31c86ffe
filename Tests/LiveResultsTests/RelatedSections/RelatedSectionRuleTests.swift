import Foundation
import GRDB
import Testing
@testable import LiveResults
@testable import LiveResultsSQLite

/// Rules 11 and 12 of the semantics, through a related table: a related row whose order
/// changed without moving its section is a section update; only sections whose related row
/// changed are reported moved, as few as possible among those.
@Suite("Sections through a related table: order-only changes and which sections move")
struct RelatedSectionRuleTests {
    @Test("A related row whose order changes while its section keeps its place is a section update (rule 11), from this connection and another")
    func orderOnlyChange() throws {
        let fixture = try RelatedSectionEventTests.makeFixture()
        var old = try fixture.freshLayout()
        var events = try fixture.execute("UPDATE club SET position = 10 WHERE id = 3")
        #expect(events == [.willChange, .sectionKept(.update, from: 2, to: 2, name: "Asia", count: 2), .didChange])
        try RelatedSectionEventTests.check(events, old: old, fixture: fixture, changedSections: ["3"])
        #expect(fixture.reads.take() == [], "an order-only change reads no member")
        old = try fixture.freshLayout()
        events = try fixture.execute(other: true, "UPDATE club SET position = -3 WHERE id = 1")
        #expect(events == [.willChange, .sectionKept(.update, from: 0, to: 0, name: "Europe", count: 2), .didChange])
        try RelatedSectionEventTests.check(events, old: old, fixture: fixture, changedSections: ["1"])
    }

    @Test("Two zones sent past an unchanged one: the two move, never the unchanged one, though moving it alone would be fewer (rule 12)")
    func unchangedSectionStays() throws {
        let fixture = try RelatedSectionEventTests.makeFixture()
        let old = try fixture.freshLayout()
        // Europe 0 -> 5, Africa 1 -> 6; Asia keeps 2: Asia, Europe, Africa.
        let events = try fixture.execute("UPDATE club SET position = position + 5 WHERE id IN (1, 2)")
        #expect(events == [.willChange, .sectionKept(.move, from: 0, to: 1, name: "Europe", count: 2),
                           .sectionKept(.move, from: 1, to: 2, name: "Africa", count: 1), .didChange])
        try RelatedSectionEventTests.check(events, old: old, fixture: fixture, changedSections: ["1", "2"])
    }

    @Test("Of changed sections, as few as possible move: the others are updated")
    func fewestMovesAmongChanged() throws {
        let fixture = try RelatedSectionEventTests.makeFixture()
        let old = try fixture.freshLayout()
        // Every position changes; only Asia's place among the others does: Asia, Europe, Africa.
        let events = try fixture.execute("UPDATE club SET position = CASE id WHEN 3 THEN 0 WHEN 1 THEN 10 ELSE 20 END")
        #expect(events == [.willChange, .sectionKept(.move, from: 2, to: 0, name: "Asia", count: 2),
                           .sectionKept(.update, from: 0, to: 1, name: "Europe", count: 2), .sectionKept(.update, from: 1, to: 2, name: "Africa", count: 1),
                           .didChange])
        try RelatedSectionEventTests.check(events, old: old, fixture: fixture, changedSections: ["1", "2", "3"])
    }
}
