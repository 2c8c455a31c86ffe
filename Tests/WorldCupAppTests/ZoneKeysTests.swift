@testable import WorldCupApp
import Foundation
import LiveResults
import TerminalUI
import TestSupport
import Testing
import WorldCup
import WorldCupSQLite

/// `r`, `[` and `]`: the zone under the cursor renamed (or merged after y), moved up and down;
/// in the model, and on the screen over a real SQLite file.
@Suite("Zone keys")
struct ZoneKeysTests {
    @Test("r opens a dialog with the zone's name prefilled; typing replaces it, Enter asks to rename and the dialog waits for the outcome")
    func renameDialog() {
        var board = PureBoard()
        board.press(.character("r"))
        let form = try! #require(board.model.dialog)
        #expect(form.title == "Rename Zone" && form.values == ["Africa"] && form.fields[0].isSelected)
        for character in "CAF" { board.press(.character(character)) }
        #expect(board.press(.enter) == [.renameZone(id: 1, name: "Africa", to: "CAF")])
        #expect(board.model.dialog != nil, "open until the store answers")
        let change = TeamChange(action: .renameZone, zone: ZoneChange(before: Zone(id: 1, name: "Africa", position: 0), after: Zone(id: 1, name: "CAF", position: 0)), entryID: 7)
        _ = board.model.update(.finished(.renameZone(id: 1, name: "Africa", to: "CAF"), .zoneChanged(change)), data: board.data, now: 0)
        #expect(board.model.dialog == nil && board.model.status?.text == "Renamed Africa to CAF.")
        #expect(board.model.ownChanges.done.last?.entryID == 7, "u takes it back by its entry")
    }

    @Test("An empty name, the same name and Esc close the dialog with a sentence and ask nothing")
    func renameCancelled() {
        var board = PureBoard()
        board.press(.character("r"))
        board.press(.backspace)
        board.press(.character(" "))
        #expect(board.press(.enter).isEmpty)
        #expect(board.model.dialog == nil && board.model.status == .init(text: "A zone needs a name: Africa kept its name.", isError: true, expiry: BoardModel.errorSeconds))
        board.press(.character("r"))
        #expect(board.press(.enter).isEmpty)
        #expect(board.model.dialog == nil && board.model.status?.text == "Africa kept its name: nothing changed.")
        board.press(.character("r"))
        #expect(board.press(.escape).isEmpty)
        #expect(board.model.dialog == nil && board.model.status?.text == "Africa kept its name.")
    }

    @Test("A refusal of the store shows in the dialog, which stays open")
    func renameRefused() {
        var board = PureBoard()
        board.press(.character("r"))
        board.press(.character("X"))
        let effect = board.press(.enter)[0]
        board.model.beginWrite(effect, data: board.data)
        #expect(lines(board.render().grid)[22] == " Saving Africa…")
        _ = board.model.update(.finished(effect, .zoneRenameRefused("That zone no longer exists.")), data: board.data, now: 0)
        #expect(board.model.dialog?.message == "That zone no longer exists.")
    }

    @Test("Another zone's name asks y/N on the status line: n keeps both, y asks to merge")
    func mergeQuestion() {
        var board = PureBoard()
        let question = ZoneMergeNeeded(zone: Zone(id: 1, name: "Africa", position: 0), into: Zone(id: 2, name: "Asia", position: 1))
        let effect = BoardEffect.renameZone(id: 1, name: "Africa", to: "asia")
        board.press(.character("r"))
        _ = board.model.update(.finished(effect, .zoneMergeAsked(question)), data: board.data, now: 0)
        #expect(board.model.dialog == nil && board.model.isAskingQuestion)
        #expect(board.model.status?.text == "Asia is already a zone: merge Africa into it? y/N" && board.model.nextDeadline == nil)
        #expect(board.press(.character("n")).isEmpty)
        #expect(board.model.status?.text == "Nothing merged: Africa kept its name." && !board.model.isAskingQuestion)
        _ = board.model.update(.finished(effect, .zoneMergeAsked(question)), data: board.data, now: 0)
        #expect(board.press(.character("y")) == [.mergeZone(id: 1, name: "Africa", into: 2)])
        // The dialog closed and the add dialog open when the answer comes: the add's dialog stays.
        board.press(.character("+"))
        _ = board.model.update(.finished(effect, .zoneMergeAsked(question)), data: board.data, now: 0)
        #expect(board.model.dialog?.title == "Secret Team" && !board.model.isAskingQuestion)
        #expect(board.model.status?.text == "Asia is already a zone, so Africa was not renamed.")
    }

    @Test("[ and ] ask to move the zone next to the one shown above or below it; at the top and the bottom a sentence")
    func move() {
        var board = PureBoard()
        #expect(board.press(.character("[")).isEmpty)
        #expect(board.model.status?.text == "Africa is the first zone already: nothing moved.")
        #expect(board.press(.character("]")) == [.moveZone(id: 1, name: "Africa", nextTo: 2)])
        board.press(.tab)
        #expect(board.press(.character("[")) == [.moveZone(id: 2, name: "Asia", nextTo: 1)])
        board.press(.end)
        let last = board.data.zones.count
        #expect(board.press(.character("]")).isEmpty)
        #expect(board.model.status?.text == "\(board.data.zones[last - 1].name) is the last zone already: nothing moved.")
        #expect(board.press(.character("[")) == [.moveZone(id: Int64(last), name: board.data.zones[last - 1].name, nextTo: Int64(last - 1))])
    }

    @Test("A read-only board refuses r, [ and ] at once")
    func readOnly() {
        var board = PureBoard()
        board.model.readOnly = .asked
        for key in ["r", "[", "]"] {
            #expect(board.press(.character(Character(key))).isEmpty)
            #expect(board.model.dialog == nil && board.model.status?.text == ReadOnlyBoard.asked.refusal.description)
        }
    }

    @Test("The help lists r, [ and ]; the footer names r from 115 columns, [ and ] from 130")
    func helpAndFooter() {
        #expect(BoardModel.keyHelp.contains { $0.keys == "r  [  ]" && $0.action == "rename or merge the zone; move it up, down" })
        var board = PureBoard()
        let wide = lines(board.render(width: 130, height: 24).grid)[23]
        #expect(wide.hasSuffix("u/^R undo/redo  r rename zone  [/] move zone  ? help  q quit"), "\(wide)")
        let narrower = lines(board.render(width: 129, height: 24).grid)[23]
        #expect(!narrower.contains("move zone") && narrower.contains("u/^R undo/redo  r rename zone  ? help"), "\(narrower)")
        let rename = lines(board.render(width: 115, height: 24).grid)[23]
        #expect(rename.hasSuffix("u/^R undo/redo  r rename zone  ? help  q quit"), "\(rename)")
        let noRename = lines(board.render(width: 114, height: 24).grid)[23]
        #expect(noRename.hasSuffix("u/^R undo/redo  ? help  q quit"), "\(noRename)")
        let hundred = lines(board.render(width: 100, height: 24).grid)[23]
        #expect(!hundred.contains("zone  ?") && hundred.hasPrefix(" ↑↓/jk move"), "\(hundred)")
    }
}

/// The same keys on the screen, over a real SQLite file: the store writes, the controller's
/// section update, move and row moves reach the table, the cursor stays on its team, `u`
/// takes each back.
@Suite("ScoreboardScreen: zone keys")
struct ZoneKeysOnScreenTests {
    func sections(_ fixture: ScreenFixture) -> [String] {
        fixture.screen.table.sections.map(\.title)
    }

    static let seeded = ["Africa", "Asia", "Europe", "North, Central America & Caribbean", "South America"]

    @Test("r renames, ] moves, u takes each back, Ctrl-R makes the rename again; the cursor stays on Ghana")
    func renameMoveUndo() throws {
        let fixture = try ScreenFixture()
        _ = fixture.render(width: 80, height: 40)
        fixture.press(.down, times: 2)
        #expect(fixture.screen.selectedTeam?.teamName == "Ghana")
        fixture.press(.character("r"))
        fixture.type("CAF")
        fixture.press(.enter)
        #expect(fixture.screen.status?.text == "Renamed Africa to CAF.")
        #expect(sections(fixture) == ["CAF"] + Self.seeded.dropFirst())
        #expect(fixture.screen.selectedTeam?.teamName == "Ghana" && fixture.screen.selectedTeam?.qualifyingZone == "CAF")
        fixture.press(.character("]"))
        #expect(fixture.screen.status?.text == "Moved CAF to position 2.")
        #expect(sections(fixture) == ["Asia", "CAF", "Europe", "North, Central America & Caribbean", "South America"])
        #expect(fixture.screen.selectedTeam?.teamName == "Ghana")
        let screen = lines(fixture.render(width: 80, height: 40))
        #expect(screen.first { $0.hasPrefix("▶") }?.contains("Ghana") == true, "\(screen.joined(separator: "\n"))")
        fixture.press(.character("u"))
        #expect(fixture.screen.status?.text == "Undid: Moved CAF to position 2.")
        #expect(sections(fixture) == ["CAF"] + Self.seeded.dropFirst())
        fixture.press(.character("u"))
        #expect(fixture.screen.status?.text == "Undid: Renamed Africa to CAF.")
        #expect(sections(fixture) == Self.seeded)
        #expect(fixture.screen.selectedTeam?.teamName == "Ghana")
        #expect(try fixture.scoreboard.zones().map(\.zone.name) == Self.seeded)
        fixture.press(.control("r"))
        #expect(fixture.screen.status?.text == "Redid: Renamed Africa to CAF.")
        #expect(try fixture.scoreboard.zones().map(\.zone.name) == ["CAF"] + Self.seeded.dropFirst())
        #expect(fixture.screen.selectedTeam?.teamName == "Ghana")
    }

    @Test("r with another zone's name in another case asks, y merges with the cursor on Ghana, u brings the zone back")
    func merge() throws {
        let fixture = try ScreenFixture()
        _ = fixture.render(width: 80, height: 40)
        fixture.press(.down, times: 2)
        fixture.press(.character("r"))
        fixture.type("EUROPE")
        fixture.press(.enter)
        #expect(fixture.screen.status?.text == "Europe is already a zone: merge Africa into it? y/N")
        #expect(fixture.screen.dialog == nil)
        fixture.press(.character("y"))
        #expect(fixture.screen.status?.text == "Merged Africa into Europe (5 teams).")
        #expect(sections(fixture) == Array(Self.seeded.dropFirst()))
        #expect(fixture.screen.selectedTeam?.teamName == "Ghana" && fixture.screen.selectedTeam?.qualifyingZone == "Europe")
        fixture.press(.character("u"))
        #expect(fixture.screen.status?.text == "Undid: Merged Africa into Europe (5 teams).")
        #expect(sections(fixture) == Self.seeded)
        #expect(fixture.screen.selectedTeam?.teamName == "Ghana" && fixture.screen.selectedTeam?.qualifyingZone == "Africa")
    }

    @Test("Another program merges the cursor's zone, then renames and moves the one it joined: the board follows, names who did it, and the cursor stays on Ghana")
    func othersZoneChanges() throws {
        let fixture = try ScreenFixture()
        _ = fixture.render(width: 80, height: 40)
        fixture.press(.down, times: 2)
        let other = try SQLiteTeamStore(databaseURL: fixture.databaseURL, seedURL: nil, author: "fan@laptop")
        /// Waits for the other program's commit to be shown and named.
        func shown(_ sentence: String) {
            for _ in 0..<300 where fixture.screen.status?.text != sentence {
                usleep(10_000)
                fixture.screen.processChanges()
                fixture.clock.now += 1
                fixture.screen.tick()
                fixture.screen.finishWork()
            }
            #expect(fixture.screen.status?.text == sentence)
        }
        #expect(throws: ZoneMergeNeeded.self) { try other.renameZone(named: "Africa", to: "Asia") }
        try other.mergeZone(named: "Africa", into: "Asia")
        shown("fan@laptop: Merged Africa into Asia (5 teams).")
        #expect(sections(fixture) == Array(Self.seeded.dropFirst()))
        #expect(fixture.screen.selectedTeam?.teamName == "Ghana" && fixture.screen.selectedTeam?.qualifyingZone == "Asia")
        try other.renameZone(named: "Asia", to: "AFC")
        shown("fan@laptop: Renamed Asia to AFC.")
        #expect(sections(fixture) == ["AFC", "Europe", "North, Central America & Caribbean", "South America"])
        #expect(fixture.screen.selectedTeam?.teamName == "Ghana" && fixture.screen.selectedTeam?.qualifyingZone == "AFC")
        try other.moveZone(named: "AFC", to: 2)
        shown("fan@laptop: Moved AFC to position 3.")
        #expect(sections(fixture) == ["Europe", "North, Central America & Caribbean", "AFC", "South America"])
        #expect(fixture.screen.selectedTeam?.teamName == "Ghana")
    }

    @Test("The writes run off the loop as taps do: the board goes on, the outcome arrives")
    func offTheLoop() throws {
        let fixture = try ScreenFixture(writesOffTheLoop: true)
        _ = fixture.render(width: 80, height: 40)
        fixture.press(.character("]"))
        fixture.screen.finishWork()
        #expect(fixture.screen.status?.text == "Moved Africa to position 2.")
        #expect(sections(fixture) == ["Asia", "Africa", "Europe", "North, Central America & Caribbean", "South America"])
        #expect(fixture.screen.selectedTeam?.teamName == "Algeria")
    }
}
