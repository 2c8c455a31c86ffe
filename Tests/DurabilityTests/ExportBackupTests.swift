import Foundation
import GRDB
import Glibc
import Testing
import TestSupport
import WorldCup

/// `worldcup export` and `worldcup backup` through the binary: their formats, their files
/// (never half written, never over an existing one unless told), and copies of a board that
/// another process is tapping, which hold every tap acknowledged before they began.
@Suite("Export and backup")
struct ExportBackupTests {
    /// Brazil's wins in a SQLite file, and its integrity check.
    static func brazil(in file: URL) throws -> (wins: Int?, integrity: String) {
        try CrashTests.inspect(file)
    }

    @Test("Backup and export of a board another process is tapping hold every tap acknowledged before they began")
    func copiesWhileTapping() throws {
        let folder = try TemporaryFolder(prefix: "DurabilityTests")
        defer { folder.remove() }
        let database = folder.database
        let (process, out, _) = try startTapLoop(on: database, taps: 1_000_000)
        defer {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        let taps = TapAcknowledgements(out)
        for round in 1...3 {
            let before = try taps.wait(forTotal: round * 300)
            let copy = folder.file("backup-\(round).sqlite")
            let backup = try Executable.run(["backup", copy.path, "--database", database.path])
            #expect(backup.status == 0 && backup.err.isEmpty, "\(backup.err)")
            #expect(backup.out == "Backed up 32 teams to \(copy.path).\n")
            let (wins, integrity) = try Self.brazil(in: copy)
            #expect(integrity == "ok")
            #expect((wins ?? 0) >= before, "acknowledged \(before) before the backup, the copy holds \(wins.map(String.init) ?? "none")")
            // The copy is a board of its own, sound, in one file.
            #expect(try Executable.run(["check", "--database", copy.path]).status == 0)
            #expect(!FileManager.default.fileExists(atPath: copy.path + "-wal"))

            let exportedBefore = try taps.wait(forTotal: round * 300 + 100)
            let export = try Executable.run(["export", "--json", "--database", database.path])
            #expect(export.status == 0, "\(export.err)")
            let teams = try JSONDecoder().decode([SeedTeam].self, from: Data(export.out.utf8))
            #expect(teams.count == 32)
            let exported = try #require(teams.first { $0.teamName == "Brazil" })
            #expect(exported.wins >= exportedBefore, "acknowledged \(exportedBefore) before the export, it holds \(exported.wins)")
        }
        #expect(process.isRunning, "the taps went on throughout")
        // Nothing of the copies' temporary files is left.
        let left = try FileManager.default.contentsOfDirectory(atPath: folder.url.path).filter { $0.contains("partial") }
        #expect(left.isEmpty, "\(left)")
    }

    @Test("export: CSV with a header and quotes where needed, JSON as list --json, to standard output or a new file")
    func exportFormats() throws {
        let folder = try TemporaryFolder(prefix: "DurabilityTests")
        defer { folder.remove() }
        let database = emptyFile(folder.database).path
        #expect(try Executable.run(["add", #"Côte d'Ivoire, "Les Éléphants""#, "--zone", "Africa", "--database", database]).status == 0)
        let csv = try Executable.run(["export", "--database", database])
        #expect(csv.status == 0 && csv.err.isEmpty, "\(csv.err)")
        let lines = csv.out.components(separatedBy: "\r\n")
        #expect(lines.first == "teamName,qualifyingZone,imageName,wins")
        #expect(lines.count == 1 + 33 + 1 && lines.last == "")
        #expect(lines.contains(#""Côte d'Ivoire, ""Les Éléphants""",Africa,wenderland-flag,0"#))
        #expect(lines.contains { $0.hasPrefix(#"Mexico,"North, Central America & Caribbean",mexico-flag,"#) }, "\(lines)")
        // The same order as list.
        let list = try Executable.run(["list", "--database", database]).out
        let listed = list.split(separator: "\n").filter { $0.hasPrefix("  ") }.map { $0.dropFirst(2).split(separator: "\t")[0] }
        let names = try JSONDecoder().decode([SeedTeam].self, from: Data(try Executable.run(["export", "--json", "--database", database]).out.utf8)).map(\.teamName)
        #expect(names.map { Substring($0) } == listed)
        #expect(try Executable.run(["export", "--json", "--database", database]).out == (try Executable.run(["list", "--json", "--database", database])).out)

        // To a file: written, then refused over an existing one unless --force.
        let file = folder.file("teams.csv")
        let written = try Executable.run(["export", file.path, "--database", database])
        #expect(written.out == "Exported 33 teams to \(file.path).\n")
        #expect(try String(contentsOf: file, encoding: .utf8) == csv.out)
        try Data("keep me".utf8).write(to: folder.file("kept.json"))
        let refused = try Executable.run(["export", "--json", folder.file("kept.json").path, "--database", database])
        expectError(refused, mentions: ["already exists", "--force"], "existing file")
        #expect(try String(contentsOf: folder.file("kept.json"), encoding: .utf8) == "keep me")
        let forced = try Executable.run(["export", "--json", "--force", folder.file("kept.json").path, "--database", database])
        #expect(forced.status == 0, "\(forced.err)")
        #expect(try Data(contentsOf: folder.file("kept.json")).count > 1000)
        // Into a folder that does not exist: refused, nothing made.
        let nowhere = try Executable.run(["export", folder.file("no/such/teams.csv").path, "--database", database])
        expectError(nowhere, mentions: ["does not exist", "mkdir -p"], "missing folder")
        #expect(!FileManager.default.fileExists(atPath: folder.file("no").path))
        // Both formats at once is a usage error.
        #expect(try Executable.run(["export", "--csv", "--json", "--database", database]).status != 0)
    }

    @Test("backup never replaces a file, and needs a board to copy")
    func backupRefusals() throws {
        let folder = try TemporaryFolder(prefix: "DurabilityTests")
        defer { folder.remove() }
        let database = emptyFile(folder.database)
        #expect(try Executable.run(["tap", "Brazil", "--database", database.path]).status == 0)
        try Data("keep me".utf8).write(to: folder.file("old.sqlite"))
        let existing = try Executable.run(["backup", folder.file("old.sqlite").path, "--database", database.path])
        expectError(existing, mentions: ["already exists"], "existing file")
        #expect(try String(contentsOf: folder.file("old.sqlite"), encoding: .utf8) == "keep me")
        let itself = try Executable.run(["backup", database.path, "--database", database.path])
        expectError(itself, mentions: ["already exists"], "the board itself")
        let none = try Executable.run(["backup", folder.file("copy.sqlite").path, "--database", folder.file("none.sqlite").path])
        expectError(none, mentions: ["no database"], "no board")
        #expect(!FileManager.default.fileExists(atPath: folder.file("none.sqlite").path))
        #expect(!FileManager.default.fileExists(atPath: folder.file("copy.sqlite").path))
        // The copy lists as the board does.
        let copy = folder.file("copy.sqlite")
        #expect(try Executable.run(["backup", copy.path, "--database", database.path]).status == 0)
        #expect(try Executable.run(["list", "--database", copy.path]).out == (try Executable.run(["list", "--database", database.path])).out)
    }
}
