import Foundation
import TestSupport
import GRDB
import LiveResults
import Testing
import WorldCup

/// `Team.boardOrder` is the one definition of the scoreboard's order: the store, the schema's
/// index and the in-memory tie-break all follow it.
@Suite("The board's order")
struct BoardOrderTests {
    @Test("The schema's index holds the teams in the board's order, so the board's query needs no sorting")
    func indexFollowsTheOrder() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let scoreboard = try seededScoreboard(folder)
        try scoreboard.database.read { db in
            let sql = try #require(try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE name = 'team_in_scoreboard_order'"))
            let columns = SortColumn.indexColumns(Team.boardOrder) + ["id", "nameKey"]
            #expect(sql.hasSuffix("(" + columns.joined(separator: ", ") + ")"))
            #expect(columns.prefix(3) == [#""qualifyingZone""#, #""wins" DESC"#, #""teamName""#])
            let plan = try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN SELECT id FROM team ORDER BY \(Team.boardOrderSQL)")
                .map { $0["detail"] as String? ?? "" }
            #expect(plan.contains { $0.contains("team_in_scoreboard_order") }, "\(plan)")
            #expect(!plan.contains { $0.contains("TEMP B-TREE") }, "\(plan)")
        }
    }

    @Test("SQLiteTeamStore.teams() lists zone, most wins, then name by bytes: a decomposed Å before B")
    func storeFollowsTheOrder() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let scoreboard = try SQLiteTeamStore(databaseURL: folder.database, seedURL: nil)
        // "A" + U+030A is 41 CC 8A, before B (42) by bytes; Swift's < puts it after B (as Å, U+00C5).
        for name in ["B", "A\u{30A}", "Ab", "Z"] { try scoreboard.add(name: name, zone: "Atlantis") }
        try scoreboard.add(name: "Winner", zone: "Zed")
        try scoreboard.tap(named: "Z")
        let names = try scoreboard.teams().map(\.teamName)
        #expect(names == ["Z", "Ab", "A\u{30A}", "B", "Winner"])
        #expect(!("A\u{30A}" < "B"), "Swift's own order would disagree, which is the point")
    }

    @Test("ranksAhead: more wins first, then the name's bytes, then the id")
    func ranksAhead() {
        let decomposed = Team(id: 2, teamName: "A\u{30A}", qualifyingZone: "Europe", imageName: "", wins: 3)
        let b = Team(id: 1, teamName: "B", qualifyingZone: "Asia", imageName: "", wins: 3)
        #expect(decomposed.ranksAhead(of: b))
        #expect(!b.ranksAhead(of: decomposed))
        var more = b
        more.wins = 4
        #expect(more.ranksAhead(of: decomposed))
        var twin = decomposed
        twin.id = 3
        #expect(decomposed.ranksAhead(of: twin))
        #expect(!twin.ranksAhead(of: decomposed))
        #expect(!decomposed.ranksAhead(of: decomposed))
    }
}
