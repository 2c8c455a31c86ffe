import Testing
@testable import TerminalUI
import TestSupport

@Suite("Grid: cells, clipping and wide glyphs")
struct GridTests {
    @Test("A new grid is blank")
    func blank() {
        let grid = Grid(width: 4, height: 3)
        #expect(grid.text == "\n\n")
        #expect(grid.line(0) == "    ")
        #expect(grid[3, 2] == .blank)
    }

    @Test("Negative sizes make an empty grid")
    func negativeSize() {
        let grid = Grid(width: -3, height: -1)
        #expect(grid.width == 0)
        #expect(grid.height == 0)
        #expect(grid.text == "")
    }

    @Test("Writing stops at the right edge")
    func clipsAtEdge() {
        var grid = Grid(width: 10, height: 2)
        let end = grid.write("Hello, world!", x: 5, y: 0)
        #expect(end == 10)
        #expect(grid.line(0) == "     Hello")
        #expect(grid.line(1) == "          ")
    }

    @Test("Writing stops at the limit")
    func clipsAtLimit() {
        var grid = Grid(width: 10, height: 2)
        let end = grid.write("abcdef", x: 1, y: 1, limit: 3)
        #expect(end == 4)
        #expect(grid.text == "\n abc")
        #expect(grid.write("xyz", x: 0, y: 0, limit: 0) == 0)
        #expect(grid.write("xyz", x: 0, y: 0, limit: -2) == 0)
        #expect(grid.text == "\n abc")
    }

    @Test("Lines outside the grid are ignored")
    func outsideRows() {
        var grid = Grid(width: 5, height: 2)
        #expect(grid.write("abc", x: 1, y: -1) == 1)
        #expect(grid.write("abc", x: 1, y: 2) == 1)
        #expect(grid == Grid(width: 5, height: 2))
    }

    @Test("Text starting left of the grid shows its visible part")
    func negativeX() {
        var grid = Grid(width: 5, height: 1)
        let end = grid.write("abcdef", x: -2, y: 0)
        #expect(end == 4)
        #expect(grid.line(0) == "cdef ")
        // Half of a wide glyph cannot be drawn: the cell stays blank.
        var wide = Grid(width: 5, height: 1)
        wide.write("日本", x: -1, y: 0)
        #expect(wide[0, 0] == .blank)
        #expect(wide[1, 0].text == "本")
        #expect(wide[2, 0].isContinuation)
        #expect(drawingProblems(wide).isEmpty)
    }

    @Test("A wide glyph takes its cell and a continuation cell")
    func wideGlyph() {
        var grid = Grid(width: 6, height: 1)
        let end = grid.write("日本", x: 1, y: 0)
        #expect(end == 5)
        #expect(grid[1, 0].text == "日")
        #expect(!grid[1, 0].isContinuation)
        #expect(grid[2, 0].isContinuation)
        #expect(grid[2, 0].text == "")
        #expect(grid[3, 0].text == "本")
        #expect(grid[4, 0].isContinuation)
        #expect(grid.text == " 日本")
        #expect(drawingProblems(grid).isEmpty)
    }

    @Test("A wide glyph that would cross the edge or the limit is not written")
    func wideGlyphAtEdge() {
        var grid = Grid(width: 5, height: 2)
        #expect(grid.write("ab日", x: 2, y: 0) == 4)
        #expect(grid.line(0) == "  ab ")
        #expect(grid.write("a日", x: 0, y: 1, limit: 2) == 1)
        #expect(grid.line(1) == "a    ")
        #expect(drawingProblems(grid).isEmpty)
    }

    @Test("Overwriting the second half of a wide glyph blanks the first")
    func overwriteSecondHalf() {
        var grid = Grid(width: 4, height: 1)
        grid.write("日", x: 0, y: 0)
        grid.write("x", x: 1, y: 0)
        #expect(grid[0, 0] == .blank)
        #expect(grid[1, 0].text == "x")
        #expect(grid.text == " x")
        #expect(drawingProblems(grid).isEmpty)
    }

    @Test("Overwriting the first half of a wide glyph blanks the second")
    func overwriteFirstHalf() {
        var grid = Grid(width: 4, height: 1)
        grid.write("日", x: 1, y: 0)
        grid.write("x", x: 1, y: 0)
        #expect(grid[2, 0] == .blank)
        #expect(grid.text == " x")
        #expect(drawingProblems(grid).isEmpty)
    }

    @Test("Overwriting a wide glyph with one offset by a cell leaves no orphan")
    func overwriteWideWithOffsetWide() {
        var grid = Grid(width: 6, height: 1)
        grid.write("日本", x: 0, y: 0)
        grid.write("中", x: 1, y: 0)
        // 中 covers the right half of 日 and the left half of 本: both lose their other half.
        #expect(grid[0, 0] == .blank)
        #expect(grid[1, 0].text == "中")
        #expect(grid[2, 0].isContinuation)
        #expect(grid[3, 0] == .blank)
        #expect(drawingProblems(grid).isEmpty)
        #expect(DisplayText.width(grid.line(0)) == grid.width)
    }

    @Test("A wide glyph written over two narrow ones replaces both")
    func wideOverNarrow() {
        var grid = Grid(width: 4, height: 1)
        grid.write("abcd", x: 0, y: 0)
        grid.write("日", x: 1, y: 0)
        #expect(grid.text == "a日d")
        #expect(drawingProblems(grid).isEmpty)
    }

    @Test("Lines are as wide as the grid; text trims trailing spaces")
    func textOutput() {
        var grid = Grid(width: 6, height: 3)
        grid.write("ab", x: 0, y: 0)
        grid.write("日", x: 2, y: 2)
        #expect(grid.text == "ab\n\n  日")
        for y in 0..<grid.height {
            #expect(DisplayText.width(grid.line(y)) == grid.width)
        }
    }

    @Test("Fill and restyle change styles; restyle keeps the text")
    func fillAndRestyle() {
        var grid = Grid(width: 4, height: 2)
        grid.write("abcd", x: 0, y: 0, style: Style(bold: true))
        grid.restyle(Rect(x: 1, y: 0, width: 2, height: 1)) { $0.reverse = true }
        #expect(grid.text == "abcd\n")
        #expect(grid[0, 0].style == Style(bold: true))
        #expect(grid[1, 0].style == Style(bold: true, reverse: true))
        #expect(grid[2, 0].style == Style(bold: true, reverse: true))
        #expect(grid[3, 0].style == Style(bold: true))

        grid.fill(Rect(x: 2, y: 0, width: 10, height: 10), style: Style(underline: true))
        #expect(grid.text == "ab\n")
        #expect(grid[3, 1].style == Style(underline: true))
        #expect(grid[1, 1].style == .plain)
    }

    @Test("Fill and restyle clip rectangles that stick out of the grid")
    func fillClipsPartialRects() {
        var grid = Grid(width: 4, height: 2)
        grid.write("abcd", x: 0, y: 0)
        grid.write("efgh", x: 0, y: 1)
        grid.fill(Rect(x: -2, y: -1, width: 3, height: 2))
        #expect(grid.text == " bcd\nefgh")
        grid.restyle(Rect(x: 3, y: 1, width: 5, height: 5)) { $0.dim = true }
        #expect(grid[3, 1].style.dim)
    }

    @Test("A fill whose edge cuts a wide glyph blanks the whole glyph, leaving no half behind")
    func fillCutsWideGlyphs() {
        var grid = Grid(width: 8, height: 1)
        grid.write("日本語x", x: 0, y: 0)
        // Columns 1 to 4: the second half of 日, 本, and the first half of 語.
        grid.fill(Rect(x: 1, y: 0, width: 4, height: 1))
        #expect(grid.text == "      x")
        for x in 0..<8 { #expect(!grid[x, 0].isContinuation, "column \(x)") }
    }

    @Test("Fill of a rectangle wholly outside the grid does nothing")
    func fillOutside() async {
        // Grid.fill builds `max(0, rect.y)..<min(height, rect.y + rect.height)`, a range whose
        // lower bound exceeds its upper bound when the rectangle lies outside: a trap.
        await #expect(processExitsWith: .success) {
            var grid = Grid(width: 5, height: 5)
            grid.fill(Rect(x: 0, y: 10, width: 5, height: 1))
            grid.fill(Rect(x: -10, y: 0, width: 5, height: 1))
            grid.restyle(Rect(x: 8, y: 0, width: 2, height: 2)) { $0.bold = true }
        }
    }
}
