import Foundation
import PostgresSupport
import TestSupport
import Testing
import WorldCup

/// `worldcup zones`, `zone rename` and `zone move` through the built binary, on a SQLite file
/// and on the test server: the same answers, the history's lines, undo and redo, and the
/// one-sentence errors.
@Suite(.serialized) struct ZoneCommandLineTests {
    @Test(arguments: ["sqlite", "postgres"])
    func zonesRenameMoveMergeUndoAndHistory(store: String) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let server = store == "postgres" ? try await FreshDatabase.make() : nil
        defer { if let server { Task { await server.drop() } } }
        let database = server?.urlString ?? newBoardFile(in: folder)

        let zones = try worldcup(["zones"], on: database)
        #expect(zones.status == 0 && zones.out == """
            1  Africa  5 teams
            2  Asia  4 teams
            3  Europe  13 teams
            4  North, Central America & Caribbean  4 teams
            5  South America  6 teams

            """, "\(zones)")
        let json = try worldcup(["zones", "--json"], on: database)
        let objects = try #require(try JSONSerialization.jsonObject(with: Data(json.out.utf8)) as? [[String: Any]])
        #expect(objects.count == 5 && objects[0]["name"] as? String == "Africa" && objects[0]["position"] as? Int == 1 && objects[0]["teams"] as? Int == 5)
        #expect(json.out.contains(#""name" : "Africa",\#n    "position" : 1,\#n    "teams" : 5"#), "keys sorted: \(json.out)")

        let rename = try worldcup(["zone", "rename", "africa", "CAF"], on: database)
        #expect(rename.status == 0 && rename.out == "Renamed Africa to CAF.\n", "\(rename)")
        #expect(try worldcup(["history", "--limit", "1"], on: database).out.hasSuffix("  fan@laptop  Renamed Africa to CAF.\n"))
        let entry = try #require(try JSONSerialization.jsonObject(with: Data(try worldcup(["history", "--json", "--limit", "1"], on: database).out.utf8)) as? [[String: Any]])
        #expect(entry.first?["action"] as? String == "renameZone" && entry.first?["zone"] as? String == "CAF")
        #expect((entry.first?["old"] as? [String: Any])?["name"] as? String == "Africa" && (entry.first?["new"] as? [String: Any])?["position"] as? Int == 1)
        #expect(try worldcup(["list"], on: database).out.hasPrefix("CAF\n"))

        // Another zone's name (ignoring case and accents): without a terminal to ask on, only with --merge.
        #expect(refused(try worldcup(["zone", "rename", "CAF", "ásia"], on: database))
                == "“Asia” is already a zone, so “CAF” was not renamed: to merge it into that zone, give --merge (or answer y on a terminal).")
        let merge = try worldcup(["zone", "rename", "CAF", "ÁSIA", "--merge"], on: database)
        #expect(merge.status == 0 && merge.out == "Merged CAF into Asia (5 teams).\n", "\(merge)")
        #expect(try worldcup(["zones"], on: database).out.hasPrefix("1  Asia  9 teams\n2  Europe  13 teams\n"))
        #expect(try worldcup(["undo"], on: database).out == "Undid: Merged CAF into Asia (5 teams).\n")
        #expect(try worldcup(["zones"], on: database).out.hasPrefix("1  CAF  5 teams\n2  Asia  4 teams\n"))

        // The options may come before the command's name, as for every command.
        let move = try Executable.run(["WORLDCUP_AUTHOR=fan@laptop", Executable.worldcup.path, "--database", database, "zone", "move", "CAF", "--to", "5"],
                                      executable: URL(fileURLWithPath: "/usr/bin/env"))
        #expect(move.status == 0 && move.out == "Moved CAF to position 5.\n", "\(move)")
        let moved = try #require(try JSONSerialization.jsonObject(with: Data(try worldcup(["history", "--json", "--limit", "1"], on: database).out.utf8)) as? [[String: Any]])
        let moveID = try #require(moved.first?["id"] as? Int)
        #expect(try worldcup(["zones"], on: database).out.hasSuffix("5  CAF  5 teams\n"))
        #expect(refused(try worldcup(["zone", "move", "CAF", "--to", "9"], on: database)) == "There are 5 zones, so the position must be from 1 to 5.")
        #expect(refused(try worldcup(["zone", "move", "CAF", "--to", "5"], on: database)) == "CAF is at position 5 already, so nothing was changed.")
        #expect(refused(try worldcup(["zone", "move", "Nowhere", "--to", "1"], on: database)) == "There is no zone named “Nowhere” (worldcup zones lists them).")
        // Another author's move since: the guest's move is theirs, and fan's undo of it refused.
        #expect(try worldcup(["zone", "move", "Asia", "--to", "5"], on: database, author: "guest@pc").status == 0)
        let undo = try worldcup(["undo"], on: database)
        #expect(refused(undo)?.hasPrefix("The zone “CAF” has moved since (position 4 now), so the move was not taken back") == true, "\(undo)")
        #expect(try worldcup(["undo"], on: database, author: "guest@pc").out == "Undid: Moved Asia to position 5.\n")
        // Back where it was moved, the refused move is taken back by its id.
        #expect(try worldcup(["undo", "\(moveID)"], on: database).out == "Undid: Moved CAF to position 5.\n")
        #expect(try worldcup(["redo"], on: database).out == "Redid: Moved CAF to position 5.\n")

        #expect(refused(try worldcup(["zone", "rename", "CAF", "X", "--read-only"], on: database)) == ReadOnlyBoard.asked.refusal.description)
        #expect(refused(try worldcup(["zone", "rename", "CAF", " "], on: database)) == "The qualifying zone is empty.")
    }
}
