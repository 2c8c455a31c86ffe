import Foundation
import GRDB
import Glibc
import Testing
import TestSupport

/// `worldcup reset`: replaces only when asked, and then completely.
@Suite("worldcup reset")
struct ResetTests {
    /// Runs `worldcup` with a pseudo-terminal as standard input, typing `answer` into it.
    static func runOnTerminal(_ arguments: [String], answer: String) throws -> (status: Int32, out: String, err: String) {
        var primary: Int32 = -1
        var replica: Int32 = -1
        try #require(openpty(&primary, &replica, nil, nil, nil) == 0)
        defer { close(primary) }
        let typed = Array(answer.utf8)
        #expect(write(primary, typed, typed.count) == typed.count)
        let terminal = FileHandle(fileDescriptor: replica, closeOnDealloc: true)
        return try Executable.run(arguments, input: terminal)
    }

    /// A database damaged beyond opening: its first page is text.
    static func damagedDatabase(in folder: TemporaryFolder) throws -> URL {
        let url = emptyFile(folder.database)
        let made = try Executable.run(["tap", "Brazil", "--database", url.path])
        try #require(made.status == 0, "\(made.err)")
        let handle = try FileHandle(forWritingTo: url)
        try handle.write(contentsOf: Data("not a database any more".utf8))
        try handle.close()
        return url
    }

    static func teams(_ url: URL) throws -> [String: Int] {
        let result = try Executable.run(["list", "--json", "--database", url.path])
        try #require(result.status == 0, "\(result.err)")
        struct Listed: Decodable { var teamName: String; var wins: Int }
        let listed = try JSONDecoder().decode([Listed].self, from: Data(result.out.utf8))
        return Dictionary(uniqueKeysWithValues: listed.map { ($0.teamName, $0.wins) })
    }

    @Test("--yes replaces a damaged file with the seed's 32 teams")
    func yesReplacesDamaged() throws {
        let folder = try TemporaryFolder(prefix: "DurabilityTests")
        defer { folder.remove() }
        let url = try Self.damagedDatabase(in: folder)
        let result = try Executable.run(["reset", "--yes", "--database", url.path])
        #expect(result.status == 0 && result.err.isEmpty, "\(result.err)")
        #expect(result.out == "Reset \(url.path) to the 32 teams of the seed.\n")
        let teams = try Self.teams(url)
        #expect(teams.count == 32 && teams.values.allSatisfy { $0 == 0 })
        // Nothing is left beside it but the database (and its WAL files while open).
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.url.path)
        #expect(names.allSatisfy { $0.hasPrefix("WorldCup.sqlite") }, "\(names)")
    }

    @Test("Without a terminal and without --yes it refuses, and the file stays as it was")
    func refusesWithoutTerminal() throws {
        let folder = try TemporaryFolder(prefix: "DurabilityTests")
        defer { folder.remove() }
        _ = try Self.damagedDatabase(in: folder)
        let before = folder.snapshot()
        let result = try Executable.run(["reset", "--database", folder.database.path])
        expectError(result, mentions: ["--yes"], "reset without a terminal")
        #expect(folder.snapshot() == before)
    }

    @Test("On a terminal it asks; y resets", arguments: ["y\n", "yes\n", "Y\n"])
    func terminalYes(answer: String) throws {
        let folder = try TemporaryFolder(prefix: "DurabilityTests")
        defer { folder.remove() }
        let url = try Self.damagedDatabase(in: folder)
        let result = try Self.runOnTerminal(["reset", "--database", url.path], answer: answer)
        #expect(result.status == 0, "\(result.err)")
        #expect(result.err.contains("[y/N]"))
        #expect(try Self.teams(url).count == 32)
    }

    @Test("On a terminal it asks; anything but yes keeps the file", arguments: ["n\n", "\n", "nope\n"])
    func terminalNo(answer: String) throws {
        let folder = try TemporaryFolder(prefix: "DurabilityTests")
        defer { folder.remove() }
        let url = emptyFile(folder.database)
        #expect(try Executable.run(["tap", "Brazil", "--database", url.path]).status == 0)
        let before = folder.snapshot()
        let result = try Self.runOnTerminal(["reset", "--database", url.path], answer: answer)
        #expect(result.status != 0)
        #expect(result.err.hasSuffix("[y/N] Error: Nothing was reset.\n"), "\(result.err)")
        #expect(folder.snapshot() == before)
        #expect(try Self.teams(url)["Brazil"] == 1)
    }

    @Test("Before asking, it checks the old file in full and says what it holds, or that it is damaged")
    func saysWhatItReplaces() throws {
        let folder = try TemporaryFolder(prefix: "DurabilityTests")
        defer { folder.remove() }
        let url = emptyFile(folder.file("WorldCup.sqlite"))
        #expect(try Executable.run(["tap", "Brazil", "--database", url.path]).status == 0)
        let sound = try Self.runOnTerminal(["reset", "--database", url.path], answer: "n\n")
        #expect(sound.err.hasPrefix("The database \(url.path) passed its check and holds 32 teams.\nReplace "), "\(sound.err)")
        // Damage only the full check finds: the prompt says so, without the hint about reset.
        try CheckTests.scribble(on: CheckTests.rootPage(of: "sqlite_autoindex_team_1", in: url), in: url)
        let before = folder.snapshot()
        let damaged = try Self.runOnTerminal(["reset", "--database", url.path], answer: "n\n")
        #expect(damaged.err.hasPrefix("The database \(url.path) is damaged (its quick check failed).\nReplace "), "\(damaged.err)")
        #expect(folder.snapshot() == before)
    }

    @Test("Reset after kill -9 ignores the old -wal: the new file is whole and fresh")
    func resetAfterCrash() throws {
        let folder = try TemporaryFolder(prefix: "DurabilityTests")
        defer { folder.remove() }
        let url = folder.database
        _ = try killTapLoop(on: url, afterAcknowledged: 300)
        #expect(FileManager.default.fileExists(atPath: url.path + "-wal"), "a killed writer leaves its WAL")

        let result = try Executable.run(["reset", "--yes", "--database", url.path])
        #expect(result.status == 0, "\(result.err)")
        #expect(try Self.teams(url)["Brazil"] == 0)
        let queue = try DatabaseQueue(path: url.path)
        #expect(try queue.read { try String.fetchAll($0, sql: "PRAGMA integrity_check") } == ["ok"])
        try queue.close()
    }

    @Test("Reset refuses a folder and a bad seed, and changes nothing")
    func refusals() throws {
        let folder = try TemporaryFolder(prefix: "DurabilityTests")
        defer { folder.remove() }
        try FileManager.default.createDirectory(at: folder.file("db.sqlite"), withIntermediateDirectories: false)
        let url = try Self.damagedDatabase(in: folder)
        try Data("[]".utf8).write(to: folder.file("empty.json"))
        let before = folder.snapshot()
        expectError(try Executable.run(["reset", "--yes", "--database", folder.file("db.sqlite").path]), mentions: ["folder"], "folder")
        expectError(try Executable.run(["reset", "--yes", "--database", url.path, "--seed", folder.file("empty.json").path]), mentions: ["no teams"], "empty seed")
        #expect(folder.snapshot() == before)
    }
}
