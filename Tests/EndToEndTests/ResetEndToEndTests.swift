import Foundation
import Testing
import TestSupport

/// `worldcup reset` from a shell while boards are open on the same SQLite file or PostgreSQL
/// database: the boards follow it and name who reset it, and what they do after it lands in
/// the database everyone reads.
@Suite("Reset while boards are open", .serialized)
struct ResetEndToEndTests {
    struct ListedTeam: Decodable {
        var teamName: String
        var wins: Int
    }

    struct Entry: Decodable {
        var by: String
        var action: String
        var team: String?
    }

    /// The teams with wins, by name, as `worldcup list` reads them.
    func winners(_ database: String) throws -> [String: Int] {
        let result = try Executable.run(["list", "--json", "--database", database])
        try #require(result.status == 0, "list failed: \(result.err)")
        let teams = try JSONDecoder().decode([ListedTeam].self, from: Data(result.out.utf8))
        return Dictionary(uniqueKeysWithValues: teams.filter { $0.wins > 0 }.map { ($0.teamName, $0.wins) })
    }

    /// The newest `limit` entries of `worldcup history`, newest first.
    func history(_ database: String, limit: Int) throws -> [Entry] {
        let result = try Executable.run(["history", "--json", "--limit", "\(limit)", "--database", database])
        try #require(result.status == 0, "history failed: \(result.err)")
        return try JSONDecoder().decode([Entry].self, from: Data(result.out.utf8))
    }

    /// The wins a board's row of `team` shows, if the row is on screen.
    func shownWins(of team: String, on terminal: TmuxTerminal) -> Int? {
        guard let line = terminal.screen.split(separator: "\n").first(where: { $0.contains(" \(team) ") && $0.contains("Wins:") }),
              let range = line.range(of: "Wins: ") else { return nil }
        return Int(line[range.upperBound...].prefix { $0.isNumber })
    }

    @Test("Two boards, a reset from a shell, then a tap from each: both boards show the seed at once, and list and history agree with both screens")
    func bothBoardsFollowAReset() throws {
        let database = temporaryDatabase()
        let boards = try ["first@e2e", "second@e2e"].map {
            try TmuxTerminal(command: [Executable.worldcup.path, "--database", database, "--author", $0], width: 100, height: 45)
        }
        for board in boards { try #require(board.waitFor("32 teams")) }
        // Before the reset: Cameroon (second in Africa) tapped twice on the first board.
        try boards[0].send("Down", "Enter")
        try #require(boards[0].waitFor("Cameroon: 1 win."))
        try boards[0].send("Enter")
        try #require(boards[0].waitFor("Cameroon: 2 wins."))
        try #require(boards[1].waitFor("Leader: Cameroon (2 wins)"))

        let reset = try Executable.run(["reset", "--yes", "--database", database, "--author", "shell@e2e"])
        try #require(reset.status == 0, "reset failed: \(reset.err)")
        // Both boards show the seed at once (nobody leads, Cameroon has no win) and name who
        // reset it: "shell@e2e: Reset the board to the seed's teams.", or with the taps just
        // before it, "3 changes by first@e2e and shell@e2e." (the status line holds a sentence
        // for a few seconds: both boards are watched at once).
        var named = [false, false]
        let followed = waitUntil(seconds: 8) {
            for (index, board) in boards.enumerated() where board.screen.contains("shell@e2e") { named[index] = true }
            return named.allSatisfy { $0 } && boards.allSatisfy { !$0.screen.contains("Leader") && shownWins(of: "Cameroon", on: $0) == 0 }
        }
        #expect(followed, "the boards did not follow the reset, or did not name it (named: \(named)):\n\(boards[0].screen)\n\(boards[1].screen)")

        // A tap on each board after the reset: Algeria (the top row) on the first, and on the
        // second Ghana (third in Africa).
        try boards[0].send("Home", "Enter")
        #expect(boards[0].waitFor("Algeria: 1 win."), "\(boards[0].screen)")
        try boards[1].send("Home", "Down", "Down", "Enter")
        #expect(boards[1].waitFor("Ghana: 1 win."), "\(boards[1].screen)")

        // The file everyone reads has both taps, and nothing from before the reset...
        #expect(try winners(database) == ["Algeria": 1, "Ghana": 1])
        // ...its history names who made them, after the reset and who made it...
        let newest = try history(database, limit: 3).map { "\($0.by) \($0.action) \($0.team ?? "-")" }
        #expect(Set(newest.prefix(2)) == ["first@e2e tap Algeria", "second@e2e tap Ghana"], "\(newest)")
        #expect(newest.last == "shell@e2e reset -", "\(newest)")
        // ...and both screens show the same.
        for (index, board) in boards.enumerated() {
            let agree = waitUntil(seconds: 3) {
                shownWins(of: "Algeria", on: board) == 1 && shownWins(of: "Ghana", on: board) == 1 && shownWins(of: "Cameroon", on: board) == 0
            }
            #expect(agree, "board \(index + 1) disagrees with the file:\n\(board.screen)")
        }
        for board in boards {
            try board.send("q")
            #expect(board.waitFor("[exited 0]"))
        }
    }

    @Test("On PostgreSQL: a board open during a reset from a shell shows the seed at once, names who reset it, and its next tap is what the database holds")
    func postgresBoardFollowsAReset() throws {
        let server = try SharedServer()
        try server.tap("Cameroon")
        let board = try TmuxTerminal(command: server.board() + ["--author", "first@e2e"], width: 100, height: 45)
        try #require(board.waitFor("Leader: Cameroon (1 win)"))
        try server.run(["reset", "--yes", "--author", "shell@e2e"])
        let followed = waitUntil(seconds: 8) {
            board.screen.contains("shell@e2e") && !board.screen.contains("Leader") && shownWins(of: "Cameroon", on: board) == 0
        }
        #expect(followed, "the board did not follow the reset, or did not name it:\n\(board.screen)")
        try board.send("Home", "Enter")
        #expect(board.waitFor("Algeria: 1 win."), "\(board.screen)")
        #expect(try server.wins().filter { $0.value > 0 } == ["Algeria": 1])
        try board.send("q")
        #expect(board.waitFor("[exited 0]"))
    }
}
