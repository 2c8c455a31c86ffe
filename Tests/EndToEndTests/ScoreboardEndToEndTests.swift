import Foundation
import Testing
import TestSupport

/// The built binary, in a real terminal, used as a person would.
@Suite(.serialized)
struct ScoreboardEndToEndTests {
    struct ListedTeam: Decodable, Equatable {
        var teamName: String
        var qualifyingZone: String
        var imageName: String
        var wins: Int
    }

    func listedTeams(_ database: String) throws -> [ListedTeam] {
        let result = try Executable.run(["list", "--json", "--database", database])
        try #require(result.status == 0, "list failed: \(result.err)")
        return try JSONDecoder().decode([ListedTeam].self, from: Data(result.out.utf8))
    }

    @Test func tapAddQuitThenTheDatabaseAgrees() throws {
        let database = temporaryDatabase()
        let terminal = try TmuxTerminal(command: [Executable.worldcup.path, "--database", database])
        try #require(terminal.waitFor("32 teams"))
        #expect(terminal.screen.contains("World Cup"))
        #expect(terminal.inAlternateScreen)

        // Africa: Algeria, Cameroon, Ghana, ... Move to Ghana and tap it twice.
        try terminal.send("Down", "Down")
        try terminal.send("Enter")
        try #require(terminal.waitFor("Wins: 1"))
        try terminal.send("Enter")
        try #require(terminal.waitFor("Ghana: 2 wins"))
        let lines = terminal.screen.split(separator: "\n").map(String.init)
        let africa = try #require(lines.firstIndex { $0.hasPrefix(" Africa") })
        #expect(lines[africa + 1].contains("Ghana"), "Ghana should have moved to the top of Africa:\n\(terminal.screen)")
        #expect(lines[africa + 1].contains("▶"), "the cursor should have stayed on Ghana")
        #expect(lines[africa + 1].hasSuffix("Wins: 2  As"), "the detail, then the section index")
        #expect(terminal.screen.contains("Leader: Ghana (2 wins)"))

        // Add a secret team in a zone that does not exist yet.
        try terminal.send("+")
        try #require(terminal.waitFor("Secret Team"))
        try terminal.send("Atlantis", literal: true)
        try terminal.send("Tab", "C-u")
        try terminal.send("Oceania", literal: true)
        try terminal.send("Enter")
        try #require(terminal.waitFor("Added Atlantis to Oceania."))
        #expect(terminal.screen.contains(" Oceania"))
        #expect(terminal.line(containing: "Atlantis")?.contains("▶") == true)
        #expect(terminal.screen.contains("33 teams"))

        try terminal.send("q")
        try #require(terminal.waitFor("[exited 0]"))
        #expect(!terminal.inAlternateScreen, "the terminal must be restored")

        let teams = try listedTeams(database)
        #expect(teams.count == 33)
        #expect(teams.first { $0.teamName == "Ghana" }?.wins == 2)
        #expect(teams.first { $0.teamName == "Atlantis" } == ListedTeam(teamName: "Atlantis", qualifyingZone: "Oceania", imageName: "wenderland-flag", wins: 0))
        // Zones in order: Oceania sorts between North... and South America.
        let zones = teams.map(\.qualifyingZone).reduce(into: [String]()) { if $0.last != $1 { $0.append($1) } }
        #expect(zones == ["Africa", "Asia", "Europe", "North, Central America & Caribbean", "Oceania", "South America"])
    }

    /// A write-ahead log left with commits in it is what an opening takes for the trace of a
    /// crash, and then it reads the whole file (0.4 s at a million teams): a board that quits
    /// must leave none, whether it fetched or started from its section cache.
    @Test func aBoardThatQuitsLeavesNoWriteAheadLogBehind() throws {
        let database = temporaryDatabase()
        let cache = URL(fileURLWithPath: database).deletingLastPathComponent().appendingPathComponent("cache").path
        for launch in ["the first (it fetches)", "the second (from the section cache)"] {
            let terminal = try TmuxTerminal(command: ["env", "XDG_CACHE_HOME=\(cache)", Executable.worldcup.path, "--database", database])
            try #require(terminal.waitFor("32 teams"))
            try terminal.send("q")
            try #require(terminal.waitFor("[exited 0]"))
            let log = (try? FileManager.default.attributesOfItem(atPath: database + "-wal")[.size] as? Int) ?? 0
            #expect(log == 0, "\(launch) launch left \(log) bytes in the write-ahead log")
        }
    }

    @Test func theTypedZoneReplacesTheSuggestedOne() throws {
        let database = temporaryDatabase()
        let terminal = try TmuxTerminal(command: [Executable.worldcup.path, "--database", database])
        try #require(terminal.waitFor("32 teams"))
        // Africa: Algeria, Cameroon, Ghana. The dialog suggests Ghana's zone.
        try terminal.send("Down", "Down")
        try #require(terminal.waitForCursor(on: "Ghana"))
        try terminal.send("+")
        try #require(terminal.waitFor("Qualifying Zone Africa"))
        try terminal.send("Wenderland", literal: true)
        try terminal.send("Tab")
        try terminal.send("Oceania", literal: true)
        try terminal.send("Enter")
        try #require(terminal.waitFor("Added Wenderland to Oceania."))
        try terminal.send("q")
        try #require(terminal.waitFor("[exited 0]"))
        #expect(try listedTeams(database).first { $0.teamName == "Wenderland" }?.qualifyingZone == "Oceania")
    }

    @Test func invalidUTF8InAFieldDropsOnlyTheInvalidBytes() throws {
        let terminal = try TmuxTerminal(command: [Executable.worldcup.path, "--database", temporaryDatabase()])
        try #require(terminal.waitFor("32 teams"))
        try terminal.send("+")
        try #require(terminal.waitFor("Secret Team"))
        // "A", two bytes that are not UTF-8, "B", then "ç" (C3 A7), in one write.
        _ = try terminal.tmux(["send-keys", "-t", "0", "-H", "41", "ff", "fe", "42", "c3", "a7"])
        try #require(terminal.waitFor("Team Name       ABç"))
        try terminal.send("Escape")
        try #require(terminal.waitFor("No team added."))
        try terminal.send("q")
        try #require(terminal.waitFor("[exited 0]"))
    }

    @Test func theDialogRefusesBadInputAndEscCancels() throws {
        let database = temporaryDatabase()
        let terminal = try TmuxTerminal(command: [Executable.worldcup.path, "--database", database])
        try #require(terminal.waitFor("32 teams"))
        try terminal.send("+")
        try #require(terminal.waitFor("Secret Team"))
        try terminal.send("BRAZIL", literal: true)
        try terminal.send("Enter")
        try #require(terminal.waitFor("A team named “Brazil” already exists."))
        try terminal.send("Escape")
        try #require(terminal.waitFor("No team added."))
        try terminal.send("C-c")
        try #require(terminal.waitFor("[exited 130]"))
        #expect(!terminal.inAlternateScreen)
        #expect(try listedTeams(database).count == 32)
    }

    @Test func deleteAsksFirstThenRemovesTheTeam() throws {
        let database = temporaryDatabase()
        let terminal = try TmuxTerminal(command: [Executable.worldcup.path, "--database", database])
        try #require(terminal.waitFor("32 teams"))
        // Tab jumps to the first team of the next zone: Asia's Australia.
        try terminal.send("Tab")
        try terminal.send("d")
        try #require(terminal.waitFor("Delete Australia? y/N"))
        try terminal.send("n")
        try #require(terminal.waitFor("Kept Australia."))
        try terminal.send("d")
        try #require(terminal.waitFor("Delete Australia? y/N"))
        try terminal.send("y")
        try #require(terminal.waitFor("Deleted Australia."))
        #expect(terminal.screen.contains("31 teams"))
        #expect(!terminal.screen.contains("Australia "))
        try terminal.send("q")
        try #require(terminal.waitFor("[exited 0]"))
        let teams = try listedTeams(database)
        #expect(teams.count == 31)
        #expect(!teams.contains { $0.teamName == "Australia" })
    }

    @Test func ctrlCRestoresTheTerminalAndExits130() throws {
        let terminal = try TmuxTerminal(command: [Executable.worldcup.path, "--database", temporaryDatabase()])
        try #require(terminal.waitFor("32 teams"))
        try terminal.send("C-c")
        try #require(terminal.waitFor("[exited 130]"))
        #expect(!terminal.inAlternateScreen)
        #expect(!terminal.mouseReporting)
    }

    @Test func withoutATerminalItSaysSoAndFails() throws {
        let database = temporaryDatabase()
        try FileManager.default.removeItem(atPath: database)
        let result = try Executable.run(["--database", database])
        #expect(result.status != 0)
        #expect(result.err.contains("interactive terminal"))
        #expect(result.out.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: database), "nothing is created when the screen cannot start")
    }

    @Test func commandsChangeTheStoreAndReportErrorsInOneSentence() throws {
        let database = temporaryDatabase()
        #expect(try Executable.run(["tap", "brazil", "--database", database]).out == "Brazil: 1 win\n")
        #expect(try Executable.run(["add", "Atlantis", "--zone", "Oceania", "--database", database]).status == 0)
        let missing = try Executable.run(["tap", "Narnia", "--database", database])
        #expect(missing.status != 0)
        #expect(missing.err.split(separator: "\n").count == 1)
        #expect(missing.err.contains("There is no team named “Narnia”."))
        #expect(try Executable.run(["delete", "atlantis", "--database", database]).status == 0)
        let teams = try listedTeams(database)
        #expect(teams.count == 32)
        #expect(teams.first { $0.teamName == "Brazil" }?.wins == 1)
    }

    @Test func aCopyOfTheBinaryFarFromTheCheckoutSeedsTheSampleFromAnyFolder() throws {
        // As after `make install`: the binary alone in a folder of its own, run from /.
        let folder = URL(fileURLWithPath: temporaryDatabase()).deletingLastPathComponent()
        defer { try? FileManager.default.removeItem(at: folder) }
        let binary = folder.appendingPathComponent("worldcup")
        try FileManager.default.copyItem(at: Executable.worldcup, to: binary)
        let database = folder.appendingPathComponent("new.sqlite").path
        // An empty file, a new board to every command (only the board makes a missing one).
        _ = FileManager.default.createFile(atPath: database, contents: nil)
        let root = URL(fileURLWithPath: "/")
        // Where it can (root, with unshare), the checkout is hidden under an empty tmpfs in a
        // mount namespace of the binary's own, so not even an absolute path into it can work.
        let checkout = Repository.root
        let unshare = URL(fileURLWithPath: "/usr/bin/unshare")
        let canHide = (try? Executable.run(["--mount", "true"], executable: unshare))?.status == 0
        func list() throws -> (status: Int32, out: String, err: String) {
            canHide
                ? try Executable.run(["--mount", "sh", "-c", #"mount -t tmpfs none "$1" && ! test -e "$1/seed.json" && cd / && exec "$2" list --database "$3""#,
                                      "sh", checkout.path, binary.path, database], executable: unshare, workingDirectory: root)
                : try Executable.run(["list", "--database", database], executable: binary, workingDirectory: root)
        }
        // A child another test's thread started while the copy was open holds the copy's
        // descriptor until it runs its own program: running the copy meanwhile fails with
        // "Text file busy" (ETXTBSY), for a moment only.
        var listed = try list()
        for _ in 0..<20 where listed.err.contains("Text file busy") {
            Thread.sleep(forTimeInterval: 0.05)
            listed = try list()
        }
        #expect(listed.status == 0, "\(listed.err)")
        #expect(listed.out.split(separator: "\n").filter { $0.hasPrefix("  ") }.count == 32)
        #expect(listed.out.hasPrefix("Africa\n  Algeria\tWins: 0\n"))
        #expect(try listedTeams(database).count == 32)

        // --seed still overrides the built-in seed.
        let seed = folder.appendingPathComponent("one.json")
        try Data(#"[{"teamName": "Atlantis", "qualifyingZone": "Oceania", "imageName": "x", "wins": 3}]"#.utf8).write(to: seed)
        let other = folder.appendingPathComponent("other.sqlite").path
        _ = FileManager.default.createFile(atPath: other, contents: nil)
        let seeded = try Executable.run(["list", "--database", other, "--seed", seed.path], executable: binary, workingDirectory: root)
        #expect(seeded.status == 0, "\(seeded.err)")
        #expect(seeded.out == "Oceania\n  Atlantis\tWins: 3\n")
    }

    @Test func theOriginalSampleSeedLoadsAsIs() throws {
        let bookSeed = Repository.bookSeed
        try #require(FileManager.default.fileExists(atPath: bookSeed.path), "the book seed is missing at \(bookSeed.path)")
        let database = temporaryDatabase()
        let result = try Executable.run(["list", "--json", "--database", database, "--seed", bookSeed.path])
        #expect(result.status == 0, "\(result.err)")
        #expect(try listedTeams(database).count == 32)
    }
}
