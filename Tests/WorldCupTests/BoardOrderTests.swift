import Foundation
import TestSupport
import GRDB
import LiveResults
import Testing
@testable import WorldCup

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

    /// Names whose orders differ between bytes and Swift's `<`, or between case and accent
    /// forms: composed and decomposed accents, case, emoji (four bytes, and a flag of two
    /// scalars), the empty name, and names and wins that tie.
    static let trickyTeams: [Team] = {
        let names = ["B", "b", "A\u{30A}", "\u{C5}", "A", "a", "Ab", "e\u{301}", "\u{E9}", "🇫🇷", "🇩🇪 Germany", "⚽",
                     "Ω", "", "B", "Z", "z", "\u{E9}"]
        let wins = [3, 3, 3, 3, 0, 7, 3, 3, 3, 0, 3, 7, 3, 3, 3, 0, 3, 3]
        // Ids run against the list's order, so that ties broken by the id show, and each
        // decomposed name has the higher id: Swift's `<`, which takes it as equal to the
        // composed one, would let the id put the composed one first; its bytes sort first.
        return names.indices.map { index in
            Team(id: Int64(names.count - index), teamName: names[index], qualifyingZone: ["Europe", "Asia"][index % 2],
                 imageName: "", wins: wins[index])
        }
    }()

    @Test("ranksAhead orders tricky names exactly as SQLite orders the board's columns after the zone")
    func ranksAheadAgreesWithSQLite() throws {
        let database = try DatabaseQueue()
        let sqliteOrder: [Int64] = try database.write { db in
            // No unique folded name here: equal names and names equal but for case must meet.
            try db.execute(sql: """
                CREATE TABLE team (id INTEGER PRIMARY KEY, teamName TEXT NOT NULL, qualifyingZone TEXT NOT NULL,
                                   imageName TEXT NOT NULL, wins INTEGER NOT NULL, nameKey TEXT NOT NULL)
                """)
            for var team in Self.trickyTeams { try team.insert(db) }
            let order = SortColumn.orderingSQL(Array(Team.boardOrder.dropFirst()))
            return try Int64.fetchAll(db, sql: "SELECT id FROM team ORDER BY \(order)")
        }
        let teams = Dictionary(uniqueKeysWithValues: Self.trickyTeams.map { ($0.id!, $0) })
        let ordered = sqliteOrder.map { teams[$0]! }
        #expect(Self.trickyTeams.sorted { $0.ranksAhead(of: $1) }.map(\.id) == sqliteOrder.map(Optional.some))
        for (position, team) in ordered.enumerated() {
            for later in ordered[(position + 1)...] {
                #expect(team.ranksAhead(of: later), "\(team.teamName.debugDescription) #\(team.id!) before \(later.teamName.debugDescription) #\(later.id!)")
                #expect(!later.ranksAhead(of: team), "\(later.teamName.debugDescription) #\(later.id!) not before \(team.teamName.debugDescription) #\(team.id!)")
            }
            #expect(!team.ranksAhead(of: team))
        }
    }

    @Test("orderValue(ofColumn:) reads every column exactly as the team's encoding stores it")
    func orderValuesMatchTheEncoding() throws {
        for team in Self.trickyTeams {
            let encoded = try team.databaseDictionary
            for (column, value) in encoded {
                let read = team.orderValue(ofColumn: column)
                #expect(SortColumn.compare([column: value], [column: read], by: [SortColumn(column)]) == 0,
                        "\(column) of \(team.teamName.debugDescription): \(read) instead of \(value)")
            }
            #expect(team.orderValue(ofColumn: "noSuchColumn") == .null)
        }
    }
}
