import Testing
@testable import TerminalUI
import TestSupport

@Suite("TableView: scrolling and cursor movement")
struct TableViewCursorTests {
    let model = Model.numbered([5, 5, 5])

    @Test("The top line shows the header of the section being scrolled")
    func stickyHeader() {
        var table = makeTable(model)
        _ = render(&table, model)
        table.moveCursor(by: 7)
        #expect(table.cursor == pos(1, 2))
        var grid = render(&table, model)
        #expect(table.topLine == 2)
        #expect(lines(grid) == [
            " Alpha",  // sticky: the top row, Alpha 1, is under it
            "  Alpha 2                       Wins: 2",
            "  Alpha 3                       Wins: 3",
            "  Alpha 4                       Wins: 4",
            " Beta",
            "  Beta 0                        Wins: 0",
            "  Beta 1                        Wins: 1",
            "▶ Beta 2                        Wins: 2",
        ])

        table.moveCursor(by: 5)
        #expect(table.cursor == pos(2, 2))
        grid = render(&table, model)
        #expect(lines(grid) == [
            " Beta",
            "  Beta 2                        Wins: 2",
            "  Beta 3                        Wins: 3",
            "  Beta 4                        Wins: 4",
            " Gamma",
            "  Gamma 0                       Wins: 0",
            "  Gamma 1                       Wins: 1",
            "▶ Gamma 2                       Wins: 2",
        ])
        #expect(grid[1, 0].style == plainTheme.header)

        table.moveCursorToStart()
        grid = render(&table, model)
        #expect(table.topLine == 0)
        #expect(lines(grid).prefix(2) == [" Alpha", "▶ Alpha 0                       Wins: 0"])
    }

    @Test("A section's last row on the top line shows itself: the next header, below it, has pushed the sticky one off")
    func stickyHeaderPushedOff() {
        var table = makeTable(model)
        _ = render(&table, model, height: 7)
        table.moveCursorToEnd()
        let grid = render(&table, model, height: 7)
        #expect(table.topLine == 11)  // Beta 4, Beta's last row
        #expect(lines(grid) == [
            "  Beta 4                        Wins: 4",
            " Gamma",
            "  Gamma 0                       Wins: 0",
            "  Gamma 1                       Wins: 1",
            "  Gamma 2                       Wins: 2",
            "  Gamma 3                       Wins: 3",
            "▶ Gamma 4                       Wins: 4",
        ])
        #expect(grid[1, 0].style == plainTheme.row && grid[1, 1].style == plainTheme.header)
        #expect(table.hit(x: 5, y: 0) == .row(pos(1, 4)))
        #expect(table.hit(x: 5, y: 1) == .header(section: 2))
    }

    @Test("Moving through every row keeps the cursor visible under a header", arguments: [
        [5, 5, 5], [3, 10, 1, 6, 2], [1, 1, 1, 1, 1, 1, 1, 1], [20], [0, 4, 0, 9],
    ], [3, 5, 8])
    func cursorAlwaysVisible(counts: [Int], height: Int) {
        let model = Model.numbered(counts)
        var table = makeTable(model)
        let rows = counts.reduce(0, +)
        var path: [TablePosition] = []
        for section in counts.indices { for row in 0..<counts[section] { path.append(pos(section, row)) } }

        func check() {
            let grid = render(&table, model, height: height)
            let cursor = table.cursor!
            #expect(cursorLines(grid).count == 1)
            guard let y = cursorLines(grid).first else { return }
            #expect(y >= 1)
            // The marker and the title at the left, the detail ending at the 39th cell.
            #expect(lines(grid)[y].hasPrefix("▶ \(model.name(cursor)) "))
            #expect(lines(grid)[y].hasSuffix(" Wins: \(cursor.row)") && DisplayText.width(lines(grid)[y]) == 39)
            // The top line is the header of the section scrolled into (the sticky header), or
            // that section's last row when the next section's header is right below it.
            var remaining = table.topLine
            var section = 0
            while remaining > counts[section] { remaining -= 1 + counts[section]; section += 1 }
            if remaining > 0, remaining == counts[section] {
                #expect(lines(grid)[0].hasPrefix("  \(model.name(pos(section, remaining - 1))) "), "the section's last row, not its header")
                #expect(lines(grid)[1] == " " + model.sections[section + 1].title && grid[1, 1].style == plainTheme.header)
            } else {
                #expect(grid[1, 0].style == plainTheme.header)
                #expect(lines(grid)[0] == " " + model.sections[section].title)
            }
        }

        check()
        for index in 1..<rows {
            table.moveCursor(by: 1)
            #expect(table.cursor == path[index])
            check()
        }
        for index in stride(from: rows - 2, through: 0, by: -1) {
            table.moveCursor(by: -1)
            #expect(table.cursor == path[index])
            check()
        }
    }

    @Test("Moving skips headers and stops at the ends")
    func moveSkipsHeaders() {
        var table = makeTable(model)
        #expect(table.cursor == pos(0, 0))
        table.moveCursor(by: -1)
        #expect(table.cursor == pos(0, 0))
        table.moveCursor(by: 4)
        #expect(table.cursor == pos(0, 4))
        table.moveCursor(by: 1)
        #expect(table.cursor == pos(1, 0))
        table.moveCursor(by: -1)
        #expect(table.cursor == pos(0, 4))
        table.moveCursor(by: 100)
        #expect(table.cursor == pos(2, 4))
        table.moveCursor(by: 1)
        #expect(table.cursor == pos(2, 4))
        table.moveCursor(by: -100)
        #expect(table.cursor == pos(0, 0))
    }

    @Test("Start and end go to the first and last rows")
    func startAndEnd() {
        var table = makeTable(model)
        table.moveCursorToEnd()
        #expect(table.cursor == pos(2, 4))
        let grid = render(&table, model)
        #expect(lines(grid).last == "▶ Gamma 4                       Wins: 4")
        table.moveCursorToStart()
        #expect(table.cursor == pos(0, 0))
    }

    @Test("Paging moves by the screen height less two, and stops at the ends")
    func paging() {
        var table = makeTable(model)
        _ = render(&table, model)  // 8 lines
        table.page(by: 1)
        #expect(table.cursor == pos(1, 1))  // 6 rows down
        table.page(by: 1)
        #expect(table.cursor == pos(2, 2))
        table.page(by: 1)
        #expect(table.cursor == pos(2, 4))
        table.page(by: -1)
        #expect(table.cursor == pos(1, 3))
        table.page(by: -5)
        #expect(table.cursor == pos(0, 0))
    }

    @Test("Empty sections are skipped")
    func emptySections() {
        let model = Model.numbered([2, 0, 0, 2])
        var table = makeTable(model)
        table.moveCursor(by: 1)
        table.moveCursor(by: 1)
        #expect(table.cursor == pos(3, 0))
        table.moveCursor(by: -1)
        #expect(table.cursor == pos(0, 1))
        let grid = render(&table, model)
        #expect(lines(grid).prefix(5) == [" Alpha", "  Alpha 0                       Wins: 0", "▶ Alpha 1                       Wins: 1", " Beta", " Gamma"])
    }

    @Test("Moving an empty table does nothing")
    func emptyMoves() {
        var table = TableView()
        table.reload([TableSection(title: "Nobody", rowCount: 0)])
        table.moveCursor(by: 1)
        table.page(by: 1)
        table.moveCursorToEnd()
        #expect(table.cursor == nil)
        let grid = render(&table, Model(sections: [("Nobody", [])]))
        #expect(lines(grid)[0] == " Nobody")
    }

    @Test("Reloading keeps the cursor's place, clamped to the rows that remain")
    func reloadClamps() {
        var table = makeTable(model)
        table.select(pos(2, 4))
        table.reload(Model.numbered([5, 5, 5]).tableSections)
        #expect(table.cursor == pos(2, 4))
        table.reload(Model.numbered([5, 5, 2]).tableSections)
        #expect(table.cursor == pos(2, 1))
        table.reload(Model.numbered([5]).tableSections)
        #expect(table.cursor == pos(0, 4))
        table.select(pos(7, 7))
        #expect(table.cursor == pos(0, 4))
    }
}
