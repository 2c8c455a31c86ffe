import Foundation
import Testing
import TestSupport
import ThrowawayPostgres

/// The statements each action of `worldcup` sends to PostgreSQL, counted in the server's own log
/// (a server of this suite's own, with every statement logged). Across a network each statement
/// the user waits for is a round trip, so the counts are pinned: a new statement on one of these
/// paths is a decision, made by changing the count here, not an accident.
@Suite("Statements each action sends to PostgreSQL", .serialized)
struct StatementCountTests {
    /// The statements pinned for each action, on a seeded database (what they were before each
    /// change: docs/BENCHMARKS.md). A write's commit confirmation (an empty statement, which
    /// the server does not log) is a round trip these do not count. The launch's count holds the
    /// feed's look for the database's writers (`SenderTrust`), which also says that its LISTENs
    /// (postgres-nio's, one a channel) are in place.
    static let pinned: [(action: String, statements: Int)] = [
        ("worldcup tap", 3), ("worldcup list", 3), ("worldcup undo", 5), ("worldcup history", 3), ("worldcup check", 4),
        ("board launch", 15), ("board Enter", 1),
    ]

    @Test("worldcup tap, list, undo, history and check, and the board's launch and Enter, send the pinned statements")
    func pinnedCounts() throws {
        let server = try SharedServer(settings: StatementLog.settings)
        let log = StatementLog(file: server.cluster.folder.appendingPathComponent("server.log"), database: server.database)
        var sent: [String: StatementLog.Sent] = [:]
        sent["worldcup tap"] = try log.during { try server.run(["tap", "Brazil"]) }
        sent["worldcup list"] = try log.during { try server.run(["list"]) }
        sent["worldcup undo"] = try log.during { try server.run(["undo"]) }
        sent["worldcup history"] = try log.during { try server.run(["history"]) }
        sent["worldcup check"] = try log.during { try server.run(["check"]) }
        // The board keeps sending after its first rows (its change feed's LISTENs): counted
        // until the log has been still for a while.
        var board: TmuxTerminal?
        sent["board launch"] = try log.during(settle: 2) {
            board = try TmuxTerminal(command: server.board(), width: 100, height: 50)
            #expect(board?.waitFor("32 teams") == true)
        }
        sent["board Enter"] = try log.during(settle: 2) {
            try board?.send("Down", "Enter")
            #expect(board?.waitFor("Cameroon: 1 win.") == true)
        }
        for (action, statements) in Self.pinned {
            let counted = try #require(sent[action])
            #expect(counted.statements.count == statements, "\(action): \(counted)")
        }
    }

    @Test("Through tcp-relay --delay-ms 50, worldcup tap and list give what they give directly, each round trip 100 ms later")
    func throughADelayingRelay() throws {
        let server = try SharedServer()
        let relay = try TCPRelay(upstream: server.cluster.socketPath, delayMilliseconds: 50)
        defer { relay.kill() }
        let url = "postgres://postgres@127.0.0.1:\(relay.port)/\(server.database)"
        let start = Date()
        let tapped = try Executable.run(["tap", "Brazil", "--database", url])
        let elapsed = Date().timeIntervalSince(start)
        #expect(tapped.status == 0 && tapped.out == "Brazil: 1 win\n", "\(tapped)")
        // At least connecting (its startup and answer), the opening's statements and the tap:
        // each a round trip of 100 ms that the relay cannot shorten.
        #expect(elapsed >= 0.4, "the relay did not delay: \(elapsed) s")
        #expect(try Executable.run(["list", "--database", url]).out == server.run(["list"]))
        // psql's three round trips (the TLS request, the startup, the statement), which take it
        // a few milliseconds directly.
        let psql = URL(fileURLWithPath: "\(ThrowawayPostgres.binaries)/psql")
        let psqlStart = Date()
        let selected = try Executable.run([url, "-tAc", "SELECT 1"], executable: psql)
        let psqlElapsed = Date().timeIntervalSince(psqlStart)
        #expect(selected.out == "1\n", "\(selected)")
        #expect(psqlElapsed >= 0.3, "psql's round trips were not delayed: \(psqlElapsed) s")
    }
}
