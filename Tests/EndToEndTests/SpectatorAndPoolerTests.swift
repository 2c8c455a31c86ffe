import Foundation
import Testing
import TestSupport
import ThrowawayPostgres

/// Spectators and poolers, through the built `worldcup` on a throwaway cluster of its own:
/// a watcher role (the README's GRANT lines) sees others' taps live and changes nothing,
/// from its board or its command line; `--read-only` makes any board a spectator's, on
/// PostgreSQL and SQLite; and a board behind PgBouncer in transaction mode, where LISTEN
/// hears nothing, says so and still converges at its heartbeat.
@Suite("Spectators and poolers", .serialized)
struct SpectatorAndPoolerTests {
    /// A URL on the cluster's socket (or PgBouncer's, with its port) as `user`.
    private func url(_ server: SharedServer, user: String = "postgres", port: Int? = nil) -> String {
        "postgres://\(user)@/\(server.database)?host=\(server.cluster.socketDirectory)" + (port.map { "&port=\($0)" } ?? "")
    }

    /// Runs `worldcup` with `arguments` (and `environment` set), as a person's shell would.
    private func worldcup(_ arguments: [String], environment: [String] = []) throws -> (status: Int32, out: String, err: String) {
        try Executable.run(environment + [Executable.worldcup.path] + arguments, executable: URL(fileURLWithPath: "/usr/bin/env"))
    }

    @Test("A watcher role's board shows others' taps live, says read-only, and refuses Enter, + and d in one sentence, changing nothing")
    func watcherBoard() throws {
        let server = try SharedServer()
        let watcher = try server.makeWatcher()
        let board = try TmuxTerminal(command: [Executable.worldcup.path, "--database", url(server, user: watcher)], width: 100, height: 50)
        #expect(board.waitFor("32 teams"))
        #expect(board.screen.contains("World Cup · \(server.shownLocation) · read-only"), "\(board.screen)")
        #expect(!board.screen.contains("pooler"), "a direct connection hears notifications:\n\(board.screen)")
        try server.tap("Cameroon")
        #expect(waitUntil(seconds: 2) { BoardRows(board.screen).wins["Cameroon"] == 1 }, "the watcher saw the tap:\n\(board.screen)")
        let before = try server.wins()
        for key in ["Enter", "+", "d"] {
            try board.send(key)
            #expect(board.waitFor("The user “watcher” may only watch this board, so nothing was changed."), "after \(key):\n\(board.screen)")
            #expect(!board.screen.contains("Secret Team") && !board.screen.contains("y/N"), "\(board.screen)")
            try board.send("Down")
        }
        #expect(try server.wins() == before)
        // The board still follows after its refusals.
        try server.tap("Ghana")
        #expect(waitUntil(seconds: 2) { BoardRows(board.screen).wins["Ghana"] == 1 }, "\(board.screen)")
    }

    @Test("The watcher's tap, add, delete and reset are refused in one sentence with a non-zero exit, changing nothing")
    func watcherCommandLine() throws {
        let server = try SharedServer()
        let watcher = try server.makeWatcher()
        let before = try server.wins()
        let database = ["--database", url(server, user: watcher)]
        for arguments in [["tap", "Ghana"], ["add", "Atlantis", "--zone", "Ocean"], ["delete", "Ghana"], ["reset", "--yes"]] {
            let result = try worldcup(arguments + database)
            #expect(result.status != 0, "\(arguments)")
            #expect(result.err == "Error: The user “watcher” may only watch this board, so nothing was changed.\n", "\(arguments): \(result.err)")
        }
        #expect(try server.wins() == before)
        #expect(try worldcup(["list"] + database).status == 0, "the watcher reads")
    }

    @Test("--read-only and WORLDCUP_READ_ONLY=1 on a user who may write: the board and every command change nothing")
    func readOnlyOnPostgres() throws {
        let server = try SharedServer()
        let before = try server.wins()
        let database = ["--database", url(server)]
        let refusal = "Error: This board is read-only (--read-only or WORLDCUP_READ_ONLY), so nothing was changed.\n"
        for arguments in [["tap", "Ghana"], ["add", "Atlantis", "--zone", "Ocean"], ["delete", "Ghana"], ["reset", "--yes"]] {
            for (flag, environment) in [(["--read-only"], [String]()), ([], ["WORLDCUP_READ_ONLY=1"])] {
                let result = try worldcup(arguments + flag + database, environment: environment)
                #expect(result.status != 0 && result.err == refusal, "\(arguments) \(flag) \(environment): \(result.err)")
            }
        }
        let board = try TmuxTerminal(command: [Executable.worldcup.path, "--read-only"] + database, width: 100, height: 50)
        #expect(board.waitFor("32 teams"))
        #expect(board.screen.contains("· read-only"), "\(board.screen)")
        try board.send("Enter")
        #expect(board.waitFor("This board is read-only (--read-only or WORLDCUP_READ_ONLY), so nothing was changed."))
        try server.tap("Japan")
        #expect(waitUntil(seconds: 2) { BoardRows(board.screen).wins["Japan"] == 1 }, "\(board.screen)")
        var expected = before
        expected["Japan"] = 1
        #expect(try server.wins() == expected)
        // A database not set up yet is refused, and stays empty.
        try server.sql("CREATE DATABASE empty_board", database: "postgres")
        let empty = try worldcup(["list", "--read-only", "--database", "postgres://postgres@/empty_board?host=\(server.cluster.socketDirectory)"])
        #expect(empty.status != 0 && empty.err.hasSuffix("has no worldcup scoreboard yet, and a read-only board cannot set it up: open it once without --read-only.\n"), "\(empty.err)")
        #expect(try server.sql("SELECT count(*) FROM pg_tables WHERE schemaname = 'public'", database: "empty_board") == "0\n")
    }

    @Test("--read-only on a SQLite file: the board follows another process's taps, refuses its own, and the commands change nothing")
    func readOnlyOnSQLite() throws {
        let folder = try TemporaryFolder(prefix: "worldcup-read-only-e2e")
        defer { folder.remove() }
        // An empty file: the commands make a new board of it (only the board makes a missing one).
        _ = FileManager.default.createFile(atPath: folder.database.path, contents: nil)
        let database = ["--database", folder.database.path]
        #expect(try worldcup(["list"] + database).status == 0)
        let board = try TmuxTerminal(command: [Executable.worldcup.path, "--read-only"] + database, width: 100, height: 50)
        #expect(board.waitFor("32 teams"))
        #expect(board.screen.contains("World Cup · read-only"), "\(board.screen)")
        #expect(try worldcup(["tap", "Cameroon"] + database).status == 0)
        #expect(waitUntil(seconds: 2) { BoardRows(board.screen).wins["Cameroon"] == 1 }, "\(board.screen)")
        try board.send("Enter")
        #expect(board.waitFor("This board is read-only (--read-only or WORLDCUP_READ_ONLY), so nothing was changed."))
        for arguments in [["tap", "Ghana"], ["add", "Atlantis", "--zone", "Ocean"], ["delete", "Ghana"], ["reset", "--yes"]] {
            let result = try worldcup(arguments + database, environment: ["WORLDCUP_READ_ONLY=1"])
            #expect(result.status != 0 && result.err == "Error: This board is read-only (--read-only or WORLDCUP_READ_ONLY), so nothing was changed.\n", "\(arguments): \(result.err)")
        }
        let listed = try worldcup(["list"] + database).out
        #expect(listed.contains("Cameroon\tWins: 1") && listed.contains("Ghana\tWins: 0") && !listed.contains("Atlantis"), "\(listed)")
        // Nothing to watch: refused, nothing created.
        let missing = folder.file("none.sqlite").path
        let refused = try worldcup(["list", "--read-only", "--database", missing])
        #expect(refused.status != 0 && !FileManager.default.fileExists(atPath: missing), "\(refused.err)")
    }

    @Test("A board through PgBouncer in transaction mode says it is on a pooler, converges within its heartbeat, and taps through it")
    func throughPgBouncer() throws {
        let server = try SharedServer()
        let bouncer = try ThrowawayPgBouncer.start(for: server.cluster)
        defer { bouncer.stop() }
        let pooled = url(server, port: bouncer.port)
        let board = try TmuxTerminal(command: [Executable.worldcup.path, "--database", pooled], width: 100, height: 50)
        #expect(board.waitFor("32 teams"))
        #expect(board.waitFor("pooler: updates every 1 s", seconds: 5), "\(board.screen)")
        for round in 0..<3 {
            try server.tap("Ghana")
            try server.tap("Japan")
            let expected = try server.wins()
            let tapped = Date()
            #expect(waitUntil(seconds: 2.5) { BoardRows(board.screen).wins == expected }, "round \(round):\n\(board.screen)\nexpected: \(expected)")
            #expect(Date().timeIntervalSince(tapped) < 2.5)
        }
        // Its own taps go through the pooler too, and show at once.
        try board.send("Enter")
        #expect(board.waitFor("Algeria: 1 win."), "\(board.screen)")
        #expect(try server.wins()["Algeria"] == 1)
        #expect(!board.screen.contains("reconnecting"), "\(board.screen)")
    }
}
