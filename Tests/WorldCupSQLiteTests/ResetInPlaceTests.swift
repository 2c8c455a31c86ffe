import Foundation
import Testing
import TestSupport
import WorldCup
@testable import WorldCupSQLite

@Suite("SQLiteTeamStore.reset in place")
struct ResetInPlaceTests {
    @Test("A store open on the file during a reset reads the seed after it, and its taps land in the file a new opening reads")
    func anOpenStoreFollowsTheReset() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let open = try seededScoreboard(folder)
        defer { try? open.database.close() }
        try open.tap(named: "Brazil")
        try open.add(name: "Atlantis", zone: "Oceania")

        #expect(try SQLiteTeamStore.reset(databaseURL: folder.database, seed: Seed.bundled(), author: "resetter@test") == 32)
        #expect(try open.teamCount() == 32)
        #expect(try open.team(named: "Brazil")?.wins == 0)
        #expect(try open.team(named: "Atlantis") == nil)
        #expect(try open.zones().map(\.zone.name).contains("Oceania") == false)

        try open.tap(named: "Ghana")
        let fresh = try SQLiteTeamStore(databaseURL: folder.database, seedURL: nil)
        defer { try? fresh.database.close() }
        #expect(try fresh.teams().filter { $0.wins > 0 }.map(\.teamName) == ["Ghana"])
        // The history is kept, as on PostgreSQL, and goes on after the reset.
        #expect(try fresh.history(limit: 1).first.map { "\($0.change.action) \($0.change.teamName)" } == "tap Ghana")
    }

    @Test("The history records who reset the board, in one entry that reads well and is never taken back")
    func theHistoryNamesWhoReset() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let open = try seededScoreboard(folder)
        defer { try? open.database.close() }
        try open.tap(named: "Brazil")
        try SQLiteTeamStore.reset(databaseURL: folder.database, seed: Seed.bundled(), author: "resetter@test")
        let entry = try #require(try open.history(limit: 1).first)
        #expect(entry.by == "resetter@test" && entry.change.action == .reset)
        #expect(entry.change.summary == "Reset the board to the seed's teams.")
        #expect(!open.ownEntries.contains(entry.id), "another program's entry, for the boards open on the file")
        let json = try #require(try JSONSerialization.jsonObject(with: HistoryEntry.json([entry])) as? [[String: Any]])
        #expect(json.first?["action"] as? String == "reset" && json.first?["team"] == nil)
        let resetter = try SQLiteTeamStore(databaseURL: folder.database, seedURL: nil, author: "resetter@test")
        defer { try? resetter.database.close() }
        let refusal = #expect(throws: Refusal.self) { try resetter.undo(entryID: entry.id) }
        #expect(refusal?.description == "A reset is not taken back: the teams before it are gone.")
    }

    @Test("A change from before the reset cannot be taken back: its team is gone")
    func undoBeforeTheResetIsRefused() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let open = try seededScoreboard(folder)
        defer { try? open.database.close() }
        try open.tap(named: "Brazil")
        try SQLiteTeamStore.reset(databaseURL: folder.database, seed: Seed.bundled())
        #expect(throws: (any Error).self) { try open.undoLast() }
        #expect(try open.team(named: "Brazil")?.wins == 0)
    }
}
