@testable import WorldCupApp
import Foundation
import LiveResults
import TerminalUI
import TestSupport
import Testing
import WorldCup
import WorldCupSQLite

@Suite("SQLiteTeamStore: the mouse and the section index")
struct MouseAndIndexTests {
    @Test("The index shows each zone's first two letters, so Africa and Asia both have one")
    func indexTitles() throws {
        let fixture = try ScreenFixture()
        #expect(fixture.screen.table.sectionIndexTitles == ["Af", "As", "Eu", "No", "So"])
        let text = lines(fixture.render())
        #expect(text[1].hasSuffix(" Af"))
        #expect(text[5].hasSuffix("Wins: 0  So"))
        // At 40 columns the rows need every cell: no index.
        let narrow = lines(fixture.render(width: 40, height: 10))
        #expect(narrow[2] == "▶ [ALG] Algeria                 Wins: 0")
        #expect(!narrow.contains { $0.hasSuffix(" Af") })
    }

    @Test("A click on an index title shows its zone from the first team")
    func indexClick() throws {
        let fixture = try ScreenFixture()
        _ = fixture.render()
        fixture.mouse(.click, x: 77, y: 4)  // "No"
        #expect(fixture.screen.selectedTeam?.teamName == "Costa Rica")
        fixture.mouse(.click, x: 78, y: 2)  // "As"
        #expect(fixture.screen.selectedTeam?.teamName == "Australia")
        let grid = fixture.render()
        #expect(lines(grid)[1].hasPrefix(" Asia "), "the zone's header goes to the top")
        #expect(row("Australia", in: grid)?.y == 2)
        fixture.mouse(.click, x: 78, y: 10)  // below the titles
        #expect(fixture.screen.selectedTeam?.teamName == "Australia")
    }

    @Test("A click selects a row without tapping; a double-click taps it")
    func clicks() throws {
        let fixture = try ScreenFixture()
        _ = fixture.render()
        fixture.mouse(.click, x: 10, y: 4)
        #expect(fixture.screen.selectedTeam?.teamName == "Ghana")
        #expect(try fixture.scoreboard.teams().allSatisfy { $0.wins == 0 })
        fixture.mouse(.doubleClick, x: 30, y: 9)
        #expect(fixture.screen.selectedTeam?.teamName == "Iran")
        #expect(fixture.screen.selectedTeam?.wins == 1)
        let text = lines(fixture.render())
        #expect(text[8] == "▶ [IRN] Iran                                                        Wins: 1")
        #expect(text[22] == " Iran: 1 win.")
    }

    @Test("A click on a header, the sticky one too, shows that zone from its first team")
    func headerClick() throws {
        let fixture = try ScreenFixture()
        _ = fixture.render()
        fixture.mouse(.click, x: 5, y: 12)  // Europe
        #expect(fixture.screen.selectedTeam?.teamName == "Belgium")
        #expect(lines(fixture.render())[1].hasPrefix(" Europe "))
        fixture.press(.down, times: 3)
        fixture.mouse(.scrollDown, x: 5, y: 5)
        #expect(lines(fixture.render())[1].hasPrefix(" Europe "), "the sticky header")
        fixture.mouse(.click, x: 5, y: 1)
        #expect(fixture.screen.selectedTeam?.teamName == "Belgium")
    }

    @Test("The wheel scrolls three lines; the cursor stays unless it would leave the screen")
    func wheel() throws {
        let fixture = try ScreenFixture()
        _ = fixture.render()
        fixture.press(.down, times: 4)  // Nigeria, line 6 of the table
        fixture.mouse(.scrollDown, x: 5, y: 5)
        #expect(fixture.screen.table.topLine == 3)
        #expect(fixture.screen.selectedTeam?.teamName == "Nigeria")
        fixture.mouse(.scrollDown, x: 5, y: 5)
        #expect(fixture.screen.table.topLine == 6)
        #expect(fixture.screen.selectedTeam?.teamName == "Australia", "Nigeria scrolled away: the first team on screen")
        fixture.mouse(.scrollUp, x: 5, y: 5)
        #expect(fixture.screen.table.topLine == 3)
        #expect(fixture.screen.selectedTeam?.teamName == "Australia")
        #expect(drawingProblems(fixture.render()).isEmpty)
    }

    @Test("Clicks elsewhere, or while a dialog is open, change nothing")
    func ignoredClicks() throws {
        let fixture = try ScreenFixture()
        _ = fixture.render()
        fixture.mouse(.doubleClick, x: 10, y: 0)  // the title
        fixture.mouse(.doubleClick, x: 10, y: 23)  // the footer
        #expect(fixture.screen.selectedTeam?.teamName == "Algeria")
        #expect(try fixture.scoreboard.teams().allSatisfy { $0.wins == 0 })
        fixture.press(.character("+"))
        fixture.mouse(.doubleClick, x: 10, y: 4)
        #expect(fixture.screen.dialog != nil)
        #expect(fixture.screen.selectedTeam?.teamName == "Algeria")
    }

    @Test("The mouse works while the filter is typed")
    func mouseWhileFiltering() throws {
        let fixture = try ScreenFixture()
        fixture.press(.character("/"))
        fixture.type("an")
        _ = fixture.render()
        fixture.mouse(.doubleClick, x: 10, y: 4)  // Asia: Iran, Japan
        #expect(fixture.screen.selectedTeam?.teamName == "Iran")
        #expect(fixture.screen.selectedTeam?.wins == 1)
        #expect(fixture.screen.filter != nil && fixture.screen.isEditingFilter)
    }
}

@Suite("SQLiteTeamStore: --flags emoji")
struct EmojiFlagScreenTests {
    @Test("Countries get emoji flags of two cells, padded to the badge's width; England keeps its badge")
    func emojiWithoutColour() throws {
        let fixture = try ScreenFixture(flags: .emoji)
        let grid = fixture.render(width: 80, height: 40)
        let text = lines(grid)
        #expect(text[2] == "▶ \u{1F1E9}\u{1F1FF}    Algeria                                                     Wins: 0  As")
        #expect(grid[2, 2].text == "\u{1F1E9}\u{1F1FF}")
        #expect(grid[3, 2].isContinuation)
        let england = try #require(row("England", in: grid))
        #expect(england.line == "  [ENG] England                                                     Wins: 0")
        // Names start in the same column whatever the flag.
        let columns = Set(text[2..<38].compactMap { line -> Int? in
            guard let name = ["Algeria", "England", "Korea", "Uruguay", "USA"].first(where: { line.contains(" \($0) ") }) else { return nil }
            return DisplayText.width(String(line[..<line.range(of: " \(name) ")!.lowerBound]))
        })
        #expect(columns.count == 1)
        #expect(drawingProblems(grid).isEmpty)
    }

    @Test("With colour, the flag takes the badge's three cells")
    func emojiWithColour() throws {
        let fixture = try ScreenFixture(colors: .eight, flags: .emoji)
        let grid = fixture.render()
        #expect(lines(grid)[3] == "  \u{1F1E8}\u{1F1F2}  Cameroon                                                      Wins: 0  Eu")
        fixture.press(.end)
        let uruguay = try #require(lines(fixture.render()).first { $0.contains("Uruguay") })
        #expect(uruguay.hasPrefix("▶ \u{1F1FA}\u{1F1FE}  Uruguay "))
    }

    @Test("The default is the badges: no regional indicator reaches the screen")
    func defaultIsBadges() throws {
        let fixture = try ScreenFixture(colors: .eight)
        let grid = fixture.render(width: 80, height: 40)
        for y in 0..<grid.height {
            for x in 0..<grid.width {
                #expect(!grid[x, y].text.unicodeScalars.contains { (0x1F1E6...0x1F1FF).contains($0.value) })
            }
        }
    }
}
