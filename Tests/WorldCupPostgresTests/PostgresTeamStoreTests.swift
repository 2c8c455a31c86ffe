import Foundation
import LiveResults
import LiveResultsPostgres
import PostgresNIO
import PostgresSupport
import TestSupport
import Testing
import WorldCup
import WorldCupPostgres
import WorldCupSQLite

/// PostgresTeamStore on the test server: what SQLiteTeamStore does, the same sentences.
@Suite(.serialized) struct PostgresTeamStoreTests {
    @Test func firstUseBuildsTheSchemaAndSeedsTheBoard() async throws {
        let database = try await FreshDatabase.make()
        defer { Task { await database.drop() } }
        let store = try PostgresTeamStore(location: database.location, seed: Seed.bundled())
        #expect(try store.teamCount() == 32)
        let teams = try store.teams()
        let sqlite = try SQLiteTeamStore(databaseURL: TemporaryFolder().url.appendingPathComponent("w.sqlite"), seed: Seed.bundled()).teams()
        #expect(teams.map(\.teamName) == sqlite.map(\.teamName))
        #expect(try await database.tables() == ["history", "liveresults_change", "liveresults_change_pruned", "seedImport", "tap", "team", "worldcup_schema", "zone"])
        #expect(try await database.integer("SELECT version FROM worldcup_schema") == Int64(PostgresSchema.version))
        #expect(store.location == database.location.description)
        // Opened again: nothing imported twice.
        _ = try PostgresTeamStore(location: database.location, seed: Seed.bundled())
        #expect(try store.teamCount() == 32)
    }

    @Test func aVersionOneBoardMovesToTheTableOwnTrigger() async throws {
        let database = try await FreshDatabase.make()
        defer { Task { await database.drop() } }
        try await database.makeOlder(version: 1)
        // Version 1's row trigger ran a function shared by every table; what it ran does not
        // matter here, only that opening moves the board to version 2's.
        _ = try await database.execute("DROP TRIGGER liveresults_log ON team")
        let store = try PostgresTeamStore(location: database.location, seed: Seed.bundled())
        #expect(try await database.integer("SELECT version FROM worldcup_schema") == Int64(PostgresSchema.version))
        #expect(try await database.integer("""
            SELECT count(*) FROM pg_trigger t JOIN pg_proc p ON p.oid = t.tgfoid
            WHERE t.tgrelid = 'team'::regclass AND t.tgname = 'liveresults_log' AND p.proname = 'liveresults_log_team'
            """) == 1)
        let before = try await database.integer("SELECT count(*) FROM liveresults_change") ?? 0
        _ = try store.tap(teamID: try store.teams()[0].id!)
        #expect(try await database.integer("SELECT count(*) FROM liveresults_change") == before + 1)
        #expect(try store.teamCount() == 32)
    }

    @Test func aVersionTwoBoardWithTeamsGetsItsNameSortKeysAndTheNewIndex() async throws {
        let database = try await FreshDatabase.make()
        defer { Task { await database.drop() } }
        try await database.makeOlder(version: 2)
        // Version 2's team table and board index, as that version made them.
        for statement in [
            "DROP INDEX \(PostgresSchema.boardIndexName)",
            #"ALTER TABLE team DROP COLUMN "nameSortKey""#,
            #"""
            CREATE INDEX team_in_scoreboard_order ON team ("qualifyingZone" COLLATE "C" ASC NULLS FIRST, wins DESC NULLS LAST,
                "teamName" COLLATE "C" ASC NULLS FIRST, id ASC) INCLUDE ("nameKey")
            """#,
            "UPDATE worldcup_schema SET version = 2",
        ] + (try PostgresChangeLog.installStatements(on: "team")) + [
            // (The log without the columns its notifications carry now: the name key is gone.)
            // Switzerland, of the seed, moves to Africa with the others.
            #"DELETE FROM team WHERE "teamName" = 'Switzerland'"#,
        ] { _ = try await database.execute(statement) }
        for (name, wins) in [("Switzerland", 40), ("alpha", 40), ("E\u{301}moji", 40), ("\u{C5}land", 40), ("Emoji", 40)] {
            _ = try await database.execute("""
                INSERT INTO team ("teamName", "qualifyingZone", "imageName", wins, "nameKey") VALUES ('\(name)', 'Africa', 'x', \(wins), '\(Team.nameKey(name))')
                """)
        }
        let store = try PostgresTeamStore(location: database.location, seed: Seed.bundled())
        #expect(try await database.integer("SELECT version FROM worldcup_schema") == Int64(PostgresSchema.version))
        #expect(try store.teams().prefix(5).map(\.teamName) == ["\u{C5}land", "alpha", "Emoji", "E\u{301}moji", "Switzerland"])
        #expect(try await database.integer(#"SELECT count(*) FROM team WHERE "nameSortKey" = ''"#) == 0)
        let keys = try await database.execute(#"SELECT "teamName", "nameSortKey" FROM team"#).map { try $0.decode((String, String).self) }
        #expect(keys.count == 36)
        for (name, key) in keys { #expect(key == Team.nameSortKey(name), "\(name)") }
        let index = try await database.execute("SELECT indexdef FROM pg_indexes WHERE indexname = '\(PostgresSchema.boardIndexName)'")
            .map { try $0.decode(String.self) }
        #expect(index.count == 1 && index[0].contains(#""nameSortKey" COLLATE "C""#), "\(index)")
        // The board's own order agrees with the controller's, which sorts as SQLite does.
        let controller = store.makeController(fetchRequest: ResultsRequest<Team>(sortDescriptors: Team.boardOrder),
                                              sections: Team.boardSections, cacheName: nil, cacheDirectory: nil)
        try controller.performFetch()
        #expect(try controller.fetchedObjects.map(\.teamName) == (try store.teams()).map(\.teamName))
    }

    @Test("Version 8 folds the typographic apostrophes of the stored sort keys, through the change log, so the filter finds d'ivoire")
    func aVersionSevenBoardFoldsTheApostrophesOfItsSortKeys() async throws {
        let database = try await FreshDatabase.make()
        defer { Task { await database.drop() } }
        let name = "C\u{F4}te d\u{2019}Ivoire"
        _ = try PostgresTeamStore(location: database.location, seed: Seed.bundled()).add(name: name, zone: "Africa")
        // As version 7 stored it: the apostrophe as typed.
        let before = Team.foldedCaseAndAccents(name) + "\u{1}" + Team.nameKey(name)
        _ = try await database.execute(#"UPDATE team SET "nameSortKey" = '\#(before)' WHERE "teamName" = '\#(name)'"#)
        _ = try await database.execute("UPDATE worldcup_schema SET version = 7")
        let logged = try await database.integer("SELECT count(*) FROM liveresults_change") ?? 0
        let store = try PostgresTeamStore(location: database.location, seed: Seed.bundled())
        #expect(try await database.integer("SELECT version FROM worldcup_schema") == 8)
        let keys = try await database.execute(#"SELECT "teamName", "nameSortKey" FROM team"#).map { try $0.decode((String, String).self) }
        for (name, key) in keys { #expect(key == Team.nameSortKey(name), "\(name)") }
        #expect(keys.first { $0.0 == name }?.1.hasPrefix("cote d'ivoire") == true)
        #expect(try await database.integer("SELECT count(*) FROM liveresults_change") == logged + 1, "one row refolded, logged")
        #expect(try store.teamCount() == 33)
    }

    @Test func namesInReadingOrderAndZonesInTheBoardsSpelling() async throws {
        let database = try await FreshDatabase.make()
        defer { Task { await database.drop() } }
        let store = try PostgresTeamStore(location: database.location, seed: Seed.bundled())
        // Switzerland, of the seed, moves to the new zone with the others.
        try store.delete(named: "Switzerland")
        for name in ["Switzerland", "Émoji", "alpha", "Emoji", "Åland"] { try store.add(name: name, zone: "ZED") }
        #expect(try store.teams().suffix(5).map(\.teamName) == ["Åland", "alpha", "Emoji", "Émoji", "Switzerland"])
        #expect(try store.add(name: "Egypt", zone: "africa").qualifyingZone == "Africa")
        #expect(try store.add(name: "Fiji", zone: "Zed").qualifyingZone == "ZED")
        #expect(try store.add(name: "Aruba", zone: "south AMERICA").qualifyingZone == "South America")
        #expect(Set(try store.teams().map(\.qualifyingZone)) == Set(try Seed.bundled().map(\.qualifyingZone)).union(["ZED"]))
        #expect(try store.teams().filter { $0.qualifyingZone == "ZED" }.count == 6)
    }

    @Test func anEmptiedBoardIsNotSeededAgain() async throws {
        let database = try await FreshDatabase.make()
        defer { Task { await database.drop() } }
        let store = try PostgresTeamStore(location: database.location, seed: Seed.bundled())
        for team in try store.teams() { try store.delete(teamID: team.id!) }
        _ = try PostgresTeamStore(location: database.location, seed: Seed.bundled())
        #expect(try store.teamCount() == 0)
    }

    @Test func tapAddDeleteAndTheirSentences() async throws {
        let database = try await FreshDatabase.make()
        defer { Task { await database.drop() } }
        let store = try PostgresTeamStore(location: database.location, seed: Seed.bundled())
        let brazil = try #require(try store.team(named: "  bRAZIL "))
        let tapped = try store.tap(named: "brazil")
        #expect(tapped.wins == brazil.wins + 1)
        #expect(try store.team(named: "Brazil")?.wins == brazil.wins + 1)

        let added = try store.add(name: " Curaçao ", zone: "CONCACAF")
        #expect(added.teamName == "Curaçao")
        #expect(added.imageName == Team.secretImageName)
        #expect(added.wins == 0)
        #expect(try store.team(named: "CURAC\u{327}AO")?.id == added.id)
        #expect(throws: WorldCupError("A team named “Curaçao” already exists.")) { try store.add(name: "curaçao", zone: "UEFA") }
        #expect(throws: WorldCupError("The team name is empty.")) { try store.add(name: "  ", zone: "UEFA") }
        #expect(throws: WorldCupError("The qualifying zone contains control characters.")) { try store.add(name: "X", zone: "U\u{1B}[31m") }
        // What looks like SQL is stored as typed.
        let sql = try store.add(name: "Robert'); DROP TABLE team;--", zone: "UEFA")
        #expect(try store.team(named: sql.teamName)?.id == sql.id)

        let deleted = try store.delete(named: "curaçao")
        #expect(deleted.id == added.id)
        #expect(throws: WorldCupError("There is no team named “Curaçao”.")) { try store.delete(named: "Curaçao") }
        #expect(throws: WorldCupError("That team no longer exists.")) { try store.delete(teamID: added.id!) }
        #expect(throws: WorldCupError("That team no longer exists.")) { try store.tap(teamID: added.id!) }
        #expect(try store.teamCount() == 33)
    }

    @Test func theControllerFollowsTapsAndTheNameFilter() async throws {
        let database = try await FreshDatabase.make()
        defer { Task { await database.drop() } }
        let store = try PostgresTeamStore(location: database.location, seed: Seed.bundled())
        let request = ResultsRequest<Team>(sortDescriptors: Team.boardOrder)
        let controller = store.makeController(fetchRequest: request, sections: Team.boardSections, cacheName: "ignored", cacheDirectory: nil)
        try controller.performFetch()
        #expect(try controller.fetchedObjects.map(\.teamName) == (try store.teams()).map(\.teamName))

        // The board's / filter: in memory, on the folded names.
        let filter = store.makeController(fetchRequest: request, sections: Team.boardSections, cacheName: nil, cacheDirectory: nil)
        try filter.setFilter(.contains(Team.nameKey("ÇA"), inColumn: "nameKey"))
        try filter.performFetch()
        #expect(try filter.fetchedObjects.map(\.teamName) == [])
        try store.add(name: "Curac\u{327}ao", zone: "CONCACAF")
        try filter.performFetch()
        #expect(try filter.fetchedObjects.map(\.teamName) == ["Curaçao"])
    }

    /// Records each batch's changed sections and rows (kinds, names, ids).
    final class Batches: ResultsControllerDelegate {
        typealias Record = Team
        var batches: [[String]] = []
        func controllerWillChangeContent(_ controller: ResultsController<Team>) { batches.append([]) }
        func controller(_ controller: ResultsController<Team>, didChangeRecordWithID id: RecordID, at indexPath: IndexPath?,
                        for type: ChangeKind, newIndexPath: IndexPath?) {
            batches[batches.count - 1].append("\(type) \(id)")
        }
        func controller(_ controller: ResultsController<Team>, didChange section: SectionInfo, atSectionIndex sectionIndex: Int, for type: ChangeKind,
                        newSectionIndex: Int?) {
            batches[batches.count - 1].append("section \(type) \(section.name) \(sectionIndex)→\(newSectionIndex.map(String.init) ?? "-")")
        }
        func controllerDidResetContent(_ controller: ResultsController<Team>) { batches.append(["reset"]) }
        func take() -> [[String]] {
            defer { batches = [] }
            return batches
        }
    }

    @Test func theBoardsOwnTapAddAndDeleteArePendingWhenTheyReturn() async throws {
        let database = try await FreshDatabase.make()
        defer { Task { await database.drop() } }
        let store = try PostgresTeamStore(location: database.location, seed: Seed.bundled())
        let controller = store.makeController(fetchRequest: ResultsRequest<Team>(sortDescriptors: Team.boardOrder),
                                              sections: Team.boardSections, cacheName: nil, cacheDirectory: nil)
        let batches = Batches()
        controller.delegate = batches
        controller.changeLogPollInterval = .zero
        try controller.performFetch()
        // Without a look at the log: the statements' own answers told the controller.
        let brazil = try #require(try store.team(named: "Brazil"))
        let tapID = UUID()
        #expect(try store.tap(teamID: brazil.id!, tapID: tapID).wins == brazil.wins + 1)
        try controller.processPendingChanges()
        #expect(batches.take().map { $0.filter { $0.hasSuffix(" \(brazil.id!)") }.count } == [1], "the tap, in one batch")
        #expect(try controller.object(at: try #require(controller.indexPath(for: brazil.id!))).wins == brazil.wins + 1)
        // The same tap again counts nothing and reports nothing.
        _ = try store.tap(teamID: brazil.id!, tapID: tapID)
        let added = try store.add(name: "Kosovo", zone: "Europe")
        try controller.processPendingChanges()
        #expect(batches.take() == [["insert \(added.id!)"]])
        try store.delete(teamID: added.id!)
        try controller.processPendingChanges()
        #expect(batches.take() == [["delete \(added.id!)"]])
        // A team in a zone its add makes: the zone's commit (which renumbers the zones after
        // it) comes first, so the log brings both, the section in its place among the others.
        // The renumbering is an order-only change of South America's zone row (rule 11: a
        // section update). Whether the zone's commit is a batch of its own depends on whether
        // its notification was taken before the add's answer was: alone, South America keeps
        // its place while Oceania has no team; together, it is updated and moves past Oceania.
        let tahiti = try store.add(name: "Tahiti", zone: "Oceania")
        try controller.processPendingChanges()
        try controller.refresh()
        let zoneThenTeam = [["section update South America 4→4"], ["section insert Oceania 4→-", "insert \(tahiti.id!)"]]
        let together = [["section insert Oceania 4→-", "section update South America 4→5", "insert \(tahiti.id!)"]]
        let taken = batches.take()
        #expect(taken == zoneThenTeam || taken == together, "\(taken)")
        // The log brings the same commits: nothing more.
        try controller.refresh()
        #expect(batches.take() == [])
        #expect(try controller.fetchedObjects.map(\.teamName) == (try store.teams()).map(\.teamName))
    }

    @Test func resetReplacesEveryTeamWithTheSeed() async throws {
        let database = try await FreshDatabase.make()
        defer { Task { await database.drop() } }
        let store = try PostgresTeamStore(location: database.location, seed: Seed.bundled())
        try store.tap(named: "Brazil")
        try store.add(name: "Secret", zone: "UEFA")
        #expect(PostgresTeamStore.condition(of: database.location) == "The database \(database.location.databaseAndServer) passed its check and holds 33 teams.")
        #expect(try PostgresTeamStore.reset(location: database.location, seed: Seed.bundled(), author: "resetter@test") == 32)
        #expect(try store.team(named: "Secret") == nil)
        #expect(try store.teamCount() == 32)
        #expect(try store.team(named: "Brazil")?.wins == (try Seed.bundled().first { $0.teamName == "Brazil" }?.wins))
        // The history names who reset the board, as boards open on it read it.
        let entry = try #require(try store.history(limit: 1).first)
        #expect(entry.by == "resetter@test" && entry.change.action == .reset)
        #expect(entry.change.summary == "Reset the board to the seed's teams.")
    }

    @Test func checkSaysWhatIsThere() async throws {
        let database = try await FreshDatabase.make()
        defer { Task { await database.drop() } }
        #expect(try PostgresTeamStore.check(location: database.location) == .init(version: nil, teamCount: nil))
        #expect(try await database.tables() == [], "check created nothing")
        _ = try PostgresTeamStore(location: database.location, seed: Seed.bundled())
        #expect(try PostgresTeamStore.check(location: database.location) == .init(version: PostgresSchema.version, teamCount: 32))
        try await database.execute("DROP TRIGGER liveresults_log ON team")
        #expect(throws: WorldCupError("The database \(database.location.databaseAndServer) has lost the change log's triggers on its teams: it is not a sound worldcup scoreboard.")) {
            try PostgresTeamStore.check(location: database.location)
        }
    }
}
