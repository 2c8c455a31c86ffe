@testable import WorldCup
@testable import WorldCupSQLite
import Foundation
import GRDB
import TestSupport
import Testing

@Suite("Seed import")
struct SeedTests {
    @Test("The repository's seed.json imports 32 teams")
    func importsSeed() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let scoreboard = try SQLiteTeamStore(databaseURL: folder.database, seedURL: Repository.seed)
        #expect(try scoreboard.teamCount() == 32)
        let teams = try scoreboard.teams()
        #expect(teams.count == 32)
        #expect(Set(teams.map(\.teamName)).count == 32)
        #expect(Set(teams.map(\.qualifyingZone)) == ["Africa", "Asia", "Europe", "North, Central America & Caribbean", "South America"])
        #expect(teams.allSatisfy { $0.wins == 0 && $0.id != nil })
        let brazil = try #require(try scoreboard.team(named: "Brazil"))
        #expect(brazil.qualifyingZone == "South America")
        #expect(brazil.imageName == "brazil-flag")
    }

    @Test("The built-in seed is seed.json, byte for byte, and seeds 32 teams")
    func builtInSeed() throws {
        // The EmbedSeed plugin builds seed.json into the module: exactly its text, not a copy
        // that could drift.
        #expect(Data(Seed.embeddedJSON.utf8) == (try Data(contentsOf: Repository.seed)))
        let teams = try Seed.bundled()
        #expect(teams.count == 32)
        #expect(teams == (try Seed.load(from: Repository.seed)))
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        #expect(try SQLiteTeamStore(databaseURL: folder.database, seed: teams).teamCount() == 32)
    }

    @Test("Opening again does not import again")
    func idempotent() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let first = try SQLiteTeamStore(databaseURL: folder.database, seedURL: Repository.seed)
        #expect(try first.teamCount() == 32)
        try first.tap(named: "Brazil")
        let second = try SQLiteTeamStore(databaseURL: folder.database, seedURL: Repository.seed)
        #expect(try second.teamCount() == 32)
        #expect(try second.team(named: "Brazil")?.wins == 1)
        // importSeed on a database that holds teams does nothing.
        #expect(try second.importSeed(Seed.load(from: Repository.seed)) == false)
        #expect(try second.teamCount() == 32)
        // Neither does a third open, nor an open without a seed.
        #expect(try SQLiteTeamStore(databaseURL: folder.database, seedURL: Repository.seed).teamCount() == 32)
        #expect(try SQLiteTeamStore(databaseURL: folder.database, seedURL: nil).teamCount() == 32)
    }

    /// A seeded database in a new folder, after another program ran `sql` on it.
    static func seeded(thenChangedBy sql: String) throws -> TemporaryFolder {
        let folder = try TemporaryFolder()
        _ = try SQLiteTeamStore(databaseURL: folder.database, seedURL: Repository.seed)
        let other = try DatabaseQueue(path: folder.database.path)
        try other.write { try $0.execute(sql: sql) }
        try other.close()
        return folder
    }

    @Test("A database with teams but no record of an import (filled by another program) is not seeded; one whose teams were all deleted is not seeded again")
    func seededByTeamsOrRecord() throws {
        let folder = try Self.seeded(thenChangedBy: "DELETE FROM seedImport; DELETE FROM team WHERE teamName <> 'Brazil'")
        defer { folder.remove() }
        let teams = try SQLiteTeamStore(databaseURL: folder.database, seedURL: Repository.seed)
        #expect(try teams.isSeeded())
        #expect(try teams.teamCount() == 1)

        let emptied = try Self.seeded(thenChangedBy: "DELETE FROM team")
        defer { emptied.remove() }
        #expect(try SQLiteTeamStore(databaseURL: emptied.database, seedURL: Repository.seed).teamCount() == 0)

        let fresh = try TemporaryFolder()
        defer { fresh.remove() }
        #expect(try SQLiteTeamStore(databaseURL: fresh.database, seedURL: nil).isSeeded() == false)
    }

    @Test("Without a seed URL a new database is empty")
    func noSeed() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        #expect(try SQLiteTeamStore(databaseURL: folder.database, seedURL: nil).teamCount() == 0)
    }

    @Test("The original book seed, with trailing commas, loads as is")
    func bookSeed() throws {
        let text = try String(contentsOf: Repository.bookSeed, encoding: .utf8)
        #expect(text.contains(",\n    }"), "the book seed is expected to have trailing commas")
        let teams = try Seed.load(from: Repository.bookSeed)
        #expect(teams.count == 32)
        #expect(teams == (try Seed.load(from: Repository.seed)))
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        #expect(try SQLiteTeamStore(databaseURL: folder.database, seedURL: Repository.bookSeed).teamCount() == 32)
    }

    /// A seed of the 32 teams with one bad entry at the end.
    nonisolated(unsafe) static let badEntries: [(String, [String: Any], String)] = [
        ("duplicate name", ["teamName": "Brazil", "qualifyingZone": "South America", "imageName": "x", "wins": 0], "twice"),
        ("duplicate name ignoring case", ["teamName": "brazil", "qualifyingZone": "South America", "imageName": "x", "wins": 0], "twice"),
        ("duplicate name after trimming", ["teamName": "  Brazil ", "qualifyingZone": "South America", "imageName": "x", "wins": 0], "twice"),
        ("negative wins", ["teamName": "Atlantis", "qualifyingZone": "Europe", "imageName": "x", "wins": -1], "negative"),
        ("blank name", ["teamName": "   ", "qualifyingZone": "Europe", "imageName": "x", "wins": 0], "empty"),
        ("blank zone", ["teamName": "Atlantis", "qualifyingZone": "", "imageName": "x", "wins": 0], "empty"),
        ("long name", ["teamName": String(repeating: "x", count: 65), "qualifyingZone": "Europe", "imageName": "x", "wins": 0], "64"),
        ("control character", ["teamName": "Atlan\u{7}tis", "qualifyingZone": "Europe", "imageName": "x", "wins": 0], "control"),
        ("missing field", ["teamName": "Atlantis", "qualifyingZone": "Europe", "wins": 0], "imageName"),
        ("wins as text", ["teamName": "Atlantis", "qualifyingZone": "Europe", "imageName": "x", "wins": "3"], "whole number"),
    ]

    @Test("A seed with a bad last entry imports nothing and says why in one sentence", arguments: badEntries.indices)
    func atomicImport(index: Int) throws {
        let (label, entry, keyword) = Self.badEntries[index]
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let seed = try writeSeed(seedObjects() + [entry], in: folder)
        let error = worldCupError { _ = try SQLiteTeamStore(databaseURL: folder.database, seedURL: seed) }
        let message = error?.description ?? ""
        #expect(isOneSentence(message), "\(label): \(message)")
        #expect(message.contains(keyword), "\(label): \(message)")
        #expect(message.contains("33") || !["negative", "empty", "64", "control"].contains(keyword), "\(label): the entry is named: \(message)")
        // Nothing was imported: the database is absent or empty.
        let reopened = try SQLiteTeamStore(databaseURL: folder.database, seedURL: nil)
        #expect(try reopened.teamCount() == 0, "\(label)")
        // A good seed still imports afterwards.
        #expect(try SQLiteTeamStore(databaseURL: folder.database, seedURL: Repository.seed).teamCount() == 32)
    }

    @Test("importSeed is one transaction: a row the database refuses rolls back the whole import")
    func importSeedRollsBack() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let scoreboard = try SQLiteTeamStore(databaseURL: folder.database, seedURL: nil)
        var teams = try Seed.load(from: Repository.seed)
        // importSeed trusts its input; the unique name key refuses the duplicate at the end.
        teams.append(SeedTeam(teamName: "BRAZIL", qualifyingZone: "South America", imageName: "x", wins: 0))
        let error = worldCupError { try scoreboard.importSeed(teams) }
        #expect(isOneSentence(error?.description ?? ""), "\(error?.description ?? "")")
        #expect(try scoreboard.teamCount() == 0)
        // Negative wins at the end are refused by the schema too.
        teams.removeLast()
        teams.append(SeedTeam(teamName: "Atlantis", qualifyingZone: "Europe", imageName: "x", wins: -3))
        _ = worldCupError { try scoreboard.importSeed(teams) }
        #expect(try scoreboard.teamCount() == 0)
    }

    @Test("Unreadable and malformed seeds are errors of one sentence", arguments: ["missing", "not json", "not a list", "empty list"])
    func badSeedFiles(kind: String) throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let url = folder.file("seed.json")
        switch kind {
        case "not json": try Data("this is { not json".utf8).write(to: url)
        case "not a list": try Data(#"{"teamName": "Brazil"}"#.utf8).write(to: url)
        case "empty list": try Data("[]".utf8).write(to: url)
        default: break
        }
        let error = worldCupError { _ = try Seed.load(from: url) }
        #expect(isOneSentence(error?.description ?? ""), "\(kind): \(error?.description ?? "")")
        let openError = worldCupError { _ = try SQLiteTeamStore(databaseURL: folder.database, seedURL: url) }
        #expect(openError == error)
    }
}
