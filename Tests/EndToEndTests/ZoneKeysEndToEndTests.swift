import Foundation
import Testing
import TestSupport

/// The board's keys for zones, through the built binary in a real terminal, on a SQLite file
/// and on a PostgreSQL server: `r` renames the zone under the cursor (another zone's name
/// asks y/N to merge), `[` and `]` move it; a second board follows each change without a key
/// and names who made it; `u` takes a zone's change back.
@Suite("Zone keys end to end", .serialized)
struct ZoneKeysEndToEndTests {
    typealias Place = UndoEndToEndTests.Place

    static let seeded = ["Africa", "Asia", "Europe", "North, Central America & Caribbean", "South America"]

    /// Waits until `board` shows these sections, top to bottom.
    func waitForSections(_ board: TmuxTerminal, _ wanted: [String], sourceLocation: SourceLocation = #_sourceLocation) {
        let shown = waitUntil(seconds: 10) { sectionTitles(board.screen) == wanted }
        #expect(shown, "sections \(sectionTitles(board.screen)), not \(wanted):\n\(board.screen)", sourceLocation: sourceLocation)
    }

    /// The board (fan@laptop's, the cursor on Ghana in Africa) and a second board watching (guest@pc's).
    func boards(_ place: Place) throws -> (board: TmuxTerminal, watcher: TmuxTerminal) {
        let board = try place.board()
        let watcher = try place.board(author: "guest@pc")
        try board.send("Down", "Down")
        try #require(board.waitForCursor(on: "Ghana"))
        return (board, watcher)
    }

    /// The zones' names in order, from `worldcup zones --json`.
    func zones(_ place: Place) throws -> [String] {
        let zones = try JSONSerialization.jsonObject(with: Data(place.worldcup(["zones", "--json"]).utf8)) as! [[String: Any]]
        return zones.map { $0["name"] as! String }
    }

    @Test("r renames the zone under the cursor, the other board follows and names who did it, u renames it back", arguments: ["sqlite", "postgres"])
    func rename(store: String) throws {
        let place = try Place(store)
        let (board, watcher) = try boards(place)
        try board.send("r")
        #expect(board.waitFor("Rename Zone"))
        #expect(board.screen.contains("Africa"))
        // The name is prefilled and selected: typing replaces it.
        try board.send("CAF", literal: true)
        try board.send("Enter")
        #expect(board.waitFor("Renamed Africa to CAF."))
        waitForSections(board, ["CAF"] + Self.seeded.dropFirst())
        #expect(board.waitForCursor(on: "Ghana"))
        waitForSections(watcher, ["CAF"] + Self.seeded.dropFirst())
        #expect(watcher.waitFor("fan@laptop: Renamed Africa to CAF."))
        #expect(try zones(place) == ["CAF"] + Self.seeded.dropFirst())

        try board.send("u")
        #expect(board.waitFor("Undid: Renamed Africa to CAF."))
        waitForSections(board, Self.seeded)
        #expect(board.waitForCursor(on: "Ghana"))
        waitForSections(watcher, Self.seeded)
        #expect(watcher.waitFor("fan@laptop: Renamed CAF back to Africa."))
        #expect(try zones(place) == Self.seeded)
    }

    @Test("] and [ move the zone under the cursor down and up, the other board follows; at the bottom and the top a sentence, nothing written", arguments: ["sqlite", "postgres"])
    func move(store: String) throws {
        let place = try Place(store)
        let (board, watcher) = try boards(place)
        try board.send("[")
        #expect(board.waitFor("Africa is the first zone already: nothing moved."))
        try board.send("]")
        #expect(board.waitFor("Moved Africa to position 2."))
        waitForSections(board, ["Asia", "Africa", "Europe", "North, Central America & Caribbean", "South America"])
        #expect(board.waitForCursor(on: "Ghana"))
        waitForSections(watcher, ["Asia", "Africa", "Europe", "North, Central America & Caribbean", "South America"])
        #expect(watcher.waitFor("fan@laptop: Moved Africa to position 2."))
        try board.send("[")
        #expect(board.waitFor("Moved Africa to position 1."))
        waitForSections(board, Self.seeded)
        #expect(board.waitForCursor(on: "Ghana"))
        waitForSections(watcher, Self.seeded)
        try board.send("End")
        #expect(board.waitForCursor(on: "Uruguay"))
        try board.send("]")
        #expect(board.waitFor("South America is the last zone already: nothing moved."))
        #expect(try zones(place) == Self.seeded)
        // The two moves and nothing else.
        #expect(try place.history().map { $0["action"] as? String } == ["moveZone", "moveZone"])
    }

    @Test("r with another zone's name asks y/N: n keeps both zones, y merges, the other board follows, u takes the merge back", arguments: ["sqlite", "postgres"])
    func merge(store: String) throws {
        let place = try Place(store)
        let (board, watcher) = try boards(place)
        try board.send("r")
        #expect(board.waitFor("Rename Zone"))
        try board.send("asia", literal: true)
        try board.send("Enter")
        #expect(board.waitFor("Asia is already a zone: merge Africa into it? y/N"))
        try board.send("n")
        #expect(board.waitFor("Nothing merged: Africa kept its name."))
        #expect(try zones(place) == Self.seeded)

        try board.send("r")
        #expect(board.waitFor("Rename Zone"))
        try board.send("ASIA", literal: true)
        try board.send("Enter")
        #expect(board.waitFor("Asia is already a zone: merge Africa into it? y/N"))
        try board.send("y")
        #expect(board.waitFor("Merged Africa into Asia (5 teams)."))
        waitForSections(board, Array(Self.seeded.dropFirst()))
        #expect(board.waitForCursor(on: "Ghana"))
        waitForSections(watcher, Array(Self.seeded.dropFirst()))
        #expect(watcher.waitFor("fan@laptop: Merged Africa into Asia (5 teams)."))
        #expect(watcher.screen.contains("32 teams"))
        #expect(try zones(place) == Array(Self.seeded.dropFirst()))

        try board.send("u")
        #expect(board.waitFor("Undid: Merged Africa into Asia (5 teams)."))
        waitForSections(board, Self.seeded)
        #expect(board.waitForCursor(on: "Ghana"))
        waitForSections(watcher, Self.seeded)
        #expect(try zones(place) == Self.seeded)
    }

    @Test("Refusals: an empty name, the same name, Esc, a zone another program merged meanwhile, a read-only board; nothing written", arguments: ["sqlite", "postgres"])
    func refusals(store: String) throws {
        let place = try Place(store)
        let board = try place.board()
        try board.send("Down", "Down")
        try #require(board.waitForCursor(on: "Ghana"))
        try board.send("r")
        #expect(board.waitFor("Rename Zone"))
        // Backspace clears the prefilled name; spaces are no name either.
        try board.send("BSpace")
        try board.send("   ", literal: true)
        try board.send("Enter")
        #expect(board.waitFor("A zone needs a name: Africa kept its name."))
        try board.send("r")
        #expect(board.waitFor("Rename Zone"))
        try board.send("Enter")
        #expect(board.waitFor("Africa kept its name: nothing changed."))
        try board.send("r")
        #expect(board.waitFor("Rename Zone"))
        try board.send("Escape")
        #expect(board.waitFor("Africa kept its name."))
        #expect(!board.screen.contains("Rename Zone"))
        #expect(try place.history().isEmpty)

        // The dialog open while another program merges its zone away: the store refuses, in the dialog.
        try board.send("r")
        #expect(board.waitFor("Rename Zone"))
        _ = try place.worldcup(["zone", "rename", "Africa", "Asia", "--merge"])
        try board.send("CAF", literal: true)
        try board.send("Enter")
        #expect(board.waitFor("That zone no longer exists."))
        #expect(board.screen.contains("Rename Zone"), "the dialog stays open with the refusal:\n\(board.screen)")
        try board.send("Escape")
        #expect(try zones(place) == Array(Self.seeded.dropFirst()))

        let spectator = try TmuxTerminal(command: [Executable.worldcup.path, "--read-only", "--database", place.database], width: 100, height: 40)
        try #require(spectator.waitFor("32 teams"))
        for key in ["r", "]"] {
            try spectator.send(key)
            #expect(spectator.waitFor("This board is read-only (--read-only or WORLDCUP_READ_ONLY), so nothing was changed."))
            #expect(!spectator.screen.contains("Rename Zone"))
            try spectator.send("Escape")
            #expect(spectator.waitFor("q quits"))
        }
        #expect(try zones(place) == Array(Self.seeded.dropFirst()))
        #expect(try place.history().count == 1, "only the other program's merge")
    }
}

/// The sections' titles a board shows, top to bottom: between the title line and the status
/// and footer lines, a title starts with one space (a team's row with two).
func sectionTitles(_ screen: String) -> [String] {
    screen.split(separator: "\n", omittingEmptySubsequences: false).dropFirst().dropLast(3).filter { $0.hasPrefix(" ") && !$0.hasPrefix("  ") }
        .map { String($0.dropFirst().prefix(40)).trimmingCharacters(in: .whitespaces) }
}
