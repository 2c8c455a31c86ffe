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
        #expect(try watcher.history(limit: 10).count == 1)
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

    @Test("A v7 file with history: v8 keeps every entry, gives a tap both sides, and its entries can be taken back by id")
    func migrationFromV7() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let v7 = try SQLiteTeamStore(databaseURL: folder.database, seed: Seed.bundled(), author: "fan@laptop")
        let ghana = try #require(try v7.team(named: "Ghana"))
        try v7.tap(teamID: ghana.id!)
        try v7.edit(teamID: ghana.id!, name: "Gahna", zone: nil, wins: nil)
        // v7 as it was: no reverts or refused columns, a tap's entry with its new side only.
        try v7.database.write { db in
            try db.execute(sql: """
                UPDATE history SET oldName = NULL, oldZone = NULL, oldImage = NULL, oldWins = NULL WHERE action = 'tap';
                ALTER TABLE history DROP COLUMN reverts;
                ALTER TABLE history DROP COLUMN refused;
                DELETE FROM grdb_migrations WHERE identifier = 'v8';
                """)
        }
        let before = try v7.teams()
        try v7.database.close()
        let v8 = try SQLiteTeamStore(databaseURL: folder.database, seed: Seed.bundled(), author: "fan@laptop")
        #expect(try v8.teams() == before)
        let history = try v8.history(limit: 10)
        #expect(history.map(\.change.action) == [.edit, .tap])
        #expect(history[1].change.before?.wins == 0 && history[1].change.after?.wins == 1)
        try v8.undo(entryID: history[0].id)
        try v8.undoLast()
        #expect(try v8.team(named: "Ghana") == ghana)
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

    @Test("A v6 file holding teams and taps: v7 adds the history, the teams as they were")
    func migrationFromV6() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let v6 = try SQLiteTeamStore(databaseURL: folder.database, seed: Seed.bundled())
        let ghana = try #require(try v6.team(named: "Ghana"))
        try v6.tap(teamID: ghana.id!)
        let before = try v6.teams()
        try v6.database.write { db in
            try db.execute(sql: "DROP TABLE history; DELETE FROM grdb_migrations WHERE identifier IN ('v7', 'v8')")
        }
        try v6.database.close()
        let v7 = try SQLiteTeamStore(databaseURL: folder.database, seed: Seed.bundled(), author: "fan@laptop")
        #expect(try v7.teams() == before)
        #expect(try v7.history(limit: 10).isEmpty)
        try v7.tap(teamID: ghana.id!)
        #expect(try v7.history(limit: 10).map(\.by) == ["fan@laptop"])
        try v7.undoLast()
        #expect(try v7.teams() == before)
    }
}
