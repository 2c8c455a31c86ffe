import Foundation
import Synchronization
import Testing
import TestSupport

/// The stories of issue 40 ("Undo you can trust"), each through the built binary: a board in
/// tmux and the command line sharing an author, on a file and on a server.
extension UndoEndToEndTests {
    /// Moves the board's cursor down `downs` rows, onto the row whose badge is `badge` (the
    /// title may name the team too, as the leader).
    func select(_ badge: String, downs: Int, on board: TmuxTerminal) throws {
        for _ in 0..<downs { try board.send("Down") }
        try #require(board.waitForCursor(on: badge))
    }

    @Test("Story 1: a tap undone by the command line is not undone again by the board's u; another author's taps stay", arguments: ["sqlite", "postgres"])
    func oneTapTakenBackOnce(store: String) throws {
        let place = try Place(store)
        _ = try place.worldcup(["tap", "Korea", "--author", "b@pc"])
        _ = try place.worldcup(["tap", "Korea", "--author", "b@pc"])
        let board = try place.board(author: "a@pc")
        // With its 2 wins Korea leads Asia, after Africa's five teams.
        try select("KOR]", downs: 5, on: board)
        try board.send("Enter")
        #expect(board.waitFor("Korea: 3 wins."))
        #expect(try place.worldcup(["undo", "--author", "a@pc"]).contains("Undid: Korea +1 win."))
        try board.send("u")
        #expect(board.waitFor("Korea +1 win was already taken back by a@pc."), "\(board.screen)")
        #expect(try place.teams()["Korea"]?.wins == 2, "b@pc's two taps stay")
        #expect(try place.history().filter { $0["action"] as? String == "undo" }.count == 1, "one undo in the history")
        try board.send("u")
        #expect(board.waitFor("Nothing to undo"), "the refused undo was dropped")
    }

    @Test("Story 2: the board's u takes back its own rename, not the command line's later move of the same team", arguments: ["sqlite", "postgres"])
    func theBoardsUndoTakesBackItsOwnEntry(store: String) throws {
        let place = try Place(store)
        let board = try place.board()
        try selectGhana(board)
        try board.send("e")
        #expect(board.waitFor("Edit Team"))
        try board.send("Ghana FC", literal: true)
        try board.send("Enter")
        #expect(board.waitFor("Edited Ghana FC: name Ghana → Ghana FC."), "\(board.screen)")
        _ = try place.worldcup(["edit", "Ghana FC", "--zone", "Asia", "--author", "fan@laptop"])
        try board.send("u")
        #expect(board.waitFor("Undid: Edited Ghana FC: name Ghana → Ghana FC."), "\(board.screen)")
        #expect(try place.ghana()?.zone == "Asia", "the move stays")
        let edits = try place.history().filter { $0["action"] as? String == "edit" }
        let rename = edits.first { ($0["new"] as? [String: Any])?["name"] as? String == "Ghana FC" && ($0["new"] as? [String: Any])?["zone"] as? String == "Africa" }
        let move = edits.first { ($0["new"] as? [String: Any])?["zone"] as? String == "Asia" }
        #expect(rename?["undone"] as? Bool == true, "the rename is marked undone")
        #expect(move?["undone"] == nil, "the move is not")
        #expect(try place.worldcup(["undo", "--author", "fan@laptop"]).contains("Undid: Edited Ghana: zone Africa → Asia."))
        #expect(try place.ghana()?.zone == "Africa")
    }

    @Test("Story 3: an add and two edits undone, then redone: the team comes back with its id and both edits", arguments: ["sqlite", "postgres"])
    func redoAfterAddAndEdits(store: String) throws {
        let place = try Place(store)
        let board = try place.board()
        try board.send("+")
        try #require(board.waitFor("Secret Team"))
        try board.send("Atlantis", literal: true)
        try board.send("Tab", "C-u")
        try board.send("Oceania", literal: true)
        try board.send("Enter")
        try #require(board.waitFor("Added Atlantis to Oceania."))
        try board.send("e")
        try #require(board.waitFor("Edit Team"))
        try board.send("Atlantida", literal: true)
        try board.send("Enter")
        try #require(board.waitFor("Edited Atlantida: name Atlantis → Atlantida."))
        try board.send("e")
        try #require(board.waitFor("Edit Team"))
        try board.send("Tab", "Tab", "C-u")
        try board.send("3", literal: true)
        try board.send("Enter")
        try #require(board.waitFor("Edited Atlantida: wins 0 → 3."))
        for undone in ["Edited Atlantida: wins 0 → 3.", "Edited Atlantida: name Atlantis → Atlantida.", "Added Atlantis to Oceania."] {
            try board.send("u")
            #expect(board.waitFor("Undid: " + undone), "\(board.screen)")
        }
        #expect(try place.teams()["Atlantis"] == nil && place.teams()["Atlantida"] == nil)
        for redone in ["Added Atlantis to Oceania.", "Edited Atlantida: name Atlantis → Atlantida.", "Edited Atlantida: wins 0 → 3."] {
            try board.send("C-r")
            #expect(board.waitFor("Redid: " + redone), "\(board.screen)")
        }
        #expect(try place.teams()["Atlantida"].map { [$0.zone, "\($0.wins)"] } == ["Oceania", "3"])
    }

    @Test("Story 4: after a refused worldcup undo, the next one goes on to the change before, and the refused one is reached by its id", arguments: ["sqlite", "postgres"])
    func theCommandLineAfterARefusal(store: String) throws {
        let place = try Place(store)
        _ = try place.worldcup(["tap", "Ghana", "--author", "fan@laptop"])
        _ = try place.worldcup(["delete", "Nigeria", "--author", "fan@laptop"])
        _ = try place.worldcup(["add", "NIGERIA", "--zone", "Elsewhere", "--author", "guest@pc"])
        let refused = try place.run(["undo", "--author", "fan@laptop"])
        #expect(refused.status != 0)
        #expect(refused.err.contains("A team named “NIGERIA” exists again"), "\(refused.err)")
        let next = try place.run(["undo", "--author", "fan@laptop"])
        #expect(next.status == 0 && next.out.contains("Undid: Ghana +1 win."), "not the same refusal again: \(next.err)")
        let delete = try #require(try place.history().first { $0["action"] as? String == "delete" }?["id"] as? Int)
        #expect(refused.err.contains("worldcup undo \(delete) tries this one again"), "the refusal says how to reach it: \(refused.err)")
        _ = try place.worldcup(["delete", "NIGERIA", "--author", "guest@pc"])
        #expect(try place.worldcup(["undo", "\(delete)", "--author", "fan@laptop"]).contains("Undid: Deleted Nigeria."))
        #expect(try place.teams()["Nigeria"] != nil)
        #expect(try place.worldcup(["history"]).contains("\(delete)  "), "the history shows each entry's id")
    }

    @Test("Story 5: a redo after another author's tap is refused for an edit of the wins, and is a tap again for a tap", arguments: ["sqlite", "postgres"])
    func redoAfterAnothersTap(store: String) throws {
        let place = try Place(store)
        let board = try place.board()
        try select("ALG]", downs: 0, on: board)
        try board.send("e")
        try #require(board.waitFor("Edit Team"))
        try board.send("Tab", "Tab", "C-u")
        try board.send("5", literal: true)
        try board.send("Enter")
        try #require(board.waitFor("Edited Algeria: wins 0 → 5."))
        try board.send("u")
        try #require(board.waitFor("Undid: Edited Algeria: wins 0 → 5."))
        _ = try place.worldcup(["tap", "Algeria", "--author", "guest@pc"])
        #expect(board.waitFor("guest@pc: Algeria +1 win."))
        try board.send("C-r")
        #expect(board.waitFor("Algeria has been tapped since the undo, so the edit was not made again."), "\(board.screen)")
        #expect(try place.teams()["Algeria"]?.wins == 1, "neither 6 nor 5")
        try board.send("Enter")
        #expect(board.waitFor("Algeria: 2 wins."))
        try board.send("u")
        #expect(board.waitFor("Undid: Algeria +1 win."))
        _ = try place.worldcup(["tap", "Algeria", "--author", "guest@pc"])
        #expect(board.waitFor("Wins: 2"), "the guest's tap shows")
        try board.send("C-r")
        #expect(board.waitFor("Redid: Algeria +1 win."), "\(board.screen)")
        #expect(try place.teams()["Algeria"]?.wins == 3, "the redo is a tap again, beside the guest's")
    }

    @Test("Two programs undoing the same entry at the same moment, 100 times: taken back exactly once each time", arguments: ["sqlite", "postgres"])
    func twoProgramsUndoingOneEntry(store: String) throws {
        let place = try Place(store)
        _ = try place.worldcup(["tap", "Korea", "--author", "b@pc"])
        let rounds = 100
        for round in 0..<rounds {
            _ = try place.worldcup(["tap", "Korea", "--author", "a@pc"])
            let entry = try #require(try place.history().first?["id"] as? Int)
            // Two processes started together: each opens the store, then asks for the undo.
            let outcomes = Mutex<[(status: Int32, out: String, err: String)]>([])
            DispatchQueue.concurrentPerform(iterations: 2) { _ in
                let outcome = (try? place.run(["undo", "\(entry)", "--author", "a@pc"])) ?? (-1, "", "did not run")
                outcomes.withLock { $0.append(outcome) }
            }
            let ran = outcomes.withLock { $0 }
            #expect(ran.filter { $0.status == 0 }.count == 1, "round \(round): \(ran)")
            #expect(ran.filter { $0.err.contains("Korea +1 win was already taken back by a@pc.") }.count == 1, "round \(round): \(ran)")
        }
        #expect(try place.teams()["Korea"]?.wins == 1)
    }
}
