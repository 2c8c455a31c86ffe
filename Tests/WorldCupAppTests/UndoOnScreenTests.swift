import Foundation
import TerminalUI
import TestSupport
import Testing
import WorldCup
@testable import WorldCupApp
import WorldCupSQLite

/// `e`, `u` and Ctrl-R on the screen, over a real SQLite file: the edit of a zone is the
/// controller's cross-section move, a new section made and an emptied one removed, the
/// cursor with the team.
@Suite("ScoreboardScreen: edit, undo, redo")
struct UndoOnScreenTests {
    func sections(_ fixture: ScreenFixture) -> [String] {
        fixture.screen.table.sections.map(\.title)
    }

    @Test("An edit into a new zone moves the row to a new section with the cursor; u moves it back and removes the section; Ctrl-R again")
    func crossSectionMove() throws {
        let fixture = try ScreenFixture()
        _ = fixture.render(width: 80, height: 40)
        fixture.press(.down)
        fixture.press(.down)
        #expect(fixture.screen.selectedTeam?.teamName == "Ghana")
        fixture.press(.character("e"))
        fixture.press(.tab)
        fixture.type("Atlantis")
        fixture.press(.enter)
        #expect(fixture.screen.status?.text == "Edited Ghana: zone Africa → Atlantis.")
        #expect(sections(fixture).contains("Atlantis"))
        #expect(fixture.screen.selectedTeam?.teamName == "Ghana", "the cursor stays on the edited team")
        #expect(fixture.screen.selectedTeam?.qualifyingZone == "Atlantis")
        let screen = lines(fixture.render(width: 80, height: 40))
        let header = try #require(screen.firstIndex { $0.hasPrefix(" Atlantis") }, "\(screen)")
        #expect(screen[header + 1].hasPrefix("▶") && screen[header + 1].contains("Ghana"), "the row drawn in its new section, the cursor on it:\n\(screen.joined(separator: "\n"))")

        fixture.press(.character("u"))
        #expect(fixture.screen.status?.text == "Undid: Edited Ghana: zone Africa → Atlantis.")
        #expect(!sections(fixture).contains("Atlantis"), "the emptied section goes")
        #expect(fixture.screen.selectedTeam?.teamName == "Ghana")
        #expect(try fixture.scoreboard.team(named: "Ghana")?.qualifyingZone == "Africa")

        fixture.press(.control("r"))
        #expect(fixture.screen.status?.text == "Redid: Edited Ghana: zone Africa → Atlantis.")
        #expect(try fixture.scoreboard.team(named: "Ghana")?.qualifyingZone == "Atlantis")
        #expect(sections(fixture).contains("Atlantis"))
    }

    @Test("A misspelled team is renamed in a few keys and keeps its wins; u renames it back")
    func rename() throws {
        let fixture = try ScreenFixture()
        _ = fixture.render()
        fixture.press(.character("+"))
        fixture.type("Gahna")
        fixture.press(.tab)
        fixture.type("Oceania")
        fixture.press(.enter)
        fixture.press(.enter)
        #expect(fixture.screen.status?.text == "Gahna: 1 win.")
        fixture.press(.character("e"))
        fixture.type("Wakanda")
        fixture.press(.enter)
        #expect(fixture.screen.status?.text == "Edited Wakanda: name Gahna → Wakanda.")
        #expect(try fixture.scoreboard.team(named: "Wakanda")?.wins == 1)
        fixture.press(.character("u"))
        fixture.press(.character("u"))
        fixture.press(.character("u"))
        #expect(fixture.screen.status?.text == "Undid: Added Gahna to Oceania.", "rename, tap, add: each taken back in turn")
        #expect(try fixture.scoreboard.team(named: "Gahna") == nil)
        fixture.press(.character("u"))
        #expect(fixture.screen.status?.text == "Nothing to undo: this board has no change left to take back.")
    }
}
