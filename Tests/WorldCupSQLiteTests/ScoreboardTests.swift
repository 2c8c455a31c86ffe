import Foundation
import GRDB
import Synchronization
import TestSupport
import Testing
import WorldCup
import WorldCupSQLite

/// Byte order of UTF-8, as SQLite's BINARY collation.
private func bytesBefore(_ a: String, _ b: String) -> Bool {
    Array(a.utf8).lexicographicallyPrecedes(Array(b.utf8))
}

/// The scoreboard order, computed in Swift: zone, most wins, name as people read it (its
/// sort key: case and accents folded, unique), id.
private func scoreboardOrder(_ teams: [Team]) -> [Team] {
    teams.sorted { a, b in
        if a.qualifyingZone != b.qualifyingZone || Array(a.qualifyingZone.utf8) != Array(b.qualifyingZone.utf8) {
            return bytesBefore(a.qualifyingZone, b.qualifyingZone)
        }
        if a.wins != b.wins { return a.wins > b.wins }
        let (foldedA, foldedB) = (Team.nameSortKey(a.teamName), Team.nameSortKey(b.teamName))
        if Array(foldedA.utf8) != Array(foldedB.utf8) { return bytesBefore(foldedA, foldedB) }
        return a.id! < b.id!
    }
}

@Suite("SQLiteTeamStore")
struct ScoreboardTests {
    @Test("teams() orders by zone, then most wins, then name as people read it")
    func order() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let scoreboard = try seededScoreboard(folder)
        var teams = try scoreboard.teams()
        #expect(teams.map(\.id) == scoreboardOrder(teams).map(\.id))
        #expect(teams.first?.teamName == "Algeria")
        #expect(teams.last?.teamName == "Uruguay")

        try scoreboard.tap(named: "Nigeria")
        try scoreboard.tap(named: "Nigeria")
        try scoreboard.tap(named: "Ghana")
        try scoreboard.add(name: "angola", zone: "Africa") // by bytes, lowercase would sort after Zambia
        try scoreboard.add(name: "Zambia", zone: "Africa")
        teams = try scoreboard.teams()
        #expect(teams.prefix(8).map(\.teamName) == ["Nigeria", "Ghana", "Algeria", "angola", "Cameroon", "Ivory Coast", "Zambia", "Australia"])
        #expect(teams.map(\.id) == scoreboardOrder(teams).map(\.id))
    }

    @Test("tap adds one win and returns the saved team")
    func tap() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let scoreboard = try seededScoreboard(folder)
        let brazil = try #require(try scoreboard.team(named: "brazil"))
        #expect(try scoreboard.tap(teamID: brazil.id!).wins == 1)
        #expect(try scoreboard.tap(named: "BRAZIL").wins == 2)
        #expect(try scoreboard.team(named: "Brazil")?.wins == 2)
        #expect(worldCupError { try scoreboard.tap(teamID: 9999) } != nil)
        #expect(worldCupError { try scoreboard.tap(named: "Atlantis") } != nil)
        let saved = try #require(try scoreboard.team(named: "Brazil"))
        #expect(saved == Team(id: brazil.id, teamName: "Brazil", qualifyingZone: brazil.qualifyingZone, imageName: brazil.imageName, wins: 2, zoneID: brazil.zoneID))
    }

    @Test("A tap on a row holding a value of the wrong type says the file is damaged")
    func tapOnADamagedRow() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let scoreboard = try seededScoreboard(folder)
        let brazil = try #require(try scoreboard.team(named: "brazil"))
        // A blob where a name belongs (TEXT affinity keeps it a blob), not even UTF-8.
        try scoreboard.database.write { try $0.execute(sql: "UPDATE team SET teamName = x'ff' WHERE id = ?", arguments: [brazil.id]) }
        let error = worldCupError { try scoreboard.tap(teamID: brazil.id!) }
        #expect(error?.isDamage == true)
        #expect(error?.description.contains("a row holds a value its table cannot hold") == true, "\(String(describing: error))")
    }

    @Test("Taps from several threads through separate scoreboards on one file all count", arguments: [2, 4, 8])
    func concurrentTapsFromThreads(scoreboards: Int) throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let instances = try (0..<scoreboards).map { _ in try seededScoreboard(folder) }
        let id = try #require(try instances[0].team(named: "Brazil")?.id)
        let tapsEach = 40
        let errors = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: scoreboards) { index in
            for _ in 0..<tapsEach {
                do {
                    try instances[index].tap(teamID: id)
                } catch {
                    errors.withLock { $0.append("\(error)") }
                }
            }
        }
        #expect(errors.withLock { $0 }.isEmpty)
        #expect(try instances[0].team(named: "Brazil")?.wins == scoreboards * tapsEach)
        // Another scoreboard opened afterwards sees the same total.
        #expect(try seededScoreboard(folder).team(named: "Brazil")?.wins == scoreboards * tapsEach)
    }

    @Test("Taps from concurrent tasks through separate scoreboards on one file all count")
    func concurrentTapsFromTasks() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let instances = try (0..<4).map { _ in try seededScoreboard(folder) }
        let tapsEach = 30
        try await withThrowingTaskGroup(of: Void.self) { group in
            for scoreboard in instances {
                group.addTask {
                    for _ in 0..<tapsEach { try scoreboard.tap(named: "Japan") }
                }
            }
            try await group.waitForAll()
        }
        #expect(try instances[3].team(named: "Japan")?.wins == 4 * tapsEach)
        #expect(try instances[0].teamCount() == 32)
    }

    static let invalidNames: [(String, String)] = [
        ("", "empty"),
        ("   ", "blank"),
        ("\n\t ", "blank with newline"),
        (String(repeating: "x", count: 65), "65 characters"),
        ("  " + String(repeating: "é", count: 65) + " ", "65 characters after trimming"),
        ("brazil", "duplicate ignoring case"),
        ("  BRAZIL  ", "duplicate after trimming"),
        ("Bra\u{7}zil", "bell"),
        ("Tab\tName", "tab"),
        ("New\nLine", "newline inside"),
        ("Nul\u{0}Name", "NUL"),
        ("Esc\u{1B}[31mRed", "escape sequence"),
        ("Del\u{7F}", "DEL"),
        ("C1\u{85}Next", "C1 control"),
        ("Evil\u{202E}lizarB", "right-to-left override"),
        ("Iso\u{2067}late\u{2069}", "bidi isolate"),
    ]

    @Test("add refuses bad names, saves nothing, and says why in one sentence", arguments: invalidNames)
    func addInvalidName(name: String, label: String) throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let scoreboard = try seededScoreboard(folder)
        let before = try scoreboard.teams()
        let error = worldCupError { try scoreboard.add(name: name, zone: "Atlantis") }
        #expect(isOneSentence(error?.description ?? ""), "\(label): \(error?.description ?? "")")
        #expect(try scoreboard.teams() == before, "\(label): nothing is saved")
    }

    @Test("add refuses bad zones and saves nothing", arguments: ["", "  ", String(repeating: "z", count: 65), "Zone\u{7}", "Zone\nTwo"])
    func addInvalidZone(zone: String) throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let scoreboard = try seededScoreboard(folder)
        let error = worldCupError { try scoreboard.add(name: "Atlantis", zone: zone) }
        #expect(isOneSentence(error?.description ?? ""), "\(error?.description ?? "")")
        #expect(try scoreboard.teamCount() == 32)
        #expect(try scoreboard.team(named: "Atlantis") == nil)
    }

    @Test("Names that differ only in Unicode normalisation are duplicates")
    func normalisedDuplicates() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let scoreboard = try seededScoreboard(folder)
        try scoreboard.add(name: "Cafe\u{301}", zone: "Europe")
        #expect(worldCupError { try scoreboard.add(name: "Caf\u{E9}", zone: "Europe") } != nil)
        #expect(worldCupError { try scoreboard.add(name: "CAF\u{C9}", zone: "Asia") } != nil)
        #expect(try scoreboard.teamCount() == 33)
        #expect(try scoreboard.team(named: "caf\u{E9}")?.teamName == "Cafe\u{301}")
    }

    @Test("add accepts names at the limits")
    func addAtLimits() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let scoreboard = try seededScoreboard(folder)
        let long = String(repeating: "x", count: 64)
        #expect(try scoreboard.add(name: "  " + long + "\n", zone: " Europe ").teamName == long)
        #expect(try scoreboard.add(name: String(repeating: "🇧🇷", count: 64), zone: "Europe").teamName.count == 64)
        #expect(try scoreboard.add(name: "日本代表", zone: "アジア").qualifyingZone == "アジア")
        #expect(try scoreboard.add(name: "Family 👨\u{200D}👩\u{200D}👧", zone: "Europe").teamName == "Family 👨\u{200D}👩\u{200D}👧")
        #expect(try scoreboard.team(named: long)?.qualifyingZone == "Europe")
        #expect(try scoreboard.teamCount() == 36)
    }

    @Test("add into a new zone creates the team with no wins in that zone")
    func addIntoNewZone() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let scoreboard = try seededScoreboard(folder)
        let team = try scoreboard.add(name: "  Wenderland ", zone: " Atlantis ")
        #expect(team.id != nil)
        #expect(team.teamName == "Wenderland")
        #expect(team.qualifyingZone == "Atlantis")
        #expect(team.wins == 0)
        #expect(team.imageName == Team.secretImageName)
        #expect(try scoreboard.teamCount() == 33)
        let teams = try scoreboard.teams()
        let zones = teams.map(\.qualifyingZone).reduce(into: [String]()) { if $0.last != $1 { $0.append($1) } }
        #expect(zones == ["Africa", "Asia", "Atlantis", "Europe", "North, Central America & Caribbean", "South America"])
        #expect(try scoreboard.team(named: "wenderland") == team)
        // It persists.
        #expect(try SQLiteTeamStore(databaseURL: folder.database, seedURL: nil).team(named: "Wenderland") == team)
    }

    @Test("delete removes one team; deleting it again is an error")
    func delete() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let scoreboard = try seededScoreboard(folder)
        let team = try scoreboard.add(name: "Wenderland", zone: "Atlantis")
        try scoreboard.delete(teamID: team.id!)
        #expect(try scoreboard.team(named: "Wenderland") == nil)
        #expect(try scoreboard.teamCount() == 32)
        #expect(!(try scoreboard.teams().contains { $0.qualifyingZone == "Atlantis" }))
        let error = worldCupError { try scoreboard.delete(teamID: team.id!) }
        #expect(isOneSentence(error?.description ?? ""))
        try scoreboard.delete(named: "  brazil ")
        #expect(try scoreboard.team(named: "Brazil") == nil)
        #expect(try scoreboard.teamCount() == 31)
        #expect(worldCupError { try scoreboard.delete(named: "Brazil") } != nil)
        // The name can be used again.
        #expect(try scoreboard.add(name: "Brazil", zone: "South America").wins == 0)
    }
}

@Suite("DatabaseFile")
struct StoreTests {
    @Test("defaultDatabaseURL uses XDG_DATA_HOME when it is an absolute path")
    func xdgDataHome() {
        let url = DatabaseFile.defaultDatabaseURL(environment: ["XDG_DATA_HOME": "/xdg/data", "HOME": "/home/fan"])
        #expect(url.path == "/xdg/data/worldcup/WorldCup.sqlite")
    }

    @Test("defaultDatabaseURL falls back to HOME/.local/share", arguments: [
        ["HOME": "/home/fan"],
        ["HOME": "/home/fan", "XDG_DATA_HOME": ""],
        ["HOME": "/home/fan", "XDG_DATA_HOME": "relative/data"],
    ])
    func homeFallback(environment: [String: String]) {
        let url = DatabaseFile.defaultDatabaseURL(environment: environment)
        #expect(url.path == "/home/fan/.local/share/worldcup/WorldCup.sqlite")
    }

    @Test("A new database's folders are created")
    func createsFolders() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let url = folder.url.appendingPathComponent("a/b/c/WorldCup.sqlite")
        #expect(try SQLiteTeamStore(databaseURL: url, seedURL: Repository.seed).teamCount() == 32)
        #expect(FileManager.default.fileExists(atPath: url.path))
    }

    @Test("Opening a folder is an error and leaves the folder alone")
    func openFolder() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let directory = folder.file("WorldCup.sqlite")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: false)
        try Data("keep".utf8).write(to: directory.appendingPathComponent("inside.txt"))
        let before = folder.snapshot()
        let error = worldCupError { _ = try SQLiteTeamStore(databaseURL: directory, seedURL: Repository.seed) }
        #expect(isOneSentence(error?.description ?? ""), "\(error?.description ?? "")")
        // Alone: the same files with the same bytes, and nothing new beside them.
        #expect(folder.snapshot() == before)
        #expect(before.keys.sorted() == ["/WorldCup.sqlite", "/WorldCup.sqlite/inside.txt"])
    }

    static let notDatabases: [(String, Data)] = [
        ("text", Data("These are my notes, not a database.\n".utf8)),
        ("json", (try? Data(contentsOf: Repository.seed)) ?? Data("[]".utf8)),
        ("binary", Data((0..<8192).map { UInt8(truncatingIfNeeded: $0 &* 2654435761 >> 7) })),
        ("fake header", Data("SQLite format 3\u{0}".utf8) + Data(repeating: 0xAB, count: 4080)),
    ]

    @Test("Opening a file that is not a database is an error and leaves its bytes unchanged", arguments: notDatabases)
    func openNotADatabase(label: String, bytes: Data) throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let url = folder.file("WorldCup.sqlite")
        try bytes.write(to: url)
        let error = worldCupError { _ = try SQLiteTeamStore(databaseURL: url, seedURL: Repository.seed) }
        #expect(isOneSentence(error?.description ?? ""), "\(label): \(error?.description ?? "")")
        #expect(try Data(contentsOf: url) == bytes, "\(label): the file changed")
        // Nor is anything written beside it.
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: folder.url.path).filter { $0 != "WorldCup.sqlite" }
        #expect(leftovers.isEmpty, "\(label): \(leftovers)")
        // And a second attempt says the same.
        #expect(worldCupError { _ = try SQLiteTeamStore(databaseURL: url, seedURL: nil) } == error)
        #expect(try Data(contentsOf: url) == bytes)
    }

    @Test("The database is in WAL mode and holds the schema")
    func walMode() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let scoreboard = try seededScoreboard(folder)
        let mode = try scoreboard.database.read { try String.fetchOne($0, sql: "PRAGMA journal_mode") }
        #expect(mode == "wal")
        let columns = try scoreboard.database.read { try $0.columns(in: "team").map(\.name) }
        #expect(Set(columns).isSuperset(of: ["id", "teamName", "zoneID", "imageName", "wins"]))
        let zoneColumns = try scoreboard.database.read { try $0.columns(in: "zone").map(\.name) }
        #expect(zoneColumns == ["id", "name", "nameKey", "position"])
    }

    @Test("A database made before schema v5 opens with its change log rebuilt: the entries kept, positions going on from the last given")
    func changeLogOfSchemaV4() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        // The schema as the previous version left it: its log's positions came from
        // AUTOINCREMENT. Four commits, the newest entry removed by hand.
        do {
            let old = try DatabaseQueue(path: folder.database.path)
            try Schema.migrator.migrate(old, upTo: "v4")
            try old.write { db in
                try db.execute(sql: """
                    DROP TABLE liveresults_change;
                    CREATE TABLE "liveresults_change" (position INTEGER PRIMARY KEY AUTOINCREMENT, tableName TEXT NOT NULL, changedRowID INTEGER NOT NULL);
                    """)
                try db.execute(sql: """
                    INSERT INTO team (teamName, qualifyingZone, imageName, nameKey) VALUES
                        ('Ghana', 'Africa', 'ghana-flag', 'ghana'), ('Chile', 'South America', 'chile-flag', 'chile')
                    """)
                try db.execute(sql: "UPDATE team SET wins = wins + 1 WHERE teamName = 'Ghana'")
                try db.execute(sql: "UPDATE team SET wins = wins + 1 WHERE teamName = 'Chile'")
                try db.execute(sql: "DELETE FROM liveresults_change WHERE position = 4")
            }
        }
        let scoreboard = try SQLiteTeamStore(databaseURL: folder.database, seed: nil)
        try scoreboard.database.read { db in
            #expect(try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE name = 'liveresults_change'")?.contains("AUTOINCREMENT") == false)
            #expect(try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations").contains(Schema.version))
            let entries = try Row.fetchAll(db, sql: "SELECT position, tableName, changedRowID FROM liveresults_change ORDER BY position")
                .map { "\($0[0] as Int64) \($0[1] as String) \($0[2] as Int64)" }
            // v6 fills every name's sort key without logging it.
            #expect(entries == ["1 team 1", "2 team 2", "3 team 1", "4  0"])
        }
        // A tap after the migration comes after every position given before it.
        let ghana = try #require(try scoreboard.team(named: "Ghana"))
        try scoreboard.tap(teamID: ghana.id!)
        #expect(try scoreboard.database.read { try Int64.fetchOne($0, sql: "SELECT MAX(position) FROM liveresults_change") } == 5)
        #expect(try scoreboard.teams().map(\.wins) == [2, 1])
    }
}
