import Foundation
import Testing
import TestSupport

/// Zones through the built binary in tmux: the merge question of `zone rename` on a terminal,
/// and a board following the zone changes another program makes.
@Suite("Zones end to end", .serialized)
struct ZoneEndToEndTests {
    @Test("zone rename to another zone's name asks y/N on a terminal: no changes nothing, yes merges")
    func mergeQuestion() throws {
        let database = temporaryDatabase()
        #expect(try Executable.run(["zones", "--database", database]).status == 0)
        let no = try TmuxTerminal(command: [Executable.worldcup.path, "--database", database, "zone", "rename", "Africa", "asia"])
        #expect(no.waitFor("Asia is already a zone: merge Africa into it? [y/N]"))
        try no.send("n", "Enter")
        #expect(no.waitFor("Error: Nothing was changed."))
        #expect(no.waitFor("[exited 1]"))
        #expect(try Executable.run(["zones", "--database", database]).out.hasPrefix("1  Africa  5 teams\n"))
        let yes = try TmuxTerminal(command: [Executable.worldcup.path, "--database", database, "zone", "rename", "Africa", "asia"])
        #expect(yes.waitFor("[y/N]"))
        try yes.send("y", "Enter")
        #expect(yes.waitFor("Merged Africa into Asia (5 teams)."))
        #expect(yes.waitFor("[exited 0]"))
        #expect(try Executable.run(["zones", "--database", database]).out.hasPrefix("1  Asia  9 teams\n"))
    }

    @Test("A board follows another program's rename, move and merge of a zone: the section's title, its place, its teams, and who did it")
    func boardFollowsZoneChanges() throws {
        let database = temporaryDatabase()
        let board = try TmuxTerminal(command: [Executable.worldcup.path, "--database", database], height: 50)
        #expect(board.waitFor("32 teams"))
        func sections() -> [String] { sectionTitles(board.screen) }
        func waitForSections(_ wanted: [String]) -> Bool {
            let deadline = Date().addingTimeInterval(10)
            while Date() < deadline, sections() != wanted { Thread.sleep(forTimeInterval: 0.05) }
            return sections() == wanted
        }
        #expect(waitForSections(["Africa", "Asia", "Europe", "North, Central America & Caribbean", "South America"]), "\(sections())")
        #expect(try Executable.run(["zone", "rename", "Asia", "AFC", "--database", database, "--author", "fan@laptop"]).status == 0)
        #expect(waitForSections(["Africa", "AFC", "Europe", "North, Central America & Caribbean", "South America"]), "\(sections())")
        #expect(board.waitFor("fan@laptop: Renamed Asia to AFC."))
        #expect(try Executable.run(["zone", "move", "South America", "--to", "1", "--database", database]).status == 0)
        #expect(waitForSections(["South America", "Africa", "AFC", "Europe", "North, Central America & Caribbean"]), "\(sections())")
        // Named before the next change, which a board that reads both at once names as "2 changes".
        #expect(board.waitFor("Moved South America to position"))
        #expect(try Executable.run(["zone", "rename", "Africa", "afc", "--merge", "--database", database]).status == 0)
        #expect(waitForSections(["South America", "AFC", "Europe", "North, Central America & Caribbean"]), "\(sections())")
        #expect(board.waitFor("Merged Africa into AFC (5 teams)."))
        #expect(board.screen.contains("32 teams") && board.screen.contains("[GHA] Ghana"))
        try board.send("q")
        #expect(board.waitFor("[exited 0]"))
    }
}
