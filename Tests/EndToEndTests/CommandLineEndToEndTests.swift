import Foundation
import Testing
import TestSupport

/// The built binary's commands, as a shell runs them.
@Suite("The command line: --version and list --json")
struct CommandLineEndToEndTests {
    @Test("--version prints the version and exits 0, touching no database")
    func version() throws {
        let result = try Executable.run(["--version"])
        #expect(result.status == 0, "\(result.err)")
        let printed = result.out.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(printed.split(separator: ".").count == 3 && printed.split(separator: ".").allSatisfy { Int($0) != nil }, "“\(printed)”")
    }

    @Test("An unknown command is named as such, with the commands there are, not answered with the board's usage",
          arguments: [["frobnicate"], ["--database", "/nowhere/x.sqlite", "frobnicate", "--yes"]])
    func unknownCommand(arguments: [String]) throws {
        let result = try Executable.run(arguments)
        #expect(result.status == 64)
        #expect(result.out.isEmpty)
        #expect(result.err == "Error: “frobnicate” is not a worldcup command; the commands are board, list, tap, add, delete, edit, zones, zone, undo, redo, history, export, backup, reset and check (worldcup help COMMAND explains one).\n")
    }

    @Test("A team's name may come in unquoted words, before, between or after the options, as the README's tap ivory coast")
    func unquotedWords() throws {
        let database = temporaryDatabase()
        for command in [["tap", "ivory", "coast", "--database", database], ["tap", "--database", database, "IVORY", "Coast"],
                        ["--database", database, "tap", "ivory", "coast"], ["tap", "ivory", "--database", database, "coast"]] {
            let result = try Executable.run(command)
            #expect(result.status == 0 && result.out.hasPrefix("Ivory Coast: "), "\(command): \(result.err)")
        }
        let edited = try Executable.run(["edit", "ivory", "coast", "--wins", "7", "--database", database])
        #expect(edited.out == "Edited Ivory Coast: wins 4 → 7.\n", "\(edited.err)")
        let deleted = try Executable.run(["delete", "Ivory", "Coast", "--database", database])
        #expect(deleted.out == "Deleted Ivory Coast from Africa.\n", "\(deleted.err)")
        let none = try Executable.run(["tap", "--database", database])
        #expect(none.status == 64 && none.err.hasPrefix("Error: Missing expected argument '<name> ...'"), "\(none.err)")
    }

    @Test("zones says of an empty zone that the board shows no section for it")
    func emptyZone() throws {
        let database = temporaryDatabase()
        for command in [["add", "Atlantis", "--zone", "Atlantic"], ["delete", "Atlantis"]] {
            let result = try Executable.run(command + ["--database", database])
            try #require(result.status == 0, "\(command): \(result.err)")
        }
        let zones = try Executable.run(["zones", "--database", database])
        #expect(zones.out.split(separator: "\n").contains("3  Atlantic  0 teams (no section on the board until a team joins it)"), "\(zones.out)")
        #expect(zones.out.contains("1  Africa  5 teams\n"))
    }

    @Test("list --json prints each team's keys in one sorted order, the same on every run")
    func jsonKeysSorted() throws {
        let database = temporaryDatabase()
        let first = try Executable.run(["list", "--json", "--database", database])
        try #require(first.status == 0, "\(first.err)")
        let keyLines = first.out.split(separator: "\n").filter { $0.contains("\" : ") }.map { $0.trimmingCharacters(in: .whitespaces) }
        let keys = keyLines.prefix(4).map { String($0.prefix { $0 != ":" }).trimmingCharacters(in: .whitespaces) }
        #expect(keys == ["\"imageName\"", "\"qualifyingZone\"", "\"teamName\"", "\"wins\""])
        for _ in 0..<3 {
            let again = try Executable.run(["list", "--json", "--database", database])
            #expect(again.out == first.out)
        }
    }
}

/// The theme, chosen on the command line, by WORLDCUP_THEME, or by the terminal's answer.
@Suite("The command line: --theme and WORLDCUP_THEME", .serialized)
struct ThemeEndToEndTests {
    @Test("--theme light draws the title in blue, dark in cyan; COLORFGBG decides auto")
    func themes() throws {
        for (arguments, environment, colour) in [(["--theme", "light"], "X=1", "34"), (["--theme", "dark"], "COLORFGBG=0;15", "36"),
                                                 ([], "COLORFGBG=0;15", "34"), ([], "WORLDCUP_THEME=light", "34"), (["--theme", "auto"], "COLORFGBG=15;0", "36")] {
            // The test runner may set NO_COLOR, which turns colours off.
            let terminal = try TmuxTerminal(command: ["env", "-u", "NO_COLOR", environment, Executable.worldcup.path, "--database", temporaryDatabase()] + arguments)
            try #require(terminal.waitFor("32 teams"))
            let title = try terminal.tmux(["capture-pane", "-e", "-p", "-t", "0"]).split(separator: "\n").first.map(String.init) ?? ""
            #expect(title.contains("\u{1B}[\(colour)mWorld Cup"), "\(arguments) with \(environment): \(title.debugDescription)")
            try terminal.send("q")
            #expect(terminal.waitFor("[exited 0]"))
        }
    }

    @Test("A WORLDCUP_THEME that is not light, dark or auto is refused in one sentence, before the database is made")
    func badVariable() throws {
        let database = temporaryDatabase()
        try FileManager.default.removeItem(atPath: database)
        let terminal = try TmuxTerminal(command: ["env", "WORLDCUP_THEME=purple", Executable.worldcup.path, "--database", database])
        #expect(terminal.waitFor("WORLDCUP_THEME is “purple”; it takes light, dark or auto."))
        #expect(terminal.waitFor("[exited 1]"))
        #expect(!FileManager.default.fileExists(atPath: database))
    }
}
