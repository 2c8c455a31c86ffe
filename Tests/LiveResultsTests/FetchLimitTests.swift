import GRDB
import Testing
@testable import LiveResults
@testable import LiveResultsSQLite

/// fetchLimit: the controller shows and reports only the first rows.
@Suite("fetchLimit")
struct FetchLimitTests {
    /// Africa: Nigeria 5, Ghana 4; Europe: Spain 3, Italy 2, France 1. Limit 3.
    func makeFixture() throws -> Fixture {
        try Fixture([
            Item(name: "Nigeria", zone: "Africa", score: 5),
            Item(name: "Ghana", zone: "Africa", score: 4),
            Item(name: "Spain", zone: "Europe", score: 3),
            Item(name: "Italy", zone: "Europe", score: 2),
            Item(name: "France", zone: "Europe", score: 1),
        ], fetchLimit: 3)
    }

    @Test("Only the first rows are in the result")
    func limited() throws {
        let fixture = try makeFixture()
        #expect(fixture.layout == [Layout("Africa", [1, 2]), Layout("Europe", [3])])
        #expect(fixture.controller.numberOfObjects == 3)
        #expect(fixture.controller.indexPath(for: 4) == nil)
        #expect(try fixture.controller.fetchedObjects.map(\.name) == ["Nigeria", "Ghana", "Spain"])
        #expect(fixture.controller.sections.map(\.numberOfObjects) == [2, 1])
    }

    @Test("A row that climbs into the limit is inserted, and the row it pushes out is deleted")
    func climbIn() throws {
        let fixture = try makeFixture()
        let events = try fixture.execute("UPDATE item SET score = 9 WHERE name = 'France'")
        #expect(events == [.willChange, .row(.delete, id: 3, from: ip(1, 0), to: nil), .row(.insert, id: 5, from: nil, to: ip(1, 0)), .didChange])
        #expect(try fixture.layout == fixture.freshLayout())
    }

    @Test("Deleting a shown row brings in the next one")
    func deleteBringsNext() throws {
        let fixture = try makeFixture()
        let events = try fixture.execute("DELETE FROM item WHERE name = 'Nigeria'")
        #expect(events == [.willChange, .row(.delete, id: 1, from: ip(0, 0), to: nil), .row(.insert, id: 4, from: nil, to: ip(1, 1)), .didChange])
        #expect(try fixture.layout == fixture.freshLayout())
    }

    @Test("A section pushed out of the limit is deleted; one that comes back is inserted")
    func sections() throws {
        let fixture = try makeFixture()
        var events = try fixture.execute("INSERT INTO item (name, zone, score, flag) VALUES ('Egypt', 'Africa', 0, 1)")
        #expect(events == [.willChange, .section(.delete, index: 1, name: "Europe", count: 0), .row(.delete, id: 3, from: ip(1, 0), to: nil), .row(.insert, id: 6, from: nil, to: ip(0, 2)), .didChange])
        events = try fixture.execute("DELETE FROM item WHERE name = 'Egypt'")
        #expect(events == [.willChange, .section(.insert, index: 1, name: "Europe", count: 1), .row(.delete, id: 6, from: ip(0, 2), to: nil), .row(.insert, id: 3, from: nil, to: ip(1, 0)), .didChange])
    }

    @Test("Changes beyond the limit deliver nothing")
    func beyond() throws {
        let fixture = try makeFixture()
        #expect(try fixture.execute("UPDATE item SET score = 0 WHERE name = 'Italy'").isEmpty)
    }
}
