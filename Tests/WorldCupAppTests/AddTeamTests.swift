import Foundation
import Testing
import LiveResults
import TerminalUI
import TestSupport
import WorldCup
@testable import WorldCupApp

extension ScreenFixture {
    /// Opens the add dialog and fills it; `zone` nil keeps the prefilled zone, which typing
    /// replaces (an empty zone: Backspace clears it).
    func fillAddDialog(name: String, zone: String?) {
        press(.character("+"))
        type(name)
        if let zone {
            press(.tab)
            if zone.isEmpty { press(.backspace) }
            type(zone)
        }
    }
}

@Suite("ScoreboardScreen: adding a team")
struct AddTeamTests {
    // On 80×24 the dialog is a 52×10 box at (14, 7): fields on lines 9 and 11 from column 32,
    // the message on line 15, the hint on the bottom border, line 16.

    @Test("The dialog opens with the selected team's zone, and adds a team in a new zone")
    func addInNewZone() throws {
        let fixture = try ScreenFixture()
        _ = fixture.render()
        fixture.press(.character("+"))
        #expect(fixture.screen.dialog != nil)

        var frame = fixture.screen.render(width: 80, height: 24)
        var text = lines(frame.grid)
        #expect(text[7].contains("┌─ Secret Team: Add a new team ─"))
        #expect(text[9].contains("│ Team Name "))
        #expect(text[11].contains("│ Qualifying Zone Africa "))
        #expect(text[16].contains("└─ Tab: "))
        #expect(text[16].contains(" · Enter: save · Esc: cancel ─"))
        #expect(frame.caret?.x == 32)
        #expect(frame.caret?.y == 9)
        #expect(drawingProblems(frame.grid).isEmpty)

        fixture.type("Wakanda")
        fixture.press(.tab)
        fixture.press(.control("u"))
        frame = fixture.screen.render(width: 80, height: 24)
        #expect(lines(frame.grid)[11].contains("│ Qualifying Zone "))
        #expect(!lines(frame.grid)[11].contains("Africa"))
        fixture.type("Oceania")
        frame = fixture.screen.render(width: 80, height: 24)
        text = lines(frame.grid)
        #expect(text[9].contains("│ Team Name       Wakanda "))
        #expect(text[11].contains("│ Qualifying Zone Oceania "))
        #expect(frame.caret?.x == 32 + 7)
        #expect(frame.caret?.y == 11)
        #expect(try fixture.scoreboard.teamCount() == 32)

        fixture.press(.enter)
        #expect(fixture.screen.dialog == nil)
        let team = try #require(fixture.screen.selectedTeam)
        #expect(team.teamName == "Wakanda")
        #expect(team.qualifyingZone == "Oceania")
        #expect(team.wins == 0)
        #expect(fixture.screen.status?.text == "Added Wakanda to Oceania.")
        #expect(fixture.screen.status?.isError == false)
        #expect(try fixture.scoreboard.teamCount() == 33)
        #expect(try fixture.scoreboard.team(named: "wakanda")?.qualifyingZone == "Oceania")

        frame = fixture.screen.render(width: 80, height: 24)
        text = lines(frame.grid)
        #expect(frame.caret == nil)
        #expect(text[0].hasSuffix("33 teams"))
        #expect(text[20] == " Oceania")
        #expect(text[21] == "▶ [WND] Wakanda                                                     Wins: 0")
        #expect(text[22] == " Added Wakanda to Oceania.")
        #expect(!frame.grid.text.contains("Secret Team"))
        #expect(drawingProblems(frame.grid).isEmpty)

        let tall = fixture.render(width: 80, height: 50)
        #expect(headers(tall) == ["Africa", "Asia", "Europe", "North, Central America & Caribbean", "Oceania", "South America"])
    }

    @Test("With the cursor on Ghana: +, Wenderland, Tab, Oceania, Enter saves the zone Oceania, not AfricaOceania")
    func typedZoneReplacesTheSuggestion() throws {
        let fixture = try ScreenFixture()
        _ = fixture.render()
        fixture.press(.down, times: 2)
        #expect(fixture.screen.selectedTeam?.teamName == "Ghana")
        fixture.press(.character("+"))
        var frame = fixture.screen.render(width: 80, height: 24)
        // The suggestion, Ghana's zone, is drawn highlighted: reverse, unlike typed text.
        #expect(lines(frame.grid)[11].contains("│ Qualifying Zone Africa "))
        #expect(frame.grid[32, 11].style.reverse)
        fixture.type("Wenderland")
        fixture.press(.tab)
        fixture.type("Oceania")
        frame = fixture.screen.render(width: 80, height: 24)
        #expect(lines(frame.grid)[11].contains("│ Qualifying Zone Oceania "))
        #expect(!frame.grid[32, 11].style.reverse)
        fixture.press(.enter)
        #expect(fixture.screen.dialog == nil)
        #expect(fixture.screen.status?.text == "Added Wenderland to Oceania.")
        #expect(try fixture.scoreboard.team(named: "Wenderland")?.qualifyingZone == "Oceania")
        #expect(try fixture.scoreboard.teams().allSatisfy { $0.qualifyingZone != "AfricaOceania" })
    }

    @Test("Enter accepts the suggested zone; → keeps it for editing")
    func suggestionAcceptedOrEdited() throws {
        let fixture = try ScreenFixture()
        _ = fixture.render()
        fixture.press(.down, times: 2)
        fixture.fillAddDialog(name: "Wenderland", zone: nil)
        fixture.press(.enter)
        #expect(try fixture.scoreboard.team(named: "Wenderland")?.qualifyingZone == "Africa")

        fixture.press(.character("+"))
        fixture.type("Narnia")
        fixture.press(.tab)
        fixture.press(.right)
        fixture.type(" West")
        fixture.press(.enter)
        #expect(try fixture.scoreboard.team(named: "Narnia")?.qualifyingZone == "Africa West")
    }

    @Test("A team added to an existing zone takes its place by name, and is selected")
    func addInExistingZone() throws {
        let fixture = try ScreenFixture()
        _ = fixture.render()
        fixture.fillAddDialog(name: "  Wakanda  ", zone: nil)
        fixture.press(.enter)
        #expect(fixture.screen.dialog == nil)
        #expect(fixture.screen.selectedTeam?.teamName == "Wakanda")
        #expect(fixture.screen.selectedTeam?.qualifyingZone == "Africa")
        let text = lines(fixture.render())
        #expect(text[6] == "  [NGA] Nigeria                                                     Wins: 0")
        #expect(text[7] == "▶ [WND] Wakanda                                                     Wins: 0")
        #expect(text[8] == " Asia")
        #expect(text[22] == " Added Wakanda to Africa.")
    }

    struct InvalidCase: Sendable, CustomTestStringConvertible {
        var name: String
        var zone: String?
        var message: String
        var testDescription: String { "name “\(name)”, zone “\(zone ?? "(prefilled)")”" }
    }

    @Test("Invalid input keeps the dialog open with a message and saves nothing", arguments: [
        InvalidCase(name: "", zone: nil, message: "The team name is empty."),
        InvalidCase(name: "   ", zone: nil, message: "The team name is empty."),
        InvalidCase(name: "brazil", zone: nil, message: "A team named “Brazil” already exists."),
        InvalidCase(name: "BRAZIL", zone: "Oceania", message: "A team named “Brazil” already exists."),
        InvalidCase(name: " Ivory Coast ", zone: nil, message: "A team named “Ivory Coast” already exists."),
        InvalidCase(name: "Atlantis", zone: "", message: "The qualifying zone is empty."),
        InvalidCase(name: "Atlantis", zone: "  ", message: "The qualifying zone is empty."),
    ])
    func invalidInput(_ test: InvalidCase) throws {
        let fixture = try ScreenFixture()
        _ = fixture.render()
        fixture.fillAddDialog(name: test.name, zone: test.zone)
        fixture.press(.enter)

        #expect(fixture.screen.dialog != nil)
        #expect(fixture.screen.dialog?.message == test.message)
        #expect(fixture.screen.status == nil)
        #expect(try fixture.scoreboard.teamCount() == 32)
        let grid = fixture.render()
        let text = lines(grid)
        #expect(text[15].contains("│ \(test.message)"))
        #expect(text[7].contains("Secret Team"))
        #expect(text[0].hasSuffix("32 teams"))
        #expect(drawingProblems(grid).isEmpty)

        // Esc closes the dialog; still nothing saved.
        fixture.press(.escape)
        #expect(fixture.screen.dialog == nil)
        #expect(fixture.screen.status?.text == "No team added.")
        #expect(!fixture.screen.wantsToQuit)
        #expect(try fixture.scoreboard.teamCount() == 32)
        #expect(!fixture.render().text.contains("Secret Team"))
    }

    @Test("A 65th character is refused with a message")
    func tooLong() throws {
        let fixture = try ScreenFixture()
        _ = fixture.render()
        fixture.fillAddDialog(name: String(repeating: "x", count: 65), zone: nil)
        #expect(fixture.screen.dialog?.values[0].count == 64)
        #expect(fixture.screen.dialog?.message == "Team Name is limited to 64 characters.")
        let grid = fixture.render()
        #expect(lines(grid)[15].contains("│ Team Name is limited to 64 characters."))
        #expect(drawingProblems(grid).isEmpty)
        #expect(try fixture.scoreboard.teamCount() == 32)

        #expect(throws: WorldCupError("The team name is longer than 64 characters.")) {
            try fixture.scoreboard.add(name: String(repeating: "x", count: 65), zone: "Europe")
        }
        #expect(try fixture.scoreboard.teamCount() == 32)
    }

    @Test("A message goes away on the next edit")
    func messageClears() throws {
        let fixture = try ScreenFixture()
        _ = fixture.render()
        fixture.fillAddDialog(name: "", zone: nil)
        fixture.press(.enter)
        #expect(fixture.screen.dialog?.message == "The team name is empty.")
        fixture.type("W")
        #expect(fixture.screen.dialog?.message == nil)
        #expect(!lines(fixture.render())[15].contains("empty"))
    }

    @Test("Keys go to the dialog while it is open")
    func keysGoToDialog() throws {
        let fixture = try ScreenFixture()
        _ = fixture.render()
        fixture.press(.character("+"))
        fixture.type("qjkG+")
        fixture.press(.down)
        #expect(!fixture.screen.wantsToQuit)
        #expect(fixture.screen.dialog?.values == ["qjkG+", "Africa"])
        #expect(fixture.screen.selectedTeam?.teamName == "Algeria")
    }
}

@Suite("ScoreboardScreen: hostile names")
struct HostileNameTests {
    @Test("Names and zones with control characters are refused", arguments: [
        "\u{1B}[31mRed", "Red\u{7}", "C1\u{9B}31m", "New\nLine", "Tab\there", "Del\u{7F}ete", "Nul\0",
    ])
    func controlCharactersRefused(_ hostile: String) throws {
        let fixture = try ScreenFixture()
        #expect(throws: WorldCupError("The team name contains control characters.")) {
            try fixture.scoreboard.add(name: hostile, zone: "Europe")
        }
        #expect(throws: WorldCupError("The qualifying zone contains control characters.")) {
            try fixture.scoreboard.add(name: "Atlantis", zone: hostile)
        }
        fixture.screen.processChanges()
        #expect(try fixture.scoreboard.teamCount() == 32)
        #expect(fixture.render().text.contains("32 teams"))
    }

    @Test("The dialog refuses an escape character as it is typed")
    func dialogRefusesEscape() throws {
        let fixture = try ScreenFixture()
        _ = fixture.render()
        fixture.press(.character("+"))
        fixture.press(.character("\u{1B}"))
        #expect(fixture.screen.dialog?.message == "Control characters are not allowed.")
        #expect(fixture.screen.dialog?.values[0] == "")
        let grid = fixture.render()
        #expect(lines(grid)[15].contains("│ Control characters are not allowed."))
        #expect(drawingProblems(grid).isEmpty)

        fixture.type("[31mRed")
        #expect(fixture.screen.dialog?.values[0] == "[31mRed")
        fixture.press(.enter)
        // What was saved holds no control character.
        let saved = try #require(try fixture.scoreboard.team(named: "[31mRed"))
        #expect(!saved.teamName.unicodeScalars.contains(where: isUnsafe))
        #expect(fixture.screen.selectedTeam?.teamName == "[31mRed")
    }

    @Test("Emoji, flags, ZWJ sequences and CJK names render within the screen")
    func emojiAndCJK() throws {
        let fixture = try ScreenFixture()
        _ = fixture.render()
        fixture.fillAddDialog(name: "🇫🇷 Les Bleus 😀", zone: "Europe")
        fixture.press(.enter)
        #expect(fixture.screen.dialog == nil)
        #expect(fixture.screen.selectedTeam?.teamName == "🇫🇷 Les Bleus 😀")
        try fixture.scoreboard.add(name: "日本代表", zone: "Asia")
        try fixture.scoreboard.add(name: "👨‍👩‍👧‍👦 Family", zone: "Asia")
        try fixture.scoreboard.add(name: "Zalgo Z\u{301}\u{302}\u{303}\u{304}\u{305}\u{306}", zone: "Asia")
        fixture.screen.processChanges()
        #expect(fixture.screen.selectedTeam?.teamName == "🇫🇷 Les Bleus 😀")

        let grid = fixture.render()
        #expect(drawingProblems(grid).isEmpty)
        let selected = try #require(row("🇫🇷 Les Bleus 😀", in: grid))
        #expect(selected.line == "▶ [WND] 🇫🇷 Les Bleus 😀                                             Wins: 0")
        #expect(lines(grid)[22] == " Added 🇫🇷 Les Bleus 😀 to Europe.")

        let tall = fixture.render(width: 80, height: 60)
        #expect(drawingProblems(tall).isEmpty)
        #expect(row("日本代表", in: tall)?.line == "  [WND] 日本代表                                                    Wins: 0")
        #expect(row("▒▒ Family", in: tall)?.line == "  [WND] ▒▒ Family                                                   Wins: 0")
        #expect(row("Zalgo Z\u{301}\u{302}\u{303}\u{304}", in: tall) != nil)
        #expect(headers(tall) == zoneOrder)
    }

    @Test("Bidi controls in a name or zone are refused: they would reorder what a terminal shows")
    func bidiRefused() throws {
        let fixture = try ScreenFixture()
        #expect(throws: WorldCupError.self) { try fixture.scoreboard.add(name: "Mirror\u{202E}rorriM", zone: "Europe") }
        #expect(throws: WorldCupError.self) { try fixture.scoreboard.add(name: "Mirror", zone: "\u{202E}Evil") }
        #expect(try fixture.scoreboard.teamCount() == 32)
    }

    @Test("A 64-character CJK name renders within 80 columns, in the row and as leader")
    func longCJKName() throws {
        let fixture = try ScreenFixture()
        _ = fixture.render()
        let name = String(repeating: "漢", count: 64)
        fixture.fillAddDialog(name: name, zone: "Asia")
        let dialogGrid = fixture.render()
        #expect(drawingProblems(dialogGrid).isEmpty)
        #expect(lines(dialogGrid)[9].contains("漢"))
        #expect(fixture.screen.dialog?.message == nil)

        fixture.press(.enter)
        #expect(fixture.screen.dialog == nil)
        #expect(fixture.screen.selectedTeam?.teamName == name)
        fixture.press(.enter)  // a tap: the leader
        #expect(fixture.screen.selectedTeam?.wins == 1)

        let grid = fixture.render()
        #expect(drawingProblems(grid).isEmpty)
        for line in lines(grid) { #expect(DisplayText.width(line) <= 80) }
        let text = lines(grid)
        #expect(text[0].contains("Leader: " + String(repeating: "漢", count: 19) + "… (1 win)"))
        #expect(text[0].hasSuffix("33 teams"))
        #expect(text[7] == " Asia")
        #expect(text[8] == "▶ [WND] " + String(repeating: "漢", count: 28) + "…   Wins: 1")
        // The status sentence, wider than the line, wraps onto the line above it, never cut.
        #expect(text[21].hasPrefix(" 漢") && text[22].hasPrefix(" 漢"))
        #expect(text[22].hasSuffix("漢: 1 win."))
        #expect((text[21] + text[22]).filter { $0 == "漢" }.count == 64)

        // The narrowest screen that works still fits everything.
        let narrow = fixture.render(width: 40, height: 10)
        #expect(drawingProblems(narrow).isEmpty)
    }

    @Test("64 ZWJ families make a valid name that renders within the screen")
    func longEmojiName() throws {
        let fixture = try ScreenFixture()
        let name = String(repeating: "👨‍👩‍👧‍👦", count: 64)
        #expect(name.count == 64)
        try fixture.scoreboard.add(name: name, zone: "Africa")
        try fixture.scoreboard.tap(named: name)
        fixture.screen.processChanges()
        let grid = fixture.render()
        #expect(drawingProblems(grid).isEmpty)
        // Each family is a placeholder of two cells, never its first emoji.
        #expect(lines(grid)[0].contains("Leader: " + String(repeating: "▒", count: 39) + "… (1 win)"))
        #expect(lines(grid)[2] == "  [WND] " + String(repeating: "▒", count: 57) + "…  Wins: 1  As")
        #expect(lines(grid)[3] == "▶ [ALG] Algeria                                                     Wins: 0  Eu")
    }
}
