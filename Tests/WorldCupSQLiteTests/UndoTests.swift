import Foundation
import GRDB
import TeamStoreContract
import TestSupport
import Testing
import WorldCup
@testable import WorldCupSQLite

/// Undo, edit and the history on SQLite: the rules both stores keep (UndoContract), the
/// history's bound, and the migration from v6 with teams in it.
@Suite("SQLiteTeamStore: undo, edit, history")
struct UndoTests {
    @Test("The undo, edit and history rules, on one file shared by two authors")
    func contract() async throws {
        var folders: [TemporaryFolder] = []
        defer { folders.forEach { $0.remove() } }
        try await UndoContract.all {
            let folder = try TemporaryFolder()
            folders.append(folder)
            _ = try SQLiteTeamStore(databaseURL: folder.database, seed: Seed.bundled())
            return { author in try SQLiteTeamStore(databaseURL: folder.database, seed: nil, author: author) }
        }
    }

    @Test("The undo rules are written once: an edit of one is the rule this store runs")
    func oneRuleEdit() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        _ = try SQLiteTeamStore(databaseURL: folder.database, seed: Seed.bundled())
        try RevertRuleContract.oneEditIsEveryStoresRule { author in try SQLiteTeamStore(databaseURL: folder.database, seed: nil, author: author) }
    }

    @Test("A read-only board refuses edit and undo in its one sentence, and writes no history")
    func readOnlyRefuses() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try SQLiteTeamStore(databaseURL: folder.database, seed: Seed.bundled())
        let ghana = try #require(try store.team(named: "Ghana"))
        try store.tap(teamID: ghana.id!)
        let watcher = try SQLiteTeamStore(readOnlyDatabaseURL: folder.database)
        let refusal = ReadOnlyBoard.asked.refusal
        #expect(throws: refusal) { try watcher.edit(teamID: ghana.id!, name: "X", zone: nil, wins: nil) }
        #expect(throws: refusal) { try watcher.undo(entryID: 1) }
        #expect(throws: refusal) { try watcher.redoLast() }
        #expect(throws: refusal) { try watcher.undoLast() }
        let africa = try #require(try watcher.zone(named: "Africa"))
        #expect(throws: refusal) { try watcher.renameZone(zoneID: africa.id!, to: "CAF") }
        #expect(throws: refusal) { try watcher.moveZone(zoneID: africa.id!, to: 2) }
        #expect(throws: refusal) { try watcher.mergeZone(named: "Africa", into: "Asia") }
        #expect(try watcher.history(limit: 10).count == 1)
        #expect(try store.zones().map(\.zone.name).first == "Africa")
    }

    @Test("The history keeps the newest entries and the last hour's; older ones beyond the bound are pruned")
    func historyIsBounded() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try SQLiteTeamStore(databaseURL: folder.database, seed: Seed.bundled(), author: "fan@laptop")
        let brazil = try #require(try store.team(named: "Brazil"))
        // Old entries, two days ago, as many as the bound and a few more.
        let extra = 150
        try store.database.write { db in
            for _ in 0..<(HistoryEntry.retainedCount + extra) {
                try db.execute(sql: """
                    INSERT INTO history (at, author, action, teamID, teamName) VALUES (strftime('%Y-%m-%dT%H:%M:%SZ', 'now', '-2 days'), 'old', 'tap', ?, 'Brazil')
                    """, arguments: [brazil.id])
            }
        }
        for _ in 0..<HistoryEntry.pruneInterval { try store.tap(teamID: brazil.id!) }
        let count = try store.database.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM history")! }
        #expect(count <= HistoryEntry.retainedCount + Int(HistoryEntry.pruneInterval))
        #expect(count >= HistoryEntry.retainedCount)
        #expect(try store.history(limit: Int(HistoryEntry.pruneInterval)).allSatisfy { $0.by == "fan@laptop" }, "the newest are kept")
    }

    @Test("Two stores of one author (two connections, as two programs) undo the same entry at once, 300 times: taken back exactly once")
    func twoUndosOfOneEntryAtOnce() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let stores = try [SQLiteTeamStore(databaseURL: folder.database, seed: Seed.bundled(), author: "a@pc"),
                          SQLiteTeamStore(databaseURL: folder.database, seed: nil, author: "a@pc")]
        try UndoRace.undoTheSameEntry(stores, rounds: 300)
    }

    @Test("A v7 file with history: the later migrations keep every entry, give a tap both sides, and its entries can be taken back by id")
    func migrationFromV7() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        // v7 as it was: no reverts or refused columns, a tap's entry with its new side only.
        try Self.olderFile(folder.database, at: "v7") { db in
            try db.execute(sql: """
                UPDATE team SET wins = 1, teamName = 'Gahna', nameKey = 'gahna', nameSortKey = 'gahna' WHERE teamName = 'Ghana';
                INSERT INTO history (author, action, teamID, teamName, newName, newZone, newImage, newWins)
                    SELECT 'fan@laptop', 'tap', id, 'Ghana', 'Ghana', 'Africa', imageName, 1 FROM team WHERE teamName = 'Gahna';
                INSERT INTO history (author, action, teamID, teamName, oldName, oldZone, oldImage, oldWins, newName, newZone, newImage, newWins)
                    SELECT 'fan@laptop', 'edit', id, 'Gahna', 'Ghana', 'Africa', imageName, 1, 'Gahna', 'Africa', imageName, 1 FROM team WHERE teamName = 'Gahna';
                """)
        }
        let store = try SQLiteTeamStore(databaseURL: folder.database, seed: Seed.bundled(), author: "fan@laptop")
        let history = try store.history(limit: 10)
        #expect(history.map(\.change.action) == [.edit, .tap])
        #expect(history[1].change.before?.wins == 0 && history[1].change.after?.wins == 1)
        try store.undo(entryID: history[0].id)
        try store.undoLast()
        #expect(try store.team(named: "Ghana")?.wins == 0)
        #expect(try store.team(named: "Ghana")?.qualifyingZone == "Africa")
    }

    @Test("A v8 file with teams in zones spelt apart and history: v9 makes one zone of each, alphabetical, keeps every team, id and entry, and the old entries are taken back")
    func migrationFromV8() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        try Self.olderFile(folder.database, at: "v8") { db in
            try db.execute(sql: """
                INSERT INTO team (teamName, qualifyingZone, imageName, wins, nameKey, nameSortKey) VALUES
                    ('Atlantis', 'oceania', 'wenderland-flag', 2, 'atlantis', 'atlantis'),
                    ('Lemuria', 'Oceania', 'wenderland-flag', 0, 'lemuria', 'lemuria'),
                    ('Mu', 'Zeta', 'wenderland-flag', 0, 'mu', 'mu'),
                    ('Gone', 'Zeta', 'wenderland-flag', 0, 'gone', 'gone');
                DELETE FROM team WHERE teamName = 'Gone';
                UPDATE team SET qualifyingZone = 'Asia', wins = 3 WHERE teamName = 'Ghana';
                INSERT INTO history (author, action, teamID, teamName, oldName, oldZone, oldImage, oldWins, newName, newZone, newImage, newWins)
                    SELECT 'fan@laptop', 'edit', id, 'Ghana', 'Ghana', 'Africa', imageName, 3, 'Ghana', 'Asia', imageName, 3 FROM team WHERE teamName = 'Ghana';
                """)
        }
        let old = try DatabasePool(path: folder.database.path)
        let (before, sequence) = try old.read { db in
            (try Row.fetchAll(db, sql: "SELECT id, teamName, qualifyingZone, wins FROM team ORDER BY id").map { "\($0["id"] as Int64) \($0["teamName"] as String) \($0["qualifyingZone"] as String) \($0["wins"] as Int)" },
             try Int64.fetchOne(db, sql: "SELECT seq FROM sqlite_sequence WHERE name = 'team'"))
        }
        try old.close()
        let watcher = { try SQLiteTeamStore(readOnlyDatabaseURL: folder.database) }
        #expect(throws: WorldCupError("The database \(folder.database.path) was made by an older worldcup, and a read-only board cannot bring it up to date: open it once without --read-only.")) { try watcher() }
        let store = try SQLiteTeamStore(databaseURL: folder.database, seed: Seed.bundled(), author: "fan@laptop")
        #expect(try store.zones().map(\.zone.name) == ["Africa", "Asia", "Europe", "North, Central America & Caribbean", "Oceania", "South America", "Zeta"])
        #expect(try store.zones().map(\.teamCount) == [4, 5, 13, 4, 2, 6, 1])
        #expect(try store.zones().map(\.zone.position) == Array(0..<7))
        let after = try store.teams().sorted { $0.id! < $1.id! }.map { "\($0.id!) \($0.teamName) \($0.qualifyingZone) \($0.wins)" }
        #expect(after == before.map { $0.replacingOccurrences(of: " oceania ", with: " Oceania ") }, "every team, its id, name, zone (merged spellings as one) and wins")
        let history = try store.history(limit: 10)
        #expect(history.map(\.change.summary) == ["Edited Ghana: zone Africa → Asia."])
        try store.undoLast()
        #expect(try store.team(named: "Ghana")?.qualifyingZone == "Africa")
        let added = try store.add(name: "Hyperborea", zone: "Arctic")
        #expect(added.id! > sequence!, "a deleted team's id is not given again")
        #expect(try store.zones().map(\.zone.name).prefix(2) == ["Africa", "Arctic"])
        #expect(try store.database.read { try Bool.fetchOne($0, sql: "SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'zone')") } == true, "the change log watches the zones")
        let read = try watcher()
        #expect(try read.zones().count == 8)
    }

    /// A file as a program of `version` left it: its migrations up to it, the seed's teams,
    /// then `change`.
    static func olderFile(_ url: URL, at version: String, _ change: (Database) throws -> Void) throws {
        let pool = try DatabasePool(path: url.path)
        try Schema.migrator.migrate(pool, upTo: version)
        try pool.write { db in
            for team in try Seed.bundled() {
                try db.execute(sql: "INSERT INTO team (teamName, qualifyingZone, imageName, wins, nameKey, nameSortKey) VALUES (?, ?, ?, ?, ?, ?)",
                               arguments: [team.teamName, team.qualifyingZone, team.imageName, team.wins, Team.nameKey(team.teamName), Team.nameSortKey(team.teamName)])
            }
            try db.execute(sql: "INSERT INTO seedImport (id, importedAt) VALUES (1, CURRENT_TIMESTAMP)")
            try change(db)
        }
        try pool.close()
    }

    @Test("Random taps, adds, deletes, edits, undos and redos from four stores at once (two sharing an author): the history marks, chains and replays true")
    func historyTruth() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        _ = try SQLiteTeamStore(databaseURL: folder.database, seed: Seed.bundled())
        try HistoryTruthContract.check({ author in try SQLiteTeamStore(databaseURL: folder.database, seed: nil, author: author) },
                                       authors: ["a@pc", "a@pc", "b@pc", "c@pc"], steps: 150, seed: 40)
    }

    @Test("An entry's time is read without a formatter, as ISO 8601 reads it; an entry whose time cannot be read is an error, not 1970")
    func entryTimes() throws {
        let formatter = ISO8601DateFormatter()
        var random = SplitMix64(seed: 40)
        for _ in 0..<2_000 {
            let date = Date(timeIntervalSince1970: TimeInterval(random.next() % 6_000_000_000))
            let text = formatter.string(from: date)
            #expect(HistoryDate.parse(text) == formatter.date(from: text), "\(text)")
        }
        for bad in ["", "2026-11-26 09:30:12", "2026-13-26T09:30:12Z", "2026-11-26T09:30:12+01:00", "yesterday"] {
            #expect(HistoryDate.parse(bad) == nil, "\(bad)")
        }
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try SQLiteTeamStore(databaseURL: folder.database, seed: Seed.bundled(), author: "fan@laptop")
        try store.tap(named: "Ghana")
        try store.database.write { try $0.execute(sql: "UPDATE history SET at = 'soon'") }
        #expect(throws: WorldCupError("The history entry 1 cannot be read: “soon” is not a time.")) { try store.history(limit: 5) }
    }

    @Test("A v6 file holding teams and taps: the later migrations add the history, the teams as they were")
    func migrationFromV6() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        try Self.olderFile(folder.database, at: "v6") { db in
            try db.execute(sql: "UPDATE team SET wins = wins + 1 WHERE teamName = 'Ghana'")
        }
        let store = try SQLiteTeamStore(databaseURL: folder.database, seed: Seed.bundled(), author: "fan@laptop")
        let before = try store.teams()
        #expect(before.count == 32 && before.first { $0.teamName == "Ghana" }?.wins == 1)
        #expect(try store.history(limit: 10).isEmpty)
        try store.tap(named: "Ghana")
        #expect(try store.history(limit: 10).map(\.by) == ["fan@laptop"])
        try store.undoLast()
        #expect(try store.teams() == before)
    }
}
