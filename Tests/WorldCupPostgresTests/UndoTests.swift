import Foundation
import PostgresNIO
import PostgresSupport
import TeamStoreContract
import TestSupport
import Testing
import WorldCup
import LiveResults
import WorldCupPostgres

/// Undo, edit and the history on PostgreSQL: the rules both stores keep (UndoContract), the
/// migration from version 3 with data in it, and a spectator's refusals.
@Suite(.serialized) struct UndoTests {
    @Test func theUndoEditAndHistoryRulesOnOneServerSharedByTwoAuthors() async throws {
        var drops: [@Sendable () async -> Void] = []
        defer { for drop in drops { Task { await drop() } } }
        try await UndoContract.all {
            let database = try await FreshDatabase.make()
            drops.append(database.drop)
            _ = try PostgresTeamStore(location: database.location, seed: Seed.bundled())
            return { author in try PostgresTeamStore(location: database.location, seed: nil, author: author) }
        }
    }

    @Test func theUndoRulesAreWrittenOnceSoAnEditOfOneIsTheRuleThisStoreRuns() async throws {
        let database = try await FreshDatabase.make()
        defer { Task { await database.drop() } }
        _ = try PostgresTeamStore(location: database.location, seed: Seed.bundled())
        try RevertRuleContract.oneEditIsEveryStoresRule { author in try PostgresTeamStore(location: database.location, seed: nil, author: author) }
    }

    @Test func aVersionThreeBoardWithTeamsAndTapsGetsTheHistory() async throws {
        let database = try await FreshDatabase.make()
        defer { Task { await database.drop() } }
        // Version 3 as it was: no history; a tap recorded in the tap table.
        try await database.makeOlder(version: 3)
        try await database.execute(#"UPDATE team SET wins = wins + 1 WHERE "teamName" = 'Ghana'"#)
        try await database.execute(#"INSERT INTO tap (id, "teamID") SELECT gen_random_uuid(), id FROM team WHERE "teamName" = 'Ghana'"#)
        let store = try PostgresTeamStore(location: database.location, seed: Seed.bundled(), author: "fan@laptop")
        #expect(try await database.integer("SELECT version FROM worldcup_schema") == Int64(PostgresSchema.version))
        let ghana = try #require(try store.team(named: "Ghana"))
        #expect(ghana.wins == 1, "the teams as they were")
        #expect(try store.teamCount() == 32)
        #expect(try store.history(limit: 10).isEmpty)
        try store.edit(teamID: ghana.id!, name: "Gahna", zone: nil, wins: nil)
        #expect(try store.history(limit: 10).map(\.change.action) == [.edit])
        try store.undoLast()
        #expect(try store.team(named: "Ghana") == ghana)
    }

    @Test func aVersionFiveBoardWithZonesSpeltApartAndHistoryGetsTheZoneTable() async throws {
        let database = try await FreshDatabase.make()
        defer { Task { await database.drop() } }
        try await database.makeOlder(version: 5)
        for statement in [
            #"""
            INSERT INTO team ("teamName", "qualifyingZone", "imageName", wins, "nameKey", "nameSortKey") VALUES
                ('Atlantis', 'oceania', 'x', 2, 'atlantis', 'atlantis'), ('Lemuria', 'Oceania', 'x', 0, 'lemuria', 'lemuria'),
                ('Gone', 'Zeta', 'x', 0, 'gone', 'gone'), ('Mu', 'Zeta', 'x', 0, 'mu', 'mu')
            """#,
            #"DELETE FROM team WHERE "teamName" = 'Gone'"#,
            #"UPDATE team SET "qualifyingZone" = 'Asia' WHERE "teamName" = 'Ghana'"#,
            #"""
            INSERT INTO history ("writeID", author, action, "teamID", "teamName", "oldName", "oldZone", "oldImage", "oldWins",
                "newName", "newZone", "newImage", "newWins")
            SELECT gen_random_uuid(), 'fan@laptop', 'edit', id, 'Ghana', 'Ghana', 'Africa', "imageName", wins, 'Ghana', 'Asia', "imageName", wins
            FROM team WHERE "teamName" = 'Ghana'
            """#,
        ] { try await database.execute(statement) }
        let before = try await database.execute(#"SELECT id, "teamName", "qualifyingZone", wins FROM team ORDER BY id"#)
            .map { try $0.decode((Int64, String, String, Int32).self) }.map { "\($0.0) \($0.1) \($0.2 == "oceania" ? "Oceania" : $0.2) \($0.3)" }
        #expect(throws: WorldCupError("The database \(database.location.databaseAndServer) has an older worldcup schema, and a read-only board cannot set it up: open it once without --read-only.")) {
            try PostgresTeamStore(location: database.location, seed: nil, readOnly: true)
        }
        let store = try PostgresTeamStore(location: database.location, seed: Seed.bundled(), author: "fan@laptop")
        #expect(try await database.integer("SELECT version FROM worldcup_schema") == Int64(PostgresSchema.version))
        #expect(try store.zones().map(\.zone.name) == ["Africa", "Asia", "Europe", "North, Central America & Caribbean", "Oceania", "South America", "Zeta"])
        #expect(try store.zones().map(\.teamCount) == [4, 5, 13, 4, 2, 6, 1])
        #expect(try store.zones().map(\.zone.position) == Array(0..<7))
        #expect(try store.teams().sorted { $0.id! < $1.id! }.map { "\($0.id!) \($0.teamName) \($0.qualifyingZone) \($0.wins)" } == before)
        #expect(try store.history(limit: 5).map(\.change.summary) == ["Edited Ghana: zone Africa → Asia."])
        try store.undoLast()
        #expect(try store.team(named: "Ghana")?.qualifyingZone == "Africa")
        #expect(try await database.integer("""
            SELECT count(*) FROM pg_trigger t WHERE t.tgrelid = 'zone'::regclass AND t.tgname = 'liveresults_log'
            """) == 1, "the change log watches the zones")
        let merge = try store.mergeZone(named: "Zeta", into: "Oceania")
        #expect(try store.history(limit: 1).first.map { [$0.id, $0.change.zone?.zoneID] } == [merge.entryID, merge.zone?.zoneID])
        #expect(try store.history(limit: 1).first?.change.summary == "Merged Zeta into Oceania (1 team).")
        #expect(try PostgresTeamStore(location: database.location, seed: nil, readOnly: true).zones().count == 6)
    }

    @Test func aSpectatorRefusesEditAndUndo() async throws {
        let database = try await FreshDatabase.make()
        defer { Task { await database.drop() } }
        let store = try PostgresTeamStore(location: database.location, seed: Seed.bundled())
        let ghana = try #require(try store.team(named: "Ghana"))
        let watcher = try PostgresTeamStore(location: database.location, seed: nil, readOnly: true)
        let refusal = ReadOnlyBoard.asked.refusal
        #expect(throws: refusal) { try watcher.edit(teamID: ghana.id!, name: "X", zone: nil, wins: nil) }
        #expect(throws: refusal) { try watcher.undoLast() }
        let africa = try #require(try watcher.zone(named: "Africa"))
        #expect(throws: refusal) { try watcher.renameZone(zoneID: africa.id!, to: "CAF") }
        #expect(throws: refusal) { try watcher.moveZone(zoneID: africa.id!, to: 1) }
        #expect(throws: refusal) { try watcher.mergeZone(named: "Africa", into: "Asia") }
        #expect(try watcher.history(limit: 5).isEmpty)
    }

    @Test func anEditAndAnUndoCutMidStatementAreResentAndHappenOnce() async throws {
        let database = try await FreshDatabase.make()
        defer { Task { await database.drop() } }
        let store = try PostgresTeamStore(location: database.location, seed: Seed.bundled(), deadline: .seconds(60), author: "fan@laptop")
        let ghana = try #require(try store.team(named: "Ghana"))
        let edit = try await cutMidStatement(database, teamID: ghana.id!) {
            try store.edit(teamID: ghana.id!, name: nil, zone: nil, wins: 5)
        }
        #expect(edit.after?.wins == 5)
        #expect(try store.team(named: "Ghana")?.wins == 5)
        #expect(try await database.integer("SELECT count(*) FROM history WHERE action = 'edit'") == 1)
        let tap = try store.recordedTap(teamID: ghana.id!)
        let undo = try await cutMidStatement(database, teamID: ghana.id!) {
            try store.undo(tap)
        }
        #expect(undo.undid == .tap)
        #expect(try store.team(named: "Ghana")?.wins == 5, "one win off, not two")
        #expect(try await database.integer("SELECT count(*) FROM history WHERE action = 'undo'") == 1)
    }

    @Test func anUndoOnOneBoardReachesAnotherBoardsController() async throws {
        let database = try await FreshDatabase.make()
        defer { Task { await database.drop() } }
        let fan = try PostgresTeamStore(location: database.location, seed: Seed.bundled(), author: "fan@laptop")
        let guest = try PostgresTeamStore(location: database.location, seed: nil, author: "guest@pc")
        let controller = guest.makeController(fetchRequest: ResultsRequest(sortDescriptors: Team.boardOrder), sections: Team.boardSections,
                                              cacheName: nil, cacheDirectory: nil)
        try controller.performFetch()
        let ghana = try #require(try fan.team(named: "Ghana"))
        // Two taps and one undo: the other board ends with one win more, not two.
        try fan.tap(teamID: ghana.id!)
        try fan.undo(try fan.recordedTap(teamID: ghana.id!))
        var seen: Int?
        for _ in 0..<100 where seen != ghana.wins + 1 {
            try await Task.sleep(for: .milliseconds(50))
            try controller.processPendingChanges()
            seen = try controller.fetchedObjects.first { $0.id == ghana.id }?.wins
        }
        #expect(seen == ghana.wins + 1)
        #expect(try guest.history(limit: 1).first?.by == "fan@laptop")
    }

    @Test func twoConnectionsUndoingTheSameEntryAtOnceTakeItBackOnce() async throws {
        let database = try await FreshDatabase.make()
        defer { Task { await database.drop() } }
        let stores = try [PostgresTeamStore(location: database.location, seed: Seed.bundled(), author: "a@pc"),
                          PostgresTeamStore(location: database.location, seed: nil, author: "a@pc")]
        try UndoRace.undoTheSameEntry(stores, rounds: 300)
        #expect(try await database.integer(#"SELECT count(*) FROM history WHERE "undoneBy" IS NOT NULL"#) == 300)
    }

    @Test func randomChangesFromFourStoresLeaveAHistoryThatMarksChainsAndReplaysTrue() async throws {
        let database = try await FreshDatabase.make()
        defer { Task { await database.drop() } }
        _ = try PostgresTeamStore(location: database.location, seed: Seed.bundled())
        try HistoryTruthContract.check({ author in try PostgresTeamStore(location: database.location, seed: nil, author: author) },
                                       authors: ["a@pc", "a@pc", "b@pc", "c@pc"], steps: 150, seed: 40)
    }

    @Test(.timeLimit(.minutes(3)))
    func randomChangesWhileConnectionsAreCutLeaveAHistoryThatMarksChainsAndReplaysTrue() async throws {
        let database = try await FreshDatabase.make()
        defer { Task { await database.drop() } }
        _ = try PostgresTeamStore(location: database.location, seed: Seed.bundled())
        let stop = StopFlag()
        let terminator = OnThread { try terminateBackends(of: database, until: { stop.isSet }) }
        let checked = Result {
            try HistoryTruthContract.check({ author in try PostgresTeamStore(location: database.location, seed: nil, author: author) },
                                           authors: ["a@pc", "a@pc", "b@pc", "c@pc"], steps: 100, seed: 41, connectionsCut: true)
        }
        stop.set()
        #expect(try terminator.value() > 5)
        try checked.get()
    }

    @Test func aVersionFourHistoryKeepsEveryEntryAndATapGetsBothSides() async throws {
        let database = try await FreshDatabase.make()
        defer { Task { await database.drop() } }
        // Version 4 as it was: no reverts or refused columns, a tap's entry with its old side only.
        try await database.makeOlder(version: 4)
        try await database.execute(#"""
            UPDATE team SET wins = 1, "teamName" = 'Gahna', "nameKey" = 'gahna', "nameSortKey" = 'gahna' WHERE "teamName" = 'Ghana';
            """#)
        try await database.execute(#"""
            INSERT INTO history ("writeID", author, action, "teamID", "teamName", "oldName", "oldZone", "oldImage", "oldWins")
            SELECT gen_random_uuid(), 'fan@laptop', 'tap', id, 'Ghana', 'Ghana', 'Africa', "imageName", 0 FROM team WHERE "teamName" = 'Gahna'
            """#)
        try await database.execute(#"""
            INSERT INTO history ("writeID", author, action, "teamID", "teamName", "oldName", "oldZone", "oldImage", "oldWins",
                "newName", "newZone", "newImage", "newWins")
            SELECT gen_random_uuid(), 'fan@laptop', 'edit', id, 'Gahna', 'Ghana', 'Africa', "imageName", 1, 'Gahna', 'Africa', "imageName", 1
            FROM team WHERE "teamName" = 'Gahna'
            """#)
        let v5 = try PostgresTeamStore(location: database.location, seed: Seed.bundled(), author: "fan@laptop")
        #expect(try await database.integer("SELECT version FROM worldcup_schema") == Int64(PostgresSchema.version))
        #expect(try v5.teamCount() == 32)
        let history = try v5.history(limit: 10)
        #expect(history.map(\.change.action) == [.edit, .tap])
        #expect(try await database.integer(#"SELECT "newWins"::int8 FROM history WHERE action = 'tap'"#) == 1)
        try v5.undo(entryID: history[0].id)
        try v5.undoLast()
        #expect(try v5.team(named: "Ghana")?.wins == 0)
        #expect(try v5.team(named: "Ghana")?.qualifyingZone == "Africa")
    }

    @Test func theHistoryKeepsTheNewestEntriesAndTheLastHours() async throws {
        let database = try await FreshDatabase.make()
        defer { Task { await database.drop() } }
        _ = try PostgresTeamStore(location: database.location, seed: Seed.bundled())
        // Old entries, two days ago, as many as the bound and more; then a few of this hour.
        try await database.execute("""
            INSERT INTO history ("writeID", at, author, action, "teamID", "teamName")
            SELECT gen_random_uuid(), now() - interval '2 days', 'old', 'tap', 1, 'Brazil' FROM generate_series(1, \(HistoryEntry.retainedCount + 150))
            """)
        try await database.execute("""
            INSERT INTO history ("writeID", author, action, "teamID", "teamName")
            SELECT gen_random_uuid(), 'recent', 'tap', 1, 'Brazil' FROM generate_series(1, 20)
            """)
        // A write whose entry's id is not a multiple of the interval prunes nothing...
        let store = try PostgresTeamStore(location: database.location, seed: nil, author: "fan@laptop")
        try await database.execute("SELECT setval(pg_get_serial_sequence('history', 'id'), (SELECT (max(id) / \(HistoryEntry.pruneInterval) + 1) * \(HistoryEntry.pruneInterval) - 2 FROM history))")
        try store.tap(named: "Brazil")
        #expect(try await database.integer("SELECT count(*) FROM history") == Int64(HistoryEntry.retainedCount + 150 + 20 + 1))
        // ...and the next, whose is, prunes in its own statement: the newest entries as many as
        // the bound stay (those of the last hour among them), the older ones go.
        try store.tap(named: "Brazil")
        let newest = try #require(try await database.integer("SELECT max(id) FROM history"))
        #expect(newest % HistoryEntry.pruneInterval == 0)
        #expect(try await database.integer("SELECT min(id) FROM history") == newest - Int64(HistoryEntry.retainedCount) + 1)
        #expect(try await database.integer("SELECT count(*) FROM history WHERE author <> 'old'") == 22, "this hour's entries all stay")
        #expect(try store.history(limit: 1).first?.by == "fan@laptop")
    }
}
