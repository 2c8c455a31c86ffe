import Foundation
import Testing
import LiveResults
import TerminalUI
import TestSupport
import WorldCup
@testable import WorldCupApp

@Suite("ScoreboardScreen: the scoreboard")
struct ScoreboardRenderTests {
    @Test("The first screen: title, team count, zones and rows without colour")
    func firstScreen() throws {
        let fixture = try ScreenFixture()
        let frame = fixture.screen.render(width: 80, height: 24)
        let grid = frame.grid
        let text = lines(grid)
        #expect(frame.caret == nil)
        #expect(text.count == 24)

        #expect(text[0].hasPrefix(" World Cup "))
        #expect(text[0].hasSuffix("32 teams"))
        #expect(DisplayText.width(text[0]) == 79)
        #expect(!text[0].contains("Leader:"))

        #expect(text[1] == " Africa                                                                      Af")
        #expect(text[2] == "▶ [ALG] Algeria                                                     Wins: 0  As")
        #expect(text[3] == "  [CMR] Cameroon                                                    Wins: 0  Eu")
        #expect(text[4] == "  [GHA] Ghana                                                       Wins: 0  No")
        #expect(text[5] == "  [CIV] Ivory Coast                                                 Wins: 0  So")
        #expect(text[6] == "  [NGA] Nigeria                                                     Wins: 0")
        #expect(text[7] == " Asia")
        #expect(text[8] == "  [AUS] Australia                                                   Wins: 0")
        #expect(text[11] == "  [KOR] Korea                                                       Wins: 0")
        #expect(text[12] == " Europe")
        #expect(text[13] == "  [BEL] Belgium                                                     Wins: 0")
        #expect(text[21] == "  [NED] Netherlands                                                 Wins: 0")
        #expect(text[22] == "")
        #expect(text[23].hasPrefix(" ↑↓/jk move  Tab zone  Enter tap  + add  d delete  / filter  ? help  q quit"))

        #expect(headers(grid) == ["Africa", "Asia", "Europe"])
        #expect(fixture.screen.selectedTeam?.teamName == "Algeria")
        #expect(drawingProblems(grid).isEmpty)
        // No colour anywhere; the footer and the cursor row are in reverse video.
        for y in 0..<24 {
            for x in 0..<80 {
                #expect(grid[x, y].style.foreground == nil && grid[x, y].style.background == nil)
            }
        }
        #expect((0..<80).allSatisfy { grid[$0, 23].style.reverse })
    }

    @Test("Every zone appears, in zone order")
    func zonesInOrder() throws {
        let fixture = try ScreenFixture()
        let tall = fixture.render(width: 80, height: 50)
        #expect(headers(tall) == zoneOrder)
        #expect(lines(tall).filter { $0.hasPrefix("  [") || $0.hasPrefix("▶ [") }.count == 32)

        // Scrolled to the end, the last zones show on an 80×24 screen.
        fixture.press(.end)
        let grid = fixture.render()
        #expect(fixture.screen.selectedTeam?.teamName == "Uruguay")
        #expect(lines(grid)[21] == "▶ [URU] Uruguay                                                     Wins: 0")
        #expect(headers(grid) == ["Europe", "North, Central America & Caribbean", "South America"])
        #expect(lines(grid)[1] == " Europe                                                                      Af")  // the sticky header of the rows scrolled into
        #expect(drawingProblems(grid).isEmpty)
    }

    @Test("The smallest screen that works: 40×10")
    func smallest() throws {
        let fixture = try ScreenFixture()
        let grid = fixture.render(width: 40, height: 10)
        let text = lines(grid)
        #expect(text[0].hasPrefix(" World Cup"))
        #expect(text[0].hasSuffix("32 teams"))
        #expect(text[1] == " Africa")
        #expect(text[2] == "▶ [ALG] Algeria                 Wins: 0")
        #expect(text[9].hasPrefix(" ↑↓/jk move"))
        #expect(drawingProblems(grid).isEmpty)
    }

    @Test("Without colour the cursor row is in reverse video")
    func cursorReverse() throws {
        let fixture = try ScreenFixture()
        let grid = fixture.render()
        let badge = 2..<7
        // The bar spans the rows' width; the section index beside it keeps its own style.
        for x in 0..<76 where !badge.contains(x) {
            #expect(grid[x, 2].style.reverse, "column \(x)")
        }
        for x in 76..<80 { #expect(!grid[x, 2].style.reverse, "index column \(x)") }
        for x in 0..<80 { #expect(!grid[x, 3].style.reverse) }
        // Without colour the badge takes the row's reverse video, so the bar is unbroken.
        for x in badge { #expect(grid[x, 2].style.reverse, "badge column \(x)") }
    }

    @Test("With colour the badge is three coloured cells")
    func colourBadge() throws {
        let fixture = try ScreenFixture(colors: .eight)
        let grid = fixture.render()
        #expect(lines(grid)[2] == "▶ ALG Algeria                                                       Wins: 0  As")
        #expect(grid[2, 2].style.background?.basic == TerminalColor.green.basic)
        #expect(grid[3, 2].style.background == .pureWhite)
        #expect(grid[4, 2].style.background?.basic == TerminalColor.red.basic)
        #expect(grid[2, 3].style.background?.basic == TerminalColor.green.basic)  // Cameroon
        #expect(grid[10, 2].style.reverse)
        #expect(grid[1, 1].style.foreground == .yellow)
        #expect(drawingProblems(grid).isEmpty)
    }
}

@Suite("ScoreboardScreen: taps")
struct ScoreboardTapTests {
    @Test("A tap that moves a row: the team goes to the top of its zone, the cursor follows")
    func tapMoves() throws {
        let fixture = try ScreenFixture()
        _ = fixture.render()
        fixture.press(.down, times: 4)
        #expect(fixture.screen.selectedTeam?.teamName == "Nigeria")
        fixture.press(.enter)

        let nigeria = try #require(fixture.screen.selectedTeam)
        #expect(nigeria.teamName == "Nigeria")
        #expect(nigeria.wins == 1)
        #expect(try fixture.scoreboard.team(named: "Nigeria")?.wins == 1)

        let grid = fixture.render()
        let text = lines(grid)
        #expect(text[0].contains("  Leader: Nigeria (1 win)"))
        #expect(text[0].hasSuffix("32 teams"))
        #expect(text[1] == " Africa                                                                      Af")
        #expect(text[2] == "▶ [NGA] Nigeria                                                     Wins: 1  As")
        #expect(text[3] == "  [ALG] Algeria                                                     Wins: 0  Eu")
        #expect(text[6] == "  [CIV] Ivory Coast                                                 Wins: 0")
        #expect(text[22] == " Nigeria: 1 win.")
        // The moved row flashes, but the cursor's style wins.
        #expect(fixture.screen.table.flashes[TablePosition(section: 0, row: 0)] == fixture.clock.now + TableView.flashDuration)
        #expect(grid[20, 2].style.reverse)
        #expect(drawingProblems(grid).isEmpty)
    }

    @Test("Taps that do not move a row")
    func tapInPlace() throws {
        let fixture = try ScreenFixture()
        _ = fixture.render()
        // Algeria is first of its zone already.
        fixture.press(.enter)
        #expect(fixture.screen.selectedTeam?.teamName == "Algeria")
        #expect(fixture.screen.selectedTeam?.wins == 1)
        var text = lines(fixture.render())
        #expect(text[2] == "▶ [ALG] Algeria                                                     Wins: 1  As")
        #expect(text[3] == "  [CMR] Cameroon                                                    Wins: 0  Eu")
        #expect(text[0].contains("Leader: Algeria (1 win)"))

        fixture.press(.enter)
        text = lines(fixture.render())
        #expect(text[2] == "▶ [ALG] Algeria                                                     Wins: 2  As")
        #expect(text[0].contains("Leader: Algeria (2 wins)"))
        #expect(text[22] == " Algeria: 2 wins.")

        // Cameroon, second with 0 wins, stays second with 1.
        fixture.press(.down)
        fixture.press(.enter)
        #expect(fixture.screen.selectedTeam?.teamName == "Cameroon")
        text = lines(fixture.render())
        #expect(text[2] == "  [ALG] Algeria                                                     Wins: 2  As")
        #expect(text[3] == "▶ [CMR] Cameroon                                                    Wins: 1  Eu")
        #expect(text[0].contains("Leader: Algeria (2 wins)"))
    }

    @Test("A team that draws level with the one above passes it by name")
    func tapPasses() throws {
        let fixture = try ScreenFixture()
        _ = fixture.render()
        fixture.press(.down, times: 2)  // Ghana
        fixture.press(.enter)
        fixture.press(.enter)
        #expect(fixture.screen.selectedTeam?.teamName == "Ghana")
        fixture.press(.down)  // Algeria, now second
        #expect(fixture.screen.selectedTeam?.teamName == "Algeria")
        fixture.press(.enter)
        fixture.press(.enter)
        // 2 wins each: Algeria sorts before Ghana by name.
        #expect(fixture.screen.selectedTeam?.teamName == "Algeria")
        let text = lines(fixture.render())
        #expect(text[2] == "▶ [ALG] Algeria                                                     Wins: 2  As")
        #expect(text[3] == "  [GHA] Ghana                                                       Wins: 2  Eu")
        #expect(text[0].contains("Leaders: Algeria and Ghana (2 wins)"))
    }

    @Test("A flash ends when the clock passes it")
    func flashExpires() throws {
        let fixture = try ScreenFixture()
        _ = fixture.render()
        try fixture.scoreboard.tap(named: "Nigeria")
        fixture.screen.processChanges()
        #expect(fixture.screen.selectedTeam?.teamName == "Algeria")
        #expect(fixture.screen.nextDeadline == 1000.5)

        var grid = fixture.render()
        #expect(lines(grid)[2] == "  [NGA] Nigeria                                                     Wins: 1  As")
        #expect(lines(grid)[3] == "▶ [ALG] Algeria                                                     Wins: 0  Eu")
        #expect(grid[10, 2].style == Style(bold: true, underline: true))  // the no-colour flash
        #expect(grid[74, 2].style == Style(bold: true, underline: true))

        fixture.clock.now = 1000.4
        fixture.screen.tick()
        #expect(fixture.screen.nextDeadline == 1000.5)
        fixture.clock.now = 1000.6
        fixture.screen.tick()
        #expect(fixture.screen.nextDeadline == nil)
        grid = fixture.render()
        #expect(grid[10, 2].style == .plain)
        #expect(grid[74, 2].style == Style(dim: true))
    }
}

@Suite("ScoreboardScreen: changes from elsewhere")
struct ScoreboardExternalChangeTests {
    @Test("A tap committed directly shows after processChanges")
    func externalTap() throws {
        let fixture = try ScreenFixture()
        _ = fixture.render()
        try fixture.scoreboard.tap(named: "japan")
        fixture.screen.processChanges()
        let text = lines(fixture.render())
        #expect(text[7] == " Asia")
        #expect(text[8] == "  [JPN] Japan                                                       Wins: 1")
        #expect(text[9] == "  [AUS] Australia                                                   Wins: 0")
        #expect(text[0].contains("Leader: Japan (1 win)"))
        #expect(text[2] == "▶ [ALG] Algeria                                                     Wins: 0  As")
        #expect(text[3] == "  [CMR] Cameroon                                                    Wins: 0  Eu")
        #expect(fixture.screen.selectedTeam?.teamName == "Algeria")
    }

    @Test("Several commits are all shown by one processChanges")
    func severalCommits() throws {
        let fixture = try ScreenFixture()
        _ = fixture.render()
        try fixture.scoreboard.tap(named: "Korea")
        try fixture.scoreboard.tap(named: "Korea")
        try fixture.scoreboard.tap(named: "Iran")
        fixture.screen.processChanges()
        let text = lines(fixture.render())
        #expect(text[8] == "  [KOR] Korea                                                       Wins: 2")
        #expect(text[9] == "  [IRN] Iran                                                        Wins: 1")
        #expect(text[10] == "  [AUS] Australia                                                   Wins: 0")
        #expect(text[0].contains("Leader: Korea (2 wins)"))
    }

    @Test("Deleting the selected team moves the cursor to a nearby team")
    func externalDeleteOfSelection() throws {
        let fixture = try ScreenFixture()
        _ = fixture.render()
        fixture.press(.down)  // Cameroon
        try fixture.scoreboard.delete(named: "Cameroon")
        fixture.screen.processChanges()
        #expect(fixture.screen.selectedTeam?.teamName == "Ghana")
        let text = lines(fixture.render())
        #expect(text[0].hasSuffix("31 teams"))
        #expect(text[3] == "▶ [GHA] Ghana                                                       Wins: 0  Eu")
    }

    @Test("Deleting a whole zone removes its header; the cursor stays on its team")
    func externalSectionDelete() throws {
        let fixture = try ScreenFixture()
        _ = fixture.render()
        fixture.press(.character("j"), times: 9)
        #expect(fixture.screen.selectedTeam?.teamName == "Belgium")
        for name in ["Australia", "Iran", "Japan", "Korea"] { try fixture.scoreboard.delete(named: name) }
        fixture.screen.processChanges()
        #expect(fixture.screen.selectedTeam?.teamName == "Belgium")
        let grid = fixture.render()
        #expect(headers(grid) == ["Africa", "Europe", "North, Central America & Caribbean"])
        #expect(row("Belgium", in: grid)?.line == "▶ [BEL] Belgium                                                     Wins: 0")
        #expect(lines(grid)[0].hasSuffix("28 teams"))
    }

    @Test("A team added elsewhere in a new zone appears with its header")
    func externalAdd() throws {
        let fixture = try ScreenFixture()
        _ = fixture.render()
        try fixture.scoreboard.add(name: "Atlantis", zone: "Antarctica")
        fixture.screen.processChanges()
        #expect(fixture.screen.selectedTeam?.teamName == "Algeria")
        let grid = fixture.render()
        #expect(headers(grid) == ["Africa", "Antarctica", "Asia", "Europe"])
        #expect(lines(grid)[7] == " Antarctica")
        #expect(lines(grid)[8] == "  [WND] Atlantis                                                    Wins: 0")
        #expect(lines(grid)[0].hasSuffix("33 teams"))
    }
}

@Suite("ScoreboardScreen: deleting")
struct DeleteTests {
    // The question and a "no" are BoardMovingTests.deleteQuestion, without a database.
    @Test("y deletes the team, and the last team of a zone takes its section with it")
    func deleteWithConfirmation() throws {
        let fixture = try ScreenFixture()
        try fixture.scoreboard.add(name: "Atlantis", zone: "Oceania")
        fixture.screen.processChanges()
        #expect(fixture.screen.controller.sections.map(\.name).contains("Oceania"))
        // Select Atlantis: Tab through the zones until the cursor is there.
        while fixture.screen.selectedTeam?.teamName != "Atlantis" { fixture.press(.tab) }
        fixture.press(.delete)
        #expect(fixture.render().text.contains("Delete Atlantis? y/N"))
        fixture.press(.character("y"))
        #expect(try fixture.scoreboard.team(named: "Atlantis") == nil)
        #expect(!fixture.screen.controller.sections.map(\.name).contains("Oceania"))
        let text = fixture.render().text
        #expect(text.contains("Deleted Atlantis."))
        #expect(!text.contains(" Oceania"))
        #expect(fixture.screen.selectedTeam != nil, "the cursor lands on a neighbouring team")
    }
}

@Suite("ScoreboardScreen: the leader")
struct LeaderTests {
    @Test("Of two zones' leaders with as many wins, the one first by bytes is named first (SQLite's order, not Swift's <)")
    func tieBreakInBinaryOrder() throws {
        let fixture = try ScreenFixture()
        // A decomposed Å (41 CC 8A) sorts before B (42) by bytes, after it by Swift's <.
        try fixture.scoreboard.add(name: "B", zone: "Asia")
        try fixture.scoreboard.add(name: "A\u{30A}", zone: "Europe")
        try fixture.scoreboard.tap(named: "B")
        try fixture.scoreboard.tap(named: "A\u{30A}")
        fixture.screen.processChanges()
        #expect(lines(fixture.render())[0].contains("Leaders: A\u{30A} and B (1 win)"))
    }
}
