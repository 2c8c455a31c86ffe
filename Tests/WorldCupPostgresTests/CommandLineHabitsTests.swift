import Foundation
import PostgresSupport
import TestSupport
import Testing
import WorldCup

/// The command line as people type it from habit, through the built binary: options before the
/// command's name, negative numbers, and `history --json` typed one way.
@Suite(.serialized) struct CommandLineHabitsTests {
    @Test("The shared options work before the command's name as after it, in either form")
    func optionsBeforeTheCommand() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let database = newBoardFile(in: folder)
        let after = try Executable.run(["list", "--database", database])
        try #require(after.status == 0, "\(after.err)")
        for arguments in [["--database", database, "list"], ["--database=\(database)", "list"],
                          ["--author", "fan@laptop", "--database", database, "--read-only", "list"]] {
            let before = try Executable.run(arguments)
            #expect(before.status == 0 && before.out == after.out, "\(arguments): \(before.err)")
        }
        let tap = try Executable.run(["--author", "guest@pc", "--database", database, "tap", "Ghana"])
        #expect(tap.status == 0 && tap.out == "Ghana: 1 win\n", "\(tap)")
        let history = try Executable.run(["--database", database, "history", "--limit", "1"])
        #expect(history.out.hasSuffix("  guest@pc  Ghana +1 win.\n"), "\(history)")
        // A board-only option before another command is refused by that command, by name.
        let theme = try Executable.run(["--theme", "light", "--database", database, "list"])
        #expect(theme.status != 0 && theme.err.contains("--theme"), "\(theme)")
        // Nothing else moves: help and version answer as before.
        #expect(try Executable.run(["--version"]).status == 0)
        #expect(try Executable.run(["--help"]).out.contains("SUBCOMMANDS"))
    }

    @Test("A negative number gets the rule's sentence, however it is written")
    func negativeNumbers() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let database = newBoardFile(in: folder)
        let rule = "The wins must be a whole number from 0 to \(Seed.maximumWins)."
        for arguments in [["edit", "Ghana", "--wins", "-1"], ["edit", "Ghana", "--wins=-1"], ["edit", "--wins", "-1", "Ghana"]] {
            #expect(refused(try worldcup(arguments, on: database)) == rule, "\(arguments)")
        }
        #expect(refused(try worldcup(["history", "--limit", "-5"], on: database)) == "--limit takes a number of changes, 1 or more.")
    }

    @Test("history --json: every change's old and new wins are numbers, a tap's n → n + 1", arguments: ["sqlite", "postgres"])
    func historyTypes(store: String) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let server = store == "postgres" ? try await FreshDatabase.make() : nil
        defer { if let server { Task { await server.drop() } } }
        let database = server?.urlString ?? newBoardFile(in: folder)

        for arguments in [["tap", "Ghana"], ["tap", "Ghana"], ["edit", "Ghana", "--wins", "5"], ["undo"], ["add", "Atlantis", "--zone", "Europe"], ["delete", "Atlantis"]] {
            let result = try worldcup(arguments, on: database)
            try #require(result.status == 0, "\(arguments): \(result.err)")
        }
        let output = try worldcup(["history", "--json"], on: database).out
        let entries = try #require(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [[String: Any]])
        #expect(entries.map { $0["action"] as? String } == ["delete", "add", "undo", "edit", "tap", "tap"])
        func wins(_ entry: [String: Any], _ side: String) -> Int? {
            // A number, never a string such as "+1".
            (entry[side] as? [String: Any])?["wins"] as? Int
        }
        #expect(entries.allSatisfy { $0["wins"] == nil }, "no key outside old and new")
        #expect((wins(entries[5], "old"), wins(entries[5], "new")) == (0, 1))
        #expect((wins(entries[4], "old"), wins(entries[4], "new")) == (1, 2))
        #expect((wins(entries[3], "old"), wins(entries[3], "new")) == (2, 5))
        #expect((wins(entries[2], "old"), wins(entries[2], "new")) == (5, 2), "the undo of the edit")
        #expect((wins(entries[1], "old"), wins(entries[1], "new")) == (nil, 0), "an add has no old")
        #expect((wins(entries[0], "old"), wins(entries[0], "new")) == (0, nil), "a delete has no new")
        #expect((entries[5]["old"] as? [String: Any])?["name"] as? String == "Ghana")
    }
}
