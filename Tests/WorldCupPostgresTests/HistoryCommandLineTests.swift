import Foundation
import PostgresSupport
import TestSupport
import Testing
import WorldCup

/// `worldcup edit`, `undo` and `history` through the built binary, on a SQLite file and on
/// the test server: the same answers, the same one-sentence errors.
@Suite(.serialized) struct HistoryCommandLineTests {
    @Test(arguments: ["sqlite", "postgres"])
    func editUndoAndHistory(store: String) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let server = store == "postgres" ? try await FreshDatabase.make() : nil
        defer { if let server { Task { await server.drop() } } }
        let database = server?.urlString ?? newBoardFile(in: folder)

        #expect(try worldcup(["tap", "Brazil"], on: database).status == 0)
        #expect(try worldcup(["add", "Gahna", "--zone", "Afirca"], on: database, author: "guest@pc").status == 0)
        let edit = try worldcup(["edit", "gahna", "--name", "Wakanda", "--zone", "africa", "--wins", "2"], on: database, author: "guest@pc")
        #expect(edit.status == 0 && edit.out == "Edited Wakanda: name Gahna → Wakanda, zone Afirca → Africa, wins 0 → 2.\n", "\(edit)")
        #expect(refused(try worldcup(["edit", "Nobody", "--wins", "1"], on: database)) == "There is no team named “Nobody”.")
        #expect(refused(try worldcup(["edit", "Wakanda", "--name", "BRAZIL"], on: database)) == "A team named “Brazil” already exists.")
        #expect(refused(try worldcup(["edit", "Wakanda"], on: database)) == "Give --name, --zone or --wins: what the team should become.")
        #expect(refused(try worldcup(["edit", "Wakanda", "--wins=-3"], on: database)) == "The wins must be a whole number from 0 to \(Seed.maximumWins).")

        // Each author's undo takes back their own last change.
        let undo = try worldcup(["undo"], on: database)
        #expect(undo.status == 0 && undo.out == "Undid: Brazil +1 win.\n", "\(undo)")
        #expect(refused(try worldcup(["undo"], on: database)) == "There is nothing of fan@laptop's to undo.")
        let guestUndo = try worldcup(["undo"], on: database, author: "guest@pc")
        #expect(guestUndo.out == "Undid: Edited Wakanda: name Gahna → Wakanda, zone Afirca → Africa, wins 0 → 2.\n", "\(guestUndo)")
        #expect(refused(try worldcup(["undo", "--read-only"], on: database)) == ReadOnlyBoard.asked.refusal.description)

        let history = try worldcup(["history", "--limit", "3"], on: database)
        let lines = history.out.split(separator: "\n")
        #expect(lines.count == 3)
        #expect(lines.first?.hasSuffix("  guest@pc  Edited Gahna back: name Wakanda → Gahna, zone Africa → Afirca, wins 2 → 0.") == true, "\(history.out)")
        let json = try JSONSerialization.jsonObject(with: Data(worldcup(["history", "--json"], on: database).out.utf8)) as! [[String: Any]]
        #expect(json.map { $0["action"] as! String } == ["undo", "undo", "edit", "add", "tap"])
        #expect(json.map { $0["by"] as! String } == ["guest@pc", "fan@laptop", "guest@pc", "guest@pc", "fan@laptop"])
        #expect(json[2]["team"] as? String == "Wakanda")
        #expect((json[2]["old"] as? [String: Any])?["name"] as? String == "Gahna")
        #expect((json[2]["new"] as? [String: Any])?["zone"] as? String == "Africa", "the board's spelling of the zone")
        #expect(json[2]["undone"] as? Bool == true)
        #expect((json[0]["at"] as? String).map { ISO8601DateFormatter().date(from: $0) != nil } == true)
        #expect(refused(try worldcup(["history", "--limit", "0"], on: database)) == "--limit takes a number of changes, 1 or more.")
    }
}
