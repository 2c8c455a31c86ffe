@testable import WorldCup
@testable import WorldCupSQLite
import Foundation
import GRDB
@testable import LiveResults
@testable import LiveResultsSQLite
import TestSupport
import Testing

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
            let columns = Schema.boardIndexColumns
            #expect(columns == ["zoneID"] + SortColumn.indexColumns(Team.boardOrder) + ["id", "nameKey"])
            #expect(sql.hasSuffix("(" + columns.joined(separator: ", ") + ")"))
            #expect(columns.prefix(4) == ["zoneID", #""wins" DESC"#, #""nameSortKey""#, "id"])
            // A zone's teams in the board's order, and all of them zone by zone.
            let plan = try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN SELECT id FROM team ORDER BY zoneID, \(Team.boardOrderSQL)")
                .map { $0["detail"] as String? ?? "" }
            #expect(plan.contains { $0.contains("team_in_scoreboard_order") }, "\(plan)")
            #expect(!plan.contains { $0.contains("TEMP B-TREE") }, "\(plan)")
        }
    }

    @Test("The board's controller reads zone by zone, each zone's teams from the index: no sort")
    func controllerFetchNeedsNoSort() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let scoreboard = try seededScoreboard(folder)
        let query = KeyQuery(tableName: "team", predicate: nil, sortDescriptors: Team.boardOrder, sectionColumn: nil, related: Team.boardSections)
        try scoreboard.database.read { db in
            let (sql, arguments) = try query.sectionRowsSQL(db)
            let plan = try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql, arguments: arguments + [1]).map { $0["detail"] as String? ?? "" }
            #expect(plan.contains { $0.contains("team_in_scoreboard_order") }, "\(plan)")
            #expect(!plan.contains { $0.contains("TEMP B-TREE") }, "\(plan)")
        }
    }

    @Test("SQLiteTeamStore.teams() lists zone, most wins, then name as people read it, then its bytes")
    func storeFollowsTheOrder() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let scoreboard = try SQLiteTeamStore(databaseURL: folder.database, seedURL: nil)
        // Folded, "A" + U+030A is "a", before "ab"; by bytes (41 CC 8A) it would come after "Ab".
        for name in ["B", "A\u{30A}", "Ab", "Z", "alpha", "Switzerland", "Émoji", "Emoji", "\u{C5}land"] {
            try scoreboard.add(name: name, zone: "Atlantis")
        }
        try scoreboard.add(name: "Winner", zone: "Zed")
        try scoreboard.tap(named: "Z")
        let names = try scoreboard.teams().map(\.teamName)
        #expect(names == ["Z", "A\u{30A}", "Ab", "\u{C5}land", "alpha", "B", "Emoji", "Émoji", "Switzerland", "Winner"])
        // The two that fold alike, "Emoji" and "Émoji": the unaccented first, then the other
        // by its lowercased bytes, whatever its normalisation.
        #expect(Team.nameSortKey("Emoji") == "emoji")
        #expect(Array(Team.nameSortKey("E\u{301}moji").utf8) == Array("emoji\u{1}\u{E9}moji".utf8))
    }

    @Test("A database of schema v5 holding teams: v6 gives every name its sort key and builds the index in the new order")
    func migrationFromV5() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let old = try DatabaseQueue(path: folder.database.path)
        try Schema.migrator.migrate(old, upTo: "v5")
        try old.write { db in
            for (name, wins) in [("Switzerland", 2), ("alpha", 2), ("E\u{301}moji", 2), ("\u{C5}land", 2), ("Brazil", 5)] {
                try db.execute(sql: "INSERT INTO team (teamName, qualifyingZone, imageName, wins, nameKey) VALUES (?, 'Europe', 'x', ?, ?)",
                               arguments: [name, wins, Team.nameKey(name)])
            }
            try db.execute(sql: "INSERT INTO seedImport (id, importedAt) VALUES (1, CURRENT_TIMESTAMP)")
        }
        try old.close()
        let scoreboard = try SQLiteTeamStore(databaseURL: folder.database, seed: [SeedTeam(teamName: "Never", qualifyingZone: "Z", imageName: "", wins: 0)])
        #expect(try scoreboard.teams().map(\.teamName) == ["Brazil", "\u{C5}land", "alpha", "E\u{301}moji", "Switzerland"])
        try scoreboard.database.read { db in
            for row in try Row.fetchAll(db, sql: "SELECT teamName, nameSortKey FROM team") {
                #expect(row["nameSortKey"] as String == Team.nameSortKey(row["teamName"]))
            }
            let sql = try #require(try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE name = 'team_in_scoreboard_order'"))
            #expect(sql.hasSuffix("(" + Schema.boardIndexColumns.joined(separator: ", ") + ")"))
            let plan = try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN SELECT id FROM team ORDER BY zoneID, \(Team.boardOrderSQL)").map { $0["detail"] as String? ?? "" }
            #expect(!plan.contains { $0.contains("TEMP B-TREE") }, "\(plan)")
        }
        // A team added after the migration takes its place among them.
        try scoreboard.add(name: "beta", zone: "Europe")
        #expect(try scoreboard.teams().map(\.teamName) == ["Brazil", "\u{C5}land", "alpha", "E\u{301}moji", "Switzerland", "beta"])
    }

    @Test("A database of schema v10: v11 folds the typographic apostrophes of the stored sort keys, logged, so the filter finds d'ivoire")
    func migrationFromV10() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let names = ["C\u{F4}te d\u{2019}Ivoire", "O\u{2018}Brien", "Cote d'Or", "Hawai\u{02BB}i", "Brazil"]
        do {
            let old = try DatabaseQueue(path: folder.database.path)
            try Schema.migrator.migrate(old, upTo: "v10")
            try old.write { db in
                try db.execute(sql: "INSERT INTO zone (name, nameKey, position) VALUES ('Europe', 'europe', 0)")
                for name in names {
                    // As v10 stored it: the apostrophe as typed.
                    let folded = Team.foldedCaseAndAccents(name), key = Team.nameKey(name)
                    try db.execute(sql: "INSERT INTO team (teamName, zoneID, imageName, wins, nameKey, nameSortKey) VALUES (?, 1, 'x', 0, ?, ?)",
                                   arguments: [name, key, folded == key ? folded : folded + "\u{1}" + key])
                }
                try db.execute(sql: "INSERT INTO seedImport (id, importedAt) VALUES (1, CURRENT_TIMESTAMP)")
            }
            try old.close()
        }
        let logged = try DatabaseQueue(path: folder.database.path).read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM liveresults_change") ?? 0 }
        let scoreboard = try SQLiteTeamStore(databaseURL: folder.database, seed: [])
        try scoreboard.database.read { db in
            for row in try Row.fetchAll(db, sql: "SELECT teamName, nameSortKey FROM team") {
                #expect(row["nameSortKey"] as String == Team.nameSortKey(row["teamName"]), "\(row)")
            }
            #expect(try String.fetchOne(db, sql: "SELECT nameSortKey FROM team WHERE teamName = ?", arguments: [names[0]])?.hasPrefix("cote d'ivoire") == true)
            // The two names with a typographic apostrophe changed, through the change log (ʻ is no apostrophe).
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM liveresults_change") == logged + 2)
        }
        #expect(try scoreboard.teams().map(\.teamName) == ["Brazil", "C\u{F4}te d\u{2019}Ivoire", "Cote d'Or", "Hawai\u{02BB}i", "O\u{2018}Brien"])
    }

    @Test("nameSortKey folds case and accents; where accents went, the lowercased name follows, so it is unique")
    func nameSortKey() {
        #expect(Team.nameSortKey("Åland") == "aland\u{1}åland")
        #expect(Team.nameSortKey("A\u{30A}LAND") == "aland\u{1}åland")
        #expect(Team.nameSortKey("Curaçao") == "curacao\u{1}curaçao")
        #expect(Team.nameSortKey("Emoji") != Team.nameSortKey("Émoji"))
        #expect(Team.nameSortKey("🇫🇷 France") == "🇫🇷 france")
        #expect(Team.nameSortKey("Team 42") == "team 42")
    }

    @Test("ranksAhead: more wins first, then the name's sort key, then the id")
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
        // Folded first: "alpha" ranks ahead of "Switzerland", whose "S" (53) is a smaller byte than "a" (61).
        let alpha = Team(id: 9, teamName: "alpha", qualifyingZone: "Europe", imageName: "", wins: 3)
        let switzerland = Team(id: 1, teamName: "Switzerland", qualifyingZone: "Europe", imageName: "", wins: 3)
        #expect(alpha.ranksAhead(of: switzerland))
        #expect(!switzerland.ranksAhead(of: alpha))
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
                 imageName: "", wins: wins[index], zoneID: Int64(index % 2 + 1))
        }
    }()

    @Test("ranksAhead orders tricky names exactly as SQLite orders the board's columns after the zone")
    func ranksAheadAgreesWithSQLite() throws {
        let database = try DatabaseQueue()
        let sqliteOrder: [Int64] = try database.write { db in
            // No unique folded name here: equal names and names equal but for case must meet.
            try db.execute(sql: """
                CREATE TABLE team (id INTEGER PRIMARY KEY, teamName TEXT NOT NULL, zoneID INTEGER NOT NULL,
                                   imageName TEXT NOT NULL, wins INTEGER NOT NULL, nameKey TEXT NOT NULL, nameSortKey TEXT NOT NULL)
                """)
            for var team in Self.trickyTeams { try team.insert(db) }
            let order = SortColumn.orderingSQL(Team.boardOrder)
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
