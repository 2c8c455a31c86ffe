import Foundation
import Testing
import TestSupport

/// Every Enter counts, through the built binary in a real terminal: taps of one team pressed
/// faster than they are saved queue behind each other, the row shows their sum at once, and
/// the database ends with every one of them; and the board's own changes are never named as
/// another program's, on a SQLite file and on a PostgreSQL server.
@Suite("Every Enter counts, end to end", .serialized)
struct TapQueueEndToEndTests {
    typealias Place = UndoEndToEndTests.Place

    /// Presses Enter `count` times in one go, as fast as tmux sends keys.
    func pressEnter(_ count: Int, on board: TmuxTerminal) throws {
        let keys = [String](repeating: "Enter", count: count)
        try board.tmux(["send-keys", "-t", "0"] + keys)
    }

    @Test("20 quick Enters on one team count 20: the board says so, and so does the database", arguments: ["sqlite", "postgres"])
    func twentyQuickEnters(store: String) throws {
        let place = try Place(store)
        let board = try place.board()
        try pressEnter(20, on: board)
        #expect(board.waitFor("Algeria: 20 wins."), "every Enter counted")
        #expect(board.line(containing: "[ALG] Algeria")?.contains("Wins: 20") == true, "\(board.screen)")
        #expect(!board.screen.contains("still being saved"), "no Enter refused:\n\(board.screen)")
        #expect(try place.teams()["Algeria"]?.wins == 20)
    }

    @Test("Through a relay adding 50 ms each way: 20 quick Enters count 20, and the board never names its own taps as another's")
    func twentyQuickEntersThroughARelay() throws {
        let server = try SharedServer()
        let relay = try TCPRelay(upstream: server.relayUpstream, delayMilliseconds: 50)
        defer { relay.kill() }
        let board = try TmuxTerminal(command: server.board(port: relay.port) + ["--author", "fan@laptop"], width: 100, height: 40)
        try #require(board.waitFor("32 teams", seconds: 30))
        try pressEnter(20, on: board)
        #expect(board.waitFor("Algeria: 20 wins.", seconds: 30), "every Enter counted:\n\(board.screen)")
        #expect(board.line(containing: "[ALG] Algeria")?.contains("Wins: 20") == true, "\(board.screen)")
        #expect(!board.screen.contains("still being saved"), "no Enter refused:\n\(board.screen)")
        #expect(try server.wins()["Algeria"] == 20)
        // The board's sentence stays 4 s; what waited behind it would be said then.
        let named = waitUntil(seconds: 6) {
            ["another program", "changes by", "fan@laptop:"].contains { board.screen.contains($0) }
        }
        #expect(!named, "the board named its own taps as another's:\n\(board.screen)")
    }

    @Test("Two boards and the command line tapping one team at once on PostgreSQL: the total equals the taps made, on both boards too")
    func twoBoardsAndTheCommandLine() throws {
        let place = try Place("postgres")
        let first = try place.board()
        let second = try place.board(author: "guest@pc")
        let commandLine = Thread { for _ in 0..<8 { _ = try? place.worldcup(["tap", "Algeria"]) } }
        commandLine.start()
        for _ in 0..<5 {
            try pressEnter(5, on: first)
            try pressEnter(5, on: second)
        }
        let total = 2 * 25 + 8
        let counted = waitUntil(seconds: 20) { (try? place.teams()["Algeria"]?.wins) == total }
        #expect(counted, "Algeria has \((try? place.teams()["Algeria"]?.wins) ?? -1) wins, not \(total)")
        for board in [first, second] {
            let shown = waitUntil(seconds: 10) { board.line(containing: "[ALG] Algeria")?.contains("Wins: \(total)") == true }
            #expect(shown, "the board shows every tap:\n\(board.screen)")
        }
    }

    @Test("The board's own zone rename and tap are never named as another program's, even once its sentence is gone", arguments: ["sqlite", "postgres"])
    func ownChangesNotNamedAsOthers(store: String) throws {
        let place = try Place(store)
        let board = try place.board()
        try board.send("r")
        #expect(board.waitFor("Rename Zone"))
        try board.send("CAF", literal: true)
        try board.send("Enter")
        #expect(board.waitFor("Renamed Africa to CAF."))
        try board.send("]")
        #expect(board.waitFor("Moved CAF"))
        try pressEnter(3, on: board)
        #expect(board.waitFor("Algeria: 3 wins."))
        // The board's sentence stays 4 s; what waited behind it would be said then.
        let named = waitUntil(seconds: 6) { board.screen.contains("another program") || board.screen.contains("changes by") }
        #expect(!named, "the board named its own change as another's:\n\(board.screen)")
    }
}
