import Foundation
import TestSupport
import Testing
import WorldCup
import WorldCupSQLite

/// A zone typed in another case, accent or normalisation than one on the board takes the
/// board's spelling, so that it joins that section instead of starting a second one.
@Suite("Zones as people read them")
struct ZoneSpellingTests {
    @Test("existingSpelling: the exact spelling first, else one equal ignoring case, accents and normalisation, else none")
    func existingSpelling() {
        let zones = ["Africa", "Curaçao", "africa"]
        #expect(Team.existingSpelling(ofZone: "AFRICA", among: zones) == "Africa")
        #expect(Team.existingSpelling(ofZone: " africa ", among: zones) == "africa")
        #expect(Team.existingSpelling(ofZone: "CURAC\u{327}AO", among: zones) == "Curaçao")
        #expect(Team.existingSpelling(ofZone: "Curacao", among: zones) == "Curaçao", "accents are folded: the same zone")
        #expect(Team.existingSpelling(ofZone: "ÁFRICA", among: zones) == "Africa")
        #expect(Team.existingSpelling(ofZone: "Oceania", among: zones) == nil)
    }

    @Test("SQLiteTeamStore.add: a zone in another case or accent joins the existing section")
    func addJoinsTheZone() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let scoreboard = try SQLiteTeamStore(databaseURL: folder.database, seed: Seed.bundled())
        #expect(try scoreboard.add(name: "Egypt", zone: "africa").qualifyingZone == "Africa")
        #expect(try scoreboard.add(name: "Fiji", zone: "  OCEANIA ").qualifyingZone == "OCEANIA")
        #expect(try scoreboard.add(name: "Samoa", zone: "Oceania").qualifyingZone == "OCEANIA")
        #expect(try scoreboard.add(name: "Aruba", zone: "Cura\u{63}\u{327}ao").qualifyingZone == "Cura\u{63}\u{327}ao")
        #expect(try scoreboard.add(name: "Bonaire", zone: "CURAÇAO").qualifyingZone == "Cura\u{63}\u{327}ao")
        #expect(try scoreboard.add(name: "Sint Maarten", zone: "Curacao").qualifyingZone == "Cura\u{63}\u{327}ao")
        #expect(try scoreboard.add(name: "Morocco", zone: "Àfrica").qualifyingZone == "Africa")
        let zones = try scoreboard.teams().map(\.qualifyingZone)
        #expect(Set(zones) == Set(try Seed.bundled().map(\.qualifyingZone)).union(["OCEANIA", "Cura\u{63}\u{327}ao"]))
    }
}
