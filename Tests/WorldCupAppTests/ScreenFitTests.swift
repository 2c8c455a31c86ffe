@testable import WorldCupApp
import Foundation
import TerminalUI
import TestSupport
import Testing
import WorldCup

/// What the screen shows whole, drawn into the in-memory grid: a long status sentence, the
/// dialogs at 40×10, the help at its frame's width, the edit dialog's zone hint, and the light
/// theme's dialogs.
@Suite("The board: nothing cut or lost on screen")
struct ScreenFitTests {
    /// An add this board made, then a tap from elsewhere: `u` is refused in a long sentence.
    func refusedUndo() throws -> ScreenFixture {
        let fixture = try ScreenFixture()
        fixture.press(.character("+"))
        fixture.type("Atlantis")
        fixture.press(.enter)
        _ = try fixture.scoreboard.tap(named: "Atlantis")
        fixture.screen.processChanges()
        fixture.press(.character("u"))
        return fixture
    }

    @Test("A status sentence longer than the line wraps onto the line above it, never cut", arguments: [80, 100, 40])
    func longStatusWraps(width: Int) throws {
        let fixture = try refusedUndo()
        let sentence = try #require(fixture.screen.status?.text)
        let height = width == 40 ? 10 : 24
        let grid = fixture.render(width: width, height: height)
        let text = lines(grid)
        #expect(drawingProblems(grid).isEmpty)
        let column = BoardModel.contentColumn(width: width)
        let expected = DisplayText.wrap(sentence, toWidth: column.width - 1)
        try #require(expected.count > 1, "the sentence is longer than the line at \(width) columns")
        let shown = text[(height - 1 - expected.count)..<(height - 1)].map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(shown == expected, "at \(width) columns")
        #expect(!shown.joined().contains("…"), "nothing is cut")
        #expect(shown.joined(separator: " ") == sentence)
        #expect(text[height - 1].hasSuffix("? help  q quit"), "the footer stays")
        // The cursor's team stays in view above the sentence.
        let cursor = try #require(text.firstIndex { $0.hasPrefix("▶") })
        #expect(cursor < height - 1 - expected.count)
    }

    @Test("A click lands on the team drawn where it is, while a long status sentence takes lines from the table")
    func clickWhileTheStatusWraps() throws {
        // Atlantis in a zone of its own at the bottom of the board, the cursor on it; then `u`
        // refused in a sentence of several lines, which push the table's last rows up.
        let fixture = try ScreenFixture()
        fixture.press(.character("+"))
        fixture.type("Atlantis")
        fixture.press(.tab)
        fixture.type("Zeta")
        fixture.press(.enter)
        _ = try fixture.scoreboard.tap(named: "Atlantis")
        fixture.screen.processChanges()
        fixture.press(.character("u"))
        let text = lines(fixture.render(width: 40, height: 10))
        let atlantis = try #require(text.firstIndex { $0.contains("Atlantis") })
        let row = try #require(text[..<atlantis].lastIndex { $0.contains("Wins:") }, "a team's row is drawn above Atlantis: \(text)")
        let above = text[row]
        fixture.mouse(.click, x: 10, y: row)
        let selected = try #require(fixture.screen.selectedTeam)
        #expect(above.contains(selected.teamName), "clicked “\(above)”, selected \(selected.teamName)")
    }

    @Test("At 40×10 the add and edit dialogs keep their whole frame, and the caret is in a field")
    func dialogsAtTheSmallestSize() throws {
        for key in [Key.character("+"), .character("e")] {
            var board = PureBoard()
            board.press(key)
            let (grid, caret) = board.render(width: 40, height: 10)
            let text = lines(grid)
            #expect(text[0].hasPrefix("┌") && text[0].hasSuffix("┐"), "\(key): \(text[0])")
            #expect(text[9].hasPrefix("└") && text[9].hasSuffix("┘"), "\(key): \(text[9])")
            for line in text[1..<9] { #expect(line.hasPrefix("│") && line.hasSuffix("│"), "\(key): \(line)") }
            let inField = try #require(caret)
            #expect(text[inField.y].contains("Team Name"), "\(key): the caret is on the field being typed")
        }
        // Browsing, the help and a question hide the caret.
        var board = PureBoard()
        #expect(board.render(width: 40, height: 10).caret == nil)
        board.press(.character("?"))
        #expect(board.render(width: 40, height: 10).caret == nil)
        board.press(.escape)
        board.press(.character("d"))
        #expect(board.render(width: 40, height: 10).caret == nil)
    }

    @Test("The help's descriptions take the frame's width; a key too long for its column has a line of its own, its short description after it")
    func helpUsesItsFrame() throws {
        var board = PureBoard()
        board.press(.character("?"))
        for width in [80, 100] {
            let text = lines(board.render(width: width, height: 40).grid)
            let top = try #require(text.firstIndex { $0.contains("┌─ Keys ─") })
            let frame = try #require(text[top].firstIndex(of: "┐")).utf16Offset(in: text[top])
            // The longest description line reaches within a word of the frame.
            let ends = text.filter { $0.contains("│") }.map { line in line.trimmingCharacters(in: .whitespaces).dropLast().trimmingCharacters(in: .whitespaces).utf16.count }
            #expect((ends.max() ?? 0) >= frame - 12, "at \(width) columns the text reaches toward the frame (\(ends.max() ?? 0) of \(frame))")
            #expect(text.contains { $0.contains("│ PgUp PgDn  Ctrl-B Ctrl-F") }, "the long key whole, on its line")
            #expect(text.contains { $0.contains("│ PgUp PgDn  Ctrl-B Ctrl-F  page ") }, "at \(width) columns “page” beside its keys, not alone on the next line")
            #expect(!text.joined().contains("…"))
        }
    }

    @Test("The edit dialog says which zone a zone typed in another spelling joins, as the add dialog does")
    func editShowsTheZoneHint() throws {
        var board = PureBoard()
        board.press(.character("e"))
        board.press(.tab)
        for character in "europe" { board.press(.character(character)) }
        let text = lines(board.render(width: 80, height: 24).grid)
        #expect(text.contains { $0.contains("Joins the zone “Europe”, as the board spells it.") }, "\(text)")
        board.press(.backspace)
        #expect(!lines(board.render(width: 80, height: 24).grid).contains { $0.contains("Joins the zone") })
    }

    @Test("On the light theme a dialog is a light grey box in the terminal's text colour, its error on the box")
    func lightDialogs() throws {
        let fixture = try ScreenFixture(colors: .indexed256, background: .light)
        fixture.press(.character("+"))
        fixture.type("Brazil")
        fixture.press(.enter)
        let grid = fixture.render()
        let text = lines(grid)
        let top = try #require(text.firstIndex { $0.contains("Secret Team") })
        let left = try #require(text[top].firstIndex(of: "┌")).utf16Offset(in: text[top])
        let frame = grid[left, top].style
        #expect(!frame.reverse && frame.foreground == nil && frame.background != nil, "\(frame)")
        let error = try #require(text.firstIndex { $0.contains("already exists") })
        let errorX = try #require(text[error].range(of: "A team")).lowerBound.utf16Offset(in: text[error])
        #expect(grid[errorX, error].style.background == frame.background, "the error sits on the box")
        // The dark theme keeps its reverse-video box.
        let dark = try ScreenFixture(colors: .indexed256, background: .dark)
        dark.press(.character("+"))
        let darkGrid = dark.render()
        let darkTop = try #require(lines(darkGrid).firstIndex { $0.contains("Secret Team") })
        let darkLeft = try #require(lines(darkGrid)[darkTop].firstIndex(of: "┌")).utf16Offset(in: lines(darkGrid)[darkTop])
        #expect(darkGrid[darkLeft, darkTop].style.reverse)
    }
}
