import Foundation
import Testing
import TestSupport

/// The statements each action of `worldcup` sends to PostgreSQL, counted in the server's own log
/// (a server of this suite's own, with every statement logged). Across a network each statement
/// the user waits for is a round trip, so the counts are pinned: a new statement on one of these
/// paths is a decision, made by changing the count here, not an accident.
@Suite("Statements each action sends to PostgreSQL", .serialized)
struct StatementCountTests {
    /// The statements pinned for each action, on a seeded database (what they were before each
    /// change: docs/BENCHMARKS.md). A write's commit confirmation (an empty statement, which
    /// the server does not log) is a round trip these do not count.
    static let pinned: [(action: String, statements: Int)] = [
        ("worldcup tap", 3), ("worldcup list", 3), ("worldcup undo", 5), ("worldcup history", 3), ("worldcup check", 4),
        ("board launch", 24), ("board Enter", 2),
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
}
