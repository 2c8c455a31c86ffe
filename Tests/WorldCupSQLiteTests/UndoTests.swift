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
        let tapped = try store.tap(teamID: ghana.id!)
        let watcher = try SQLiteTeamStore(readOnlyDatabaseURL: folder.database)
        let refusal = ReadOnlyBoard.asked.refusal
        #expect(throws: refusal) { try watcher.edit(teamID: ghana.id!, name: "X", zone: nil, wins: nil) }
        #expect(throws: refusal) { try watcher.undo(TeamChange(action: .tap, before: ghana, after: tapped)) }
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

    @Test("A v6 file holding teams and taps: v7 adds the history, the teams as they were")
    func migrationFromV6() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let v6 = try SQLiteTeamStore(databaseURL: folder.database, seed: Seed.bundled())
        let ghana = try #require(try v6.team(named: "Ghana"))
        try v6.tap(teamID: ghana.id!)
        let before = try v6.teams()
        try v6.database.write { db in
            try db.execute(sql: "DROP TABLE history; DELETE FROM grdb_migrations WHERE identifier = 'v7'")
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
