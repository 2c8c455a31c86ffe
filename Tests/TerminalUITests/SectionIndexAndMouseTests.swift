import CNCursesW
import Testing
@testable import TerminalUI
import TestSupport

// MARK: - The section index

@Suite("TableView: the section index")
struct SectionIndexTests {
    let model = Model.threeZones

    func table(titles: [String]) -> TableView {
        var table = makeTable(model)
        table.sectionIndexTitles = titles
        return table
    }

    @Test("The titles stand at the right edge, one per line; the rows give up their width")
    func rendersTitles() {
        var table = table(titles: ["Af", "As", "Eu"])
        let grid = render(&table, model, width: 50, height: 8)
        // 50 cells: rows take 46, the index a blank, two cells of title and a blank.
        #expect(lines(grid) == [
            " Africa                                        Af",
            "▶ Algeria                             Wins: 0  As",
            "  Cameroon                            Wins: 1  Eu",
            "  Ghana                               Wins: 2",
            " Asia",
            "  Iran                                Wins: 0",
            "  Japan                               Wins: 1",
            " Europe",
        ])
        #expect(grid[47, 0].style == plainTheme.index)
        // The cursor's bar and the header's style stop where the index begins.
        #expect(grid[45, 1].style.reverse)
        #expect(!grid[46, 1].style.reverse && !grid[47, 1].style.reverse)
        #expect(grid[46, 0].style == plainTheme.row)
    }

    @Test("Every title takes two cells, whatever it holds: the rows keep their width and the details stay in one column")
    func titlesOfAnyWidth() {
        var table = table(titles: ["Africa", "日本", "E"])
        let grid = render(&table, model, width: 50, height: 8)
        #expect(lines(grid)[0].hasSuffix(" Af"))
        #expect(lines(grid)[1] == "▶ Algeria                             Wins: 0  日")
        #expect(lines(grid)[2].hasSuffix("Wins: 1  E"))
        #expect(drawingProblems(grid).isEmpty)
        var plain = self.table(titles: ["Af", "As", "Eu"])
        var wide = self.table(titles: ["Af", "🌊 ", "🌊x", "Eu"])
        let plainGrid = render(&plain, model, width: 50, height: 8), wideGrid = render(&wide, model, width: 50, height: 8)
        for y in 0..<8 {
            #expect(plainGrid[46, y] == wideGrid[46, y] && plainGrid[45, y] == wideGrid[45, y], "line \(y): the rows end where they did")
        }
        #expect(wideGrid[47, 1].text == "🌊" && wideGrid[48, 1].isContinuation && wideGrid[49, 1].text == " ")
    }

    @Test("Hidden when the rows would keep fewer than 40 cells, or the titles do not fit the height",
          arguments: [(43, 8, ["Af", "As", "Eu"]), (50, 2, ["Af", "As", "Eu"]), (50, 8, []), (50, 8, [""])])
    func hidden(width: Int, height: Int, titles: [String]) {
        var indexed = table(titles: titles)
        var plain = makeTable(model)
        #expect(render(&indexed, model, width: width, height: height) == render(&plain, model, width: width, height: height))
        #expect(indexed.hit(x: width - 2, y: 0) != .indexTitle(0))
    }

    @Test("Shown from 44 cells: 40 for the rows and 4 for the index")
    func narrowestShown() {
        var table = table(titles: ["Af", "As", "Eu"])
        let grid = render(&table, model, width: 44, height: 8)
        #expect(lines(grid)[1] == "▶ Algeria                       Wins: 0  As")
        #expect(lines(grid).allSatisfy { DisplayText.width($0) <= 44 })
    }
}

// MARK: - Hit testing, scrolling by the wheel, showing a section

@Suite("TableView: hit testing and mouse scrolling")
struct TableViewHitTests {
    @Test("A cell is a row, a header, the sticky header, an index title, or nothing")
    func hits() {
        let model = Model.numbered([5, 5, 5])
        var table = makeTable(model)
        table.sectionIndexTitles = ["A", "B", "G"]
        var grid = Grid(width: 60, height: 10)
        #expect(table.hit(x: 1, y: 1) == nil, "nothing was rendered yet")
        // Rendered at y 2 of a taller grid: hits are in the grid's coordinates.
        table.layout(in: Rect(x: 0, y: 2, width: 50, height: 6))
        table.draw(into: &grid, theme: plainTheme, now: 0, cell: model.cell)
        #expect(table.hit(x: 3, y: 2) == .header(section: 0))
        #expect(table.hit(x: 3, y: 3) == .row(pos(0, 0)))
        #expect(table.hit(x: 45, y: 7) == .row(pos(0, 4)))
        #expect(table.hit(x: 47, y: 2) == .indexTitle(0))
        #expect(table.hit(x: 49, y: 4) == .indexTitle(2))
        #expect(table.hit(x: 47, y: 5) == nil, "below the last title")
        #expect(table.hit(x: 3, y: 1) == nil, "above the area")
        #expect(table.hit(x: 3, y: 8) == nil, "below the area")
        #expect(table.hit(x: 50, y: 3) == nil, "right of the area")

        // Scrolled one line into Beta: Beta's first row is under its sticky header.
        table.select(pos(1, 4))
        table.scroll(by: 1)
        table.layout(in: Rect(x: 0, y: 2, width: 50, height: 6))
        table.draw(into: &grid, theme: plainTheme, now: 0, cell: model.cell)
        #expect(lines(grid)[2].hasPrefix(" Beta "))
        #expect(lines(grid)[3].hasPrefix("  Beta 1 "))
        #expect(table.hit(x: 3, y: 2) == .header(section: 1))
        #expect(table.hit(x: 3, y: 3) == .row(pos(1, 1)))
    }

    @Test("The wheel scrolls the lines; the cursor moves only to stay on screen")
    func wheel() {
        let model = Model.numbered([5, 5, 5])
        var table = makeTable(model)
        _ = render(&table, model, height: 6)
        table.moveCursor(by: 3)  // Alpha 3, on screen
        table.scroll(by: 3)
        #expect(table.topLine == 3)
        #expect(table.cursor == pos(0, 3), "still on screen: the cursor stays")
        table.scroll(by: 3)
        #expect(table.topLine == 6)
        #expect(table.cursor == pos(1, 0), "the first row on screen")
        let grid = render(&table, model, height: 6)
        #expect(lines(grid)[0] == " Beta")
        #expect(cursorLines(grid) == [1])

        table.scroll(by: 100)
        #expect(table.topLine == 18 - 6, "stops at the end")
        #expect(table.cursor == pos(2, 0))
        table.scroll(by: -100)
        #expect(table.topLine == 0)
        #expect(table.cursor == pos(0, 4), "the last row on screen")
        #expect(cursorLines(render(&table, model, height: 6)) == [5])
    }

    @Test("Showing a section puts its header on top and the cursor on its first row")
    func showSection() {
        let model = Model.numbered([5, 5, 5])
        var table = makeTable(model)
        _ = render(&table, model, height: 6)
        table.showSection(1)
        #expect(table.cursor == pos(1, 0))
        #expect(table.topLine == 6)
        // The last section cannot scroll past the end.
        table.showSection(2)
        #expect(table.cursor == pos(2, 0))
        #expect(table.topLine == 12)
        table.showSection(7)
        #expect(table.cursor == pos(2, 0), "no such section: nothing changes")
    }

    @Test("Scrolling an empty table does nothing")
    func empty() {
        var table = TableView()
        table.reload([])
        table.scroll(by: 3)
        table.showSection(0)
        #expect(table.topLine == 0)
        #expect(table.cursor == nil)
    }
}

// MARK: - Mouse events and emoji flags

@Suite("TerminalSession: mouse events")
struct MouseEventTests {
    @Test("curses' button states become clicks, double-clicks and wheel turns")
    func mapping() {
        #expect(TerminalSession.mouseEvent(buttons: cn_button1_clicked(), x: 3, y: 4) == MouseEvent(.click, x: 3, y: 4))
        #expect(TerminalSession.mouseEvent(buttons: cn_button1_double_clicked(), x: 0, y: 0) == MouseEvent(.doubleClick, x: 0, y: 0))
        #expect(TerminalSession.mouseEvent(buttons: cn_button4_pressed(), x: 1, y: 2) == MouseEvent(.scrollUp, x: 1, y: 2))
        #expect(TerminalSession.mouseEvent(buttons: cn_button5_pressed(), x: 1, y: 2) == MouseEvent(.scrollDown, x: 1, y: 2))
        #expect(TerminalSession.mouseEvent(buttons: 0, x: 1, y: 2) == nil)
    }
}

@Suite("DisplayText: emoji flags")
struct EmojiFlagTests {
    @Test("Two letters make a flag of two cells; anything else makes none")
    func flags() throws {
        let algeria = try #require(DisplayText.emojiFlag(regionCode: "dz"))
        #expect(algeria == DisplayText.Glyph(text: "\u{1F1E9}\u{1F1FF}", width: 2))
        for bad in ["", "D", "DZA", "D1", "ÄB", "🇩🇿"] {
            #expect(DisplayText.emojiFlag(regionCode: bad) == nil, "\(bad)")
        }
        // In names, a flag is the same glyph.
        #expect(DisplayText.glyphs("🇩🇿") == [algeria])
    }

    @Test("A flag span takes two cells of the grid, the second a continuation")
    func inTheGrid() throws {
        let flag = try #require(DisplayText.emojiFlag(regionCode: "FR"))
        let span = Span(glyphs: [flag])
        #expect(span.width == 2)
        #expect(span.text == "🇫🇷")
        var grid = Grid(width: 6, height: 1)
        let next = grid.write(span.glyphs, x: 1, y: 0)
        #expect(next == 3)
        #expect(grid[1, 0].text == "🇫🇷")
        #expect(grid[2, 0].isContinuation)
        #expect(DisplayText.isEmojiFlag(Array(grid[1, 0].text.unicodeScalars)))
    }
}
