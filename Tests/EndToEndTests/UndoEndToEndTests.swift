import Foundation
import Testing
import TestSupport

/// A wrong tap, a wrong zone and a wrong delete, each fixed with `u`, through the built
/// binary in a real terminal, on a SQLite file and on a PostgreSQL server (where a second
/// board shows the undo).
@Suite("Undo end to end", .serialized)
struct UndoEndToEndTests {
    /// The store a test runs on: a file, or a throwaway server with a second board watching.
    final class Place: Sendable {
        let server: SharedServer?
        let database: String

        init(_ kind: String) throws {
            server = kind == "postgres" ? try SharedServer() : nil
            database = server?.url() ?? temporaryDatabase()
        }

        func worldcup(_ arguments: [String]) throws -> String {
            let result = try run(arguments)
            guard result.status == 0 else { throw SharedServerError("worldcup \(arguments.joined(separator: " ")): \(result.err)") }
            return result.out
        }

        /// Runs `worldcup` on the place, whatever its outcome.
        func run(_ arguments: [String]) throws -> (status: Int32, out: String, err: String) {
            try Executable.run(arguments + ["--database", database])
        }

        /// Every team's zone and wins, by name, from `worldcup list --json`.
        func teams() throws -> [String: (zone: String, wins: Int)] {
            let teams = try JSONSerialization.jsonObject(with: Data(worldcup(["list", "--json"]).utf8)) as! [[String: Any]]
            return Dictionary(uniqueKeysWithValues: teams.map { ($0["teamName"] as! String, ($0["qualifyingZone"] as! String, $0["wins"] as! Int)) })
        }

        /// The history, newest first, from `worldcup history --json`.
        func history() throws -> [[String: Any]] {
            try JSONSerialization.jsonObject(with: Data(worldcup(["history", "--json"]).utf8)) as! [[String: Any]]
        }

        /// Ghana's zone and wins, from `worldcup list --json`; nil when there is no Ghana.
        func ghana() throws -> (zone: String, wins: Int)? {
            let teams = try JSONSerialization.jsonObject(with: Data(worldcup(["list", "--json"]).utf8)) as! [[String: Any]]
            return teams.first { $0["teamName"] as? String == "Ghana" }.map { ($0["qualifyingZone"] as! String, $0["wins"] as! Int) }
        }

        func board(author: String = "fan@laptop") throws -> TmuxTerminal {
            let terminal = try TmuxTerminal(command: [Executable.worldcup.path, "--database", database, "--author", author], width: 100, height: 40)
            try #require(terminal.waitFor("32 teams"))
            return terminal
        }
    }

    /// Moves the board's cursor to Ghana (Algeria, Cameroon, Ghana in Africa).
    func selectGhana(_ board: TmuxTerminal) throws {
        try board.send("Down", "Down")
        try #require(board.waitForCursor(on: "Ghana"))
    }

    @Test("Tap then u: the win goes, and the status line says so", arguments: ["sqlite", "postgres"])
    func tapThenUndo(store: String) throws {
        let place = try Place(store)
        let board = try place.board()
        let watcher = try place.server.map { _ in try place.board() }
        try selectGhana(board)
        try board.send("Enter")
        #expect(board.waitFor("Ghana: 1 win."))
        if let watcher {
            #expect(watcher.waitFor("fan@laptop: Ghana +1 win."), "the other board names who tapped:\n\(watcher.screen)")
            #expect(BoardRows(watcher.screen).wins["Ghana"] == 1)
        }
        try board.send("u")
        #expect(board.waitFor("Undid: Ghana +1 win."), "\(board.screen)")
        #expect(try place.ghana()?.wins == 0)
        if let watcher {
            #expect(watcher.waitFor("fan@laptop: Ghana −1 win (undo)."), "the other board names the undo:\n\(watcher.screen)")
            #expect(waitUntil(seconds: 5) { BoardRows(watcher.screen).wins["Ghana"] == 0 }, "the other board shows the undo:\n\(watcher.screen)")
        }
        try board.send("u")
        #expect(board.waitFor("Nothing to undo"))
        #expect(try place.worldcup(["history"]).contains("fan@laptop  Ghana −1 win (undo)."))
    }

    @Test("Edit of the zone then u: the row moves to Asia and back, the cursor with it", arguments: ["sqlite", "postgres"])
    func editZoneThenUndo(store: String) throws {
        let place = try Place(store)
        let board = try place.board()
        try selectGhana(board)
        try board.send("e")
        #expect(board.waitFor("Edit Team"))
        try board.send("Tab")
        try board.send("Asia", literal: true)
        try board.send("Enter")
        #expect(board.waitFor("Edited Ghana: zone Africa → Asia."), "\(board.screen)")
        #expect(board.waitForCursor(on: "Ghana"))
        #expect(try place.ghana()?.zone == "Asia")
        let rows = BoardRows(board.screen).names
        #expect(rows.firstIndex(of: "Ghana").map { $0 > rows.firstIndex(of: "Nigeria")! } == true, "Ghana moved below Africa's teams:\n\(board.screen)")
        try board.send("u")
        #expect(board.waitFor("Undid: Edited Ghana: zone Africa → Asia."), "\(board.screen)")
        #expect(try place.ghana()?.zone == "Africa")
        #expect(board.waitForCursor(on: "Ghana"))
    }

    @Test("Delete then u: the team comes back with its wins", arguments: ["sqlite", "postgres"])
    func deleteThenUndo(store: String) throws {
        let place = try Place(store)
        _ = try place.worldcup(["edit", "Ghana", "--wins", "3"])
        let board = try place.board()
        // With its 3 wins Ghana leads Africa: the cursor starts on it (the title names it too).
        try #require(board.waitForCursor(on: "Wins: 3"))
        try board.send("d")
        #expect(board.waitFor("Delete Ghana? y/N"))
        try board.send("y")
        #expect(board.waitFor("Deleted Ghana."))
        #expect(try place.ghana() == nil)
        try board.send("u")
        #expect(board.waitFor("Undid: Deleted Ghana."), "\(board.screen)")
        #expect(try place.ghana()?.wins == 3)
        #expect(board.waitFor("32 teams"))
    }
}
