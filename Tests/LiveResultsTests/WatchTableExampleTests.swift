import Foundation
import GRDB
import Synchronization
import Testing
import TestSupport

/// Examples/WatchTable, built by `make test` (`make example`), run as a person runs it: on a
/// file that the sqlite3 shell changes, then stopped with Ctrl-C.
@Suite struct WatchTableExampleTests {
    static let binary = Repository.root.appendingPathComponent("Examples/WatchTable/.build/debug/watch-table")

    /// A file with the player table of the Getting Started article.
    func makePlayers() throws -> String {
        let file = try TemporaryFolder(prefix: "watch-table").file("players.sqlite")
        let queue = try DatabaseQueue(path: file.path)
        try queue.write { db in
            try db.execute(sql: """
                CREATE TABLE player (id INTEGER PRIMARY KEY, name TEXT, team TEXT, score INTEGER);
                INSERT INTO player (name, team, score) VALUES ('Ada', 'Red', 3), ('Bob', 'Blue', 5), ('Cy', 'Red', 1);
                """)
        }
        return file.path
    }

    @Test("watch-table prints the result, then each commit of another process as exact event lines, and stops at Ctrl-C")
    func watchesAnotherProcess() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.binary.path),
                     "Examples/WatchTable is not built: run `make example` (make test does).")
        let file = try makePlayers()
        let arguments = [file, "player", "--section", "team", "--sort", "score:desc", "--sort", "name"]
        let watcher = try RunningProgram(Self.binary, arguments)
        defer { watcher.stop() }
        try await watcher.waitFor(error: "Ctrl-C stops.")
        #expect(watcher.error.contains("Installed LiveResults' change log on “player”"))
        // Standard output and error are read by two threads: the result may come in after the
        // line on standard error that the program wrote after it.
        var expected = """
            section 0 "Blue" (1 row)
              [0,0] 2 team="Blue" score=5 name="Bob"
            section 1 "Red" (2 rows)
              [1,0] 1 team="Red" score=3 name="Ada"
              [1,1] 3 team="Red" score=1 name="Cy"

            """
        try await watcher.waitFor(output: expected)
        let steps: [(sql: String, lines: [String])] = [
            ("UPDATE player SET score = 9 WHERE name = 'Cy'", ["move 3 [1,1] -> [1,0]"]),
            ("INSERT INTO player (name, team, score) VALUES ('Dee', 'Green', 2)", ["section insert 1 \"Green\"", "insert 4 -> [1,0]"]),
            ("DELETE FROM player WHERE name = 'Bob'", ["section delete 0 \"Blue\"", "delete 2 [0,0]"]),
            ("UPDATE player SET name = 'Al' WHERE name = 'Ada'", ["update 1 [1,1] -> [1,1]"]),
        ]
        for step in steps {
            try await runSQLite3(on: file, script: step.sql)
            expected += step.lines.map { $0 + "\n" }.joined()
            try await watcher.waitFor(output: expected)
        }
        watcher.interrupt()
        let status = try await watcher.exitStatus()
        #expect(status == 0)

        // The second time, the log is there: nothing installed, nothing said.
        let again = try RunningProgram(Self.binary, arguments)
        defer { again.stop() }
        try await again.waitFor(error: "Ctrl-C stops.")
        #expect(!again.error.contains("Installed"))
        again.interrupt()
        #expect(try await again.exitStatus() == 0)
    }

    /// A file of players on teams that are rows of their own (`--join`).
    func makeTeams() throws -> String {
        let file = try TemporaryFolder(prefix: "watch-table").file("teams.sqlite").path
        let queue = try DatabaseQueue(path: file)
        try queue.write { db in
            try db.execute(sql: """
                CREATE TABLE team (id INTEGER PRIMARY KEY, name TEXT NOT NULL, position INTEGER NOT NULL);
                CREATE TABLE player (id INTEGER PRIMARY KEY, name TEXT, teamID INTEGER REFERENCES team(id), score INTEGER);
                INSERT INTO team VALUES (1, 'Red', 0), (2, 'Blue', 1);
                INSERT INTO player (name, teamID, score) VALUES ('Ada', 1, 3), ('Bob', 2, 5), ('Cy', 1, 1);
                """)
        }
        return file
    }

    @Test("watch-table --join sections players by their team row: a rename is a section update, a reorder a section move, a transfer a row move")
    func watchesThroughAJoin() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.binary.path),
                     "Examples/WatchTable is not built: run `make example` (make test does).")
        let file = try makeTeams()
        let arguments = [file, "player", "--join", "team:teamID:name", "--section-sort", "position", "--sort", "score:desc"]
        let watcher = try RunningProgram(Self.binary, arguments)
        defer { watcher.stop() }
        try await watcher.waitFor(error: "Ctrl-C stops.")
        #expect(watcher.error.contains("Installed LiveResults' change log on “team”"))
        var expected = """
            section 0 "Red" (2 rows)
              [0,0] 1 score=3
              [0,1] 3 score=1
            section 1 "Blue" (1 row)
              [1,0] 2 score=5

            """
        try await watcher.waitFor(output: expected)
        let steps: [(sql: String, lines: [String])] = [
            ("UPDATE team SET name = 'Reds' WHERE id = 1", ["section update 0 -> 0 \"Reds\""]),
            ("UPDATE team SET position = 2 WHERE id = 1", ["section move 0 -> 1 \"Reds\""]),
            ("UPDATE player SET teamID = 1 WHERE name = 'Bob'", ["section delete 0 \"Blue\"", "delete 2 [0,0]", "insert 2 -> [0,0]"]),
        ]
        for step in steps {
            try await runSQLite3(on: file, script: step.sql)
            expected += step.lines.map { $0 + "\n" }.joined()
            try await watcher.waitFor(output: expected)
        }
        watcher.interrupt()
        #expect(try await watcher.exitStatus() == 0)
    }

    @Test("watch-table refuses a missing file, a missing table and a missing column in one sentence, creating nothing")
    func badInput() throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.binary.path),
                     "Examples/WatchTable is not built: run `make example` (make test does).")
        let file = try makePlayers()
        let missing = URL(fileURLWithPath: file).deletingLastPathComponent().appendingPathComponent("typo.sqlite").path
        for (arguments, message) in [
            ([missing, "player", "--sort", "score"], "There is no file at \(missing)"),
            ([file, "players", "--sort", "score"], "There is no table “players”"),
            ([file, "player", "--sort", "points"], "“points”"),
        ] {
            let (status, out, err) = try Executable.run(arguments, executable: Self.binary)
            #expect(status == 1, "\(arguments)")
            #expect(out.isEmpty)
            #expect(err.hasPrefix("watch-table: ") && err.contains(message) && err.hasSuffix(".\n"), "\(err)")
        }
        #expect(!FileManager.default.fileExists(atPath: missing))
    }
}
