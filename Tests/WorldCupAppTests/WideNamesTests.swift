import Foundation
import Testing
import TerminalUI
import TestSupport
@testable import WorldCupApp

/// Names and zones that hold flags, ZWJ sequences and wide emoji, drawn into the in-memory
/// grid as the board shows them: drawn whole or as a placeholder of their width, and every
/// column where it belongs.
@Suite("ScoreboardScreen: flags, emoji sequences and wide characters")
struct WideNamesTests {
    /// The board with the trial's teams added: a flag in a name, a ZWJ flag in a name, and a
    /// zone named with a wide emoji.
    func fixture() throws -> ScreenFixture {
        let fixture = try ScreenFixture()
        try fixture.scoreboard.add(name: "Émoji 🇫🇷", zone: "Europe")
        try fixture.scoreboard.add(name: "🏴‍☠️ Pirates", zone: "🌊 Ocean")
        try fixture.scoreboard.add(name: "Family 👨‍👩‍👧 United", zone: "🌊 Ocean")
        fixture.screen.processChanges()
        return fixture
    }

    /// The line of the grid whose row shows `name`, and the x of each of its glyphs' cells.
    func cells(of name: String, in grid: Grid) throws -> (y: Int, text: [String]) {
        let y = try #require(lines(grid).firstIndex { $0.contains(name) }, "\(name) is not on the screen:\n\(grid.text)")
        return (y, (0..<grid.width).map { grid[$0, y].text })
    }

    @Test("A flag in a name is drawn whole in two cells; a ZWJ flag becomes a two-cell placeholder, never its first emoji")
    func flagsAndSequences() throws {
        let fixture = try fixture()
        while fixture.screen.selectedTeam?.teamName != "Émoji 🇫🇷" { fixture.press(.down) }
        var grid = fixture.render(width: 80, height: 40)
        let emoji = try cells(of: "Émoji", in: grid)
        let flagX = try #require(emoji.text.firstIndex(of: "🇫🇷"))
        #expect(grid[flagX + 1, emoji.y].isContinuation)
        #expect(emoji.text[flagX - 6..<flagX].joined() == "Émoji ")
        #expect(!lines(grid)[emoji.y].contains("Émoji F"))

        while fixture.screen.selectedTeam?.teamName != "🏴‍☠️ Pirates" { fixture.press(.down) }
        grid = fixture.render(width: 80, height: 40)
        let pirates = try #require(lines(grid).first { $0.contains(" Pirates") })
        #expect(pirates.contains("] ▒▒ Pirates"), "\(pirates)")
        #expect(!pirates.contains("🏴"))
        #expect(try #require(lines(grid).first { $0.contains("Family") }).contains("Family ▒▒ United"))
        #expect(drawingProblems(grid).isEmpty, "\(drawingProblems(grid))")
    }

    @Test("A zone named with a wide emoji: its index title is the emoji in two cells, and every row's wins end in one column", arguments: [44, 60, 80, 120])
    func columnsAligned(width: Int) throws {
        let fixture = try fixture()
        let grid = fixture.render(width: width, height: 50)
        #expect(drawingProblems(grid).isEmpty, "\(drawingProblems(grid))")
        #expect(lines(grid).contains { $0.contains(" 🌊 Ocean") }, "\(grid.text)")
        // The board's column (centred past its widest), the section index at its right edge.
        let column = BoardModel.contentColumn(width: width)
        let index = column.x + column.width - 4
        #expect(fixture.screen.controller.sectionIndexTitles.contains("🌊"))
        // Every row's "Wins: N" ends at the same cell, the cell before the section index.
        var ends: Set<Int> = []
        for y in 1..<(grid.height - 2) {
            let texts = (0..<grid.width).map { grid[$0, y].text }
            guard let last = texts.lastIndex(where: { $0 != " " && $0 != "" }) else { continue }
            let line = texts.joined()
            guard line.contains("Wins:") else { continue }
            // The last cell of the wins, before the index's blank, title and blank.
            let winsEnd = texts[..<index].lastIndex { $0 != " " } ?? last
            ends.insert(winsEnd)
        }
        // A blank cell between the wins and the index's own blank.
        #expect(ends == [index - 2], "the wins end in columns \(ends.sorted()) at \(width) columns:\n\(grid.text)")
        let indexColumn = (1..<(grid.height - 2)).map { grid[index + 1, $0].text }
        #expect(indexColumn.contains("🌊"))
        #expect(indexColumn.contains("A"), "Africa's title, Af, in the same column")
    }
}
