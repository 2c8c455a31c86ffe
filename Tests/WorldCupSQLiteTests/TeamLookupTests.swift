import Foundation
import Testing
import TestSupport
import WorldCup
import WorldCupSQLite

/// The command line finds a team as the board's filter does: case, accents and both
/// apostrophes folded alike.
@Suite("Finding a team by the name a person types")
struct TeamLookupTests {
    @Test("Case, accents and either apostrophe find the team", arguments: ["cote d'ivoire", "COTE D’IVOIRE", "Côte d'Ivoire", "  côte d‘ivoire "])
    func foldedNameFindsTheTeam(typed: String) throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let scoreboard = try seededScoreboard(folder)
        try scoreboard.add(name: "Côte d’Ivoire", zone: "Africa")
        #expect(try scoreboard.tap(named: typed).teamName == "Côte d’Ivoire")
        #expect(try scoreboard.team(named: "Côte d’Ivoire")?.wins == 1)
    }

    @Test("Two teams that fold alike: the exact name finds each, a folded one asks for the exact name")
    func ambiguousFold() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let scoreboard = try seededScoreboard(folder)
        try scoreboard.add(name: "Emoji", zone: "Asia")
        try scoreboard.add(name: "Émoji", zone: "Asia")
        #expect(try scoreboard.tap(named: "emoji").teamName == "Emoji")
        #expect(try scoreboard.tap(named: "ÉMOJI").teamName == "Émoji")
        #expect(throws: WorldCupError("“EMÔJI” could be “Emoji” or “Émoji”: give the exact name.")) { try scoreboard.tap(named: "EMÔJI") }
        #expect(throws: WorldCupError("There is no team named “Narnia”.")) { try scoreboard.delete(named: "Narnia") }
    }

    @Test("A part of a name, which the board's filter would find, names the few teams whose names hold it")
    func partOfANameSuggestsTheTeams() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let scoreboard = try seededScoreboard(folder)
        try scoreboard.add(name: "Côte d’Ivoire", zone: "Africa")
        #expect(throws: WorldCupError("There is no team named “COTE D'”: did you mean “Côte d’Ivoire”?")) { try scoreboard.tap(named: "COTE D'") }
        #expect(throws: WorldCupError("There is no team named “ÍVO”: did you mean “Côte d’Ivoire” or “Ivory Coast”?")) { try scoreboard.tap(named: "ÍVO") }
        // Too many to name (an, in 9 names): the plain sentence.
        #expect(throws: WorldCupError("There is no team named “an”.")) { try scoreboard.tap(named: "an") }
        #expect(try scoreboard.teams().allSatisfy { $0.wins == 0 })
    }
}
