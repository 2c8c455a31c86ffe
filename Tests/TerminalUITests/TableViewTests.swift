import Testing
@testable import TerminalUI
import TestSupport

// MARK: - Helpers

/// A theme whose styles can be told apart, without colours.
let plainTheme = TableTheme(
    header: Style(bold: true, underline: true),
    row: .plain,
    detail: Style(dim: true),
    cursor: Style(bold: true, reverse: true),
    flash: Style(underline: true)
)

/// A table's contents: section titles and the names of their rows.
struct Model {
    var sections: [(title: String, rows: [String])]

    var tableSections: [TableSection] { sections.map { TableSection(title: $0.title, rowCount: $0.rows.count) } }

    func name(_ position: TablePosition) -> String { sections[position.section].rows[position.row] }

    func cell(_ position: TablePosition) -> TableCell {
        TableCell(title: name(position), detail: "Wins: \(position.row)")
    }

    /// Africa (Algeria, Cameroon, Ghana), Asia (Iran, Japan) and Europe (France).
    static let threeZones = Model(sections: [
        ("Africa", ["Algeria", "Cameroon", "Ghana"]),
        ("Asia", ["Iran", "Japan"]),
        ("Europe", ["France"]),
    ])

    /// Sections "Alpha", "Beta"… with rows "Alpha 0", "Alpha 1"…
    static func numbered(_ counts: [Int]) -> Model {
        let titles = ["Alpha", "Beta", "Gamma", "Delta", "Epsilon", "Zeta", "Eta", "Theta"]
        return Model(sections: counts.enumerated().map { index, count in
            (titles[index], (0..<count).map { "\(titles[index]) \($0)" })
        })
    }
}

func makeTable(_ model: Model) -> TableView {
    var table = TableView()
    table.reload(model.tableSections)
    return table
}

func render(_ table: inout TableView, _ model: Model, width: Int = 40, height: Int = 8, now: Double = 0, theme: TableTheme = plainTheme) -> Grid {
    var grid = Grid(width: width, height: height)
    table.layout(in: Rect(x: 0, y: 0, width: width, height: height))
    table.draw(into: &grid, theme: theme, now: now, cell: model.cell)
    return grid
}

func pos(_ section: Int, _ row: Int) -> TablePosition { TablePosition(section: section, row: row) }

/// The line (y) of the grid that shows the cursor marker, if one does.
func cursorLines(_ grid: Grid) -> [Int] {
    (0..<grid.height).filter { grid[0, $0].text == "▶" }
}

// MARK: - Rendering

@Suite("TableView: rendering")
struct TableViewRenderTests {
    let model = Model.threeZones

    @Test("Headers, rows, right-aligned details and the cursor marker")
    func rendersSections() {
        var table = makeTable(model)
        let grid = render(&table, model)
        #expect(lines(grid) == [
            " Africa",
            "▶ Algeria                       Wins: 0",
            "  Cameroon                      Wins: 1",
            "  Ghana                         Wins: 2",
            " Asia",
            "  Iran                          Wins: 0",
            "  Japan                         Wins: 1",
            " Europe",
        ])
        // The detail ends one cell before the right edge.
        #expect(grid.line(1).hasSuffix("Wins: 0 "))
        #expect(DisplayText.width(lines(grid)[1]) == 39)
    }

    @Test("Badges come between the marker and the title")
    func badges() {
        var table = makeTable(model)
        var grid = Grid(width: 40, height: 4)
        table.layout(in: Rect(x: 0, y: 0, width: 40, height: 4))
        table.draw(into: &grid, theme: plainTheme, now: 0) { position in
            TableCell(badge: [Span("[", style: .plain), Span("ALG", style: Style(bold: true)), Span("]")], title: model.name(position), detail: "Wins: 3")
        }
        #expect(lines(grid)[1] == "▶ [ALG] Algeria                 Wins: 3")
        #expect(lines(grid)[2] == "  [ALG] Cameroon                Wins: 3")
    }

    @Test("An empty table renders blank")
    func emptyTable() {
        var table = TableView()
        table.reload([])
        #expect(table.cursor == nil)
        let grid = render(&table, Model(sections: []))
        #expect(grid.text == String(repeating: "\n", count: 7))
    }

    @Test("Rendering stays inside its area")
    func staysInArea() {
        var grid = Grid(width: 40, height: 7)
        for y in 0..<7 { grid.write(String(repeating: "#", count: 40), x: 0, y: y) }
        var table = makeTable(model)
        table.layout(in: Rect(x: 10, y: 1, width: 20, height: 5))
        table.draw(into: &grid, theme: plainTheme, now: 0) { position in
            TableCell(badge: [Span("[日本]")], title: "日本代表チーム " + model.name(position), detail: "Wins: 12345")
        }
        for y in 0..<7 {
            for x in 0..<40 where !(10..<30).contains(x) || !(1..<6).contains(y) {
                #expect(grid[x, y].text == "#", "cell (\(x), \(y)) was overwritten")
            }
        }
        #expect(drawingProblems(grid).isEmpty)
        #expect(grid.line(1) == "########## Africa             ##########")
    }

    @Test("A narrow table gives up the title before the detail, then cuts the detail; every line fits", arguments: [20, 16, 12, 8, 4, 2, 1])
    func narrow(width: Int) {
        let model = Model(sections: [
            ("North, Central America & Caribbean", ["Costa Rica", "Honduras"]),
            ("日本語のセクション名", ["日本代表チーム", "Bosnia and Herzegovina"]),
        ])
        var table = makeTable(model)
        var grid = Grid(width: width, height: 6)
        table.layout(in: Rect(x: 0, y: 0, width: width, height: 6))
        table.draw(into: &grid, theme: plainTheme, now: 0) { position in
            TableCell(badge: [Span("[CRC]")], title: model.name(position), detail: "Wins: 12")
        }
        for line in lines(grid) {
            #expect(DisplayText.width(line) <= width)
        }
        #expect(drawingProblems(grid).isEmpty)
        if width == 20 {
            #expect(lines(grid) == [
                " North, Central Ame…",
                "▶ [CRC] …  Wins: 12",
                "  [CRC] …  Wins: 12",
                " 日本語のセクション…",
                "  [CRC] …  Wins: 12",
                "  [CRC] …  Wins: 12",
            ])
        }
        if width == 16 {
            // No room for a title: the detail takes what is left and is cut in its turn.
            #expect(lines(grid) == [
                " North, Central…",
                "▶ [CRC] Wins: …",
                "  [CRC] Wins: …",
                " 日本語のセクシ…",
                "  [CRC] Wins: …",
                "  [CRC] Wins: …",
            ])
        }
    }

    @Test("A narrow table without badges shows the start of each title")
    func narrowWithoutBadge() {
        let model = Model(sections: [("Europe", ["Bosnia and Herzegovina", "日本代表チーム"])])
        var table = makeTable(model)
        let grid = render(&table, model, width: 20, height: 3)
        #expect(lines(grid) == [
            " Europe",
            "▶ Bosnia …  Wins: 0",
            "  日本代…   Wins: 1",
        ])
    }

    @Test("Without colours the cursor row is drawn in reverse video")
    func cursorIsReverse() {
        var table = makeTable(model)
        table.moveCursor(by: 1)
        var grid = Grid(width: 40, height: 8)
        let badgeColumns = 2..<7
        table.layout(in: Rect(x: 0, y: 0, width: 40, height: 8))
        table.draw(into: &grid, theme: plainTheme, now: 0) { position in
            TableCell(badge: [Span("[ALG]", style: Style(bold: true))], title: model.name(position), detail: "Wins: 1")
        }
        #expect(cursorLines(grid) == [2])
        for x in 0..<40 where !badgeColumns.contains(x) {
            #expect(grid[x, 2].style.reverse, "column \(x) of the cursor row")
            #expect(grid[x, 2].style.foreground == nil && grid[x, 2].style.background == nil)
        }
        for y in [1, 3, 5, 6] {
            for x in 0..<40 { #expect(!grid[x, y].style.reverse, "cell (\(x), \(y))") }
        }
        // Headers and details have their own styles.
        #expect(grid[1, 0].style == plainTheme.header)
        #expect(grid[35, 1].style == plainTheme.detail)
    }
}

// MARK: - Scrolling and the cursor

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

// MARK: - Batches

@Suite("TableView: applying batches")
struct TableViewUpdateTests {
    @Test("A moved row keeps the cursor and flashes until flashDuration has passed")
    func moveFollowsCursor() {
        let before = Model(sections: [("Africa", ["Algeria", "Cameroon", "Nigeria"]), ("Asia", ["Iran", "Japan"])])
        let after = Model(sections: [("Africa", ["Nigeria", "Algeria", "Cameroon"]), ("Asia", ["Iran", "Japan"])])
        var table = makeTable(before)
        table.select(pos(0, 2))
        var update = TableUpdate()
        update.movedRows = [(from: pos(0, 2), to: pos(0, 0))]
        table.apply(update, sections: after.tableSections, now: 10)
        #expect(table.cursor == pos(0, 0))
        #expect(after.name(table.cursor!) == "Nigeria")
        #expect(table.flashes == [pos(0, 0): 10 + TableView.flashDuration])
        #expect(table.nextFlashExpiry == 10.5)
        let remainAt104 = table.expireFlashes(now: 10.4)
        #expect(remainAt104)
        #expect(table.flashes.count == 1)
        let remainAt105 = table.expireFlashes(now: 10.5)
        #expect(!remainAt105)
        #expect(table.flashes.isEmpty)
        #expect(table.nextFlashExpiry == nil)
    }

    @Test("A move to the same index path: the row is redrawn and flashes, the cursor stays on it")
    func moveToTheSamePath() {
        // One commit deleted Arthur and renamed Barbara to Cyril, who passed Claire.
        let before = Model(sections: [("FR", ["Arthur", "Barbara", "Claire", "Diane"])])
        let after = Model(sections: [("FR", ["Claire", "Cyril", "Diane"])])
        var table = makeTable(before)
        table.select(pos(0, 1))
        var update = TableUpdate()
        update.deletedRows = [pos(0, 0)]
        update.movedRows = [(from: pos(0, 1), to: pos(0, 1))]
        #expect(update.newPosition(of: pos(0, 2)) == pos(0, 0), "Claire, unmoved, goes before Cyril")
        #expect(update.newPosition(of: pos(0, 3)) == pos(0, 2))
        table.apply(update, sections: after.tableSections, now: 10)
        #expect(table.cursor == pos(0, 1))
        #expect(after.name(table.cursor!) == "Cyril")
        #expect(table.flashes == [pos(0, 1): 10 + TableView.flashDuration])
        let grid = render(&table, after, now: 10)
        #expect(lines(grid)[1] == "  Claire                        Wins: 0")
        #expect(lines(grid)[2] == "▶ Cyril                         Wins: 1")
    }

    @Test("A flashing row is drawn in the flash style until it expires")
    func flashIsDrawn() {
        let before = Model(sections: [("Africa", ["Algeria", "Cameroon", "Nigeria"]), ("Asia", ["Iran", "Japan"])])
        let after = Model(sections: [("Africa", ["Nigeria", "Algeria", "Cameroon"]), ("Asia", ["Iran", "Japan"])])
        var table = makeTable(before)
        table.select(pos(1, 0))
        var update = TableUpdate()
        update.movedRows = [(from: pos(0, 2), to: pos(0, 0))]
        table.apply(update, sections: after.tableSections, now: 10)
        #expect(table.cursor == pos(1, 0))

        var grid = render(&table, after, now: 10)
        #expect(lines(grid)[1] == "  Nigeria                       Wins: 0")
        for x in 0..<39 { #expect(grid[x, 1].style == plainTheme.flash, "column \(x)") }
        #expect(grid[2, 2].style == plainTheme.row)
        #expect(grid[2, 5].style == plainTheme.cursor)

        grid = render(&table, after, now: 10.6)
        #expect(grid[2, 1].style == plainTheme.row)
        #expect(grid[35, 1].style == plainTheme.detail)
        let remain = table.expireFlashes(now: 10.6)
        #expect(!remain)
    }

    @Test("A flash follows its row through later batches")
    func flashFollowsRow() {
        var table = makeTable(Model.numbered([3]))
        var first = TableUpdate()
        first.movedRows = [(from: pos(0, 2), to: pos(0, 0))]
        table.apply(first, sections: Model.numbered([3]).tableSections, now: 10)
        var second = TableUpdate()
        second.insertedRows = [pos(0, 0)]
        table.apply(second, sections: Model.numbered([4]).tableSections, now: 10.25)
        #expect(table.flashes == [pos(0, 1): 10.5, pos(0, 0): 10.75])
        #expect(table.nextFlashExpiry == 10.5)
    }

    @Test("An inserted section before the cursor moves it with its row")
    func sectionInsert() {
        let before = Model(sections: [("Africa", ["Algeria", "Ghana", "Nigeria"]), ("Europe", ["France", "Spain"])])
        let after = Model(sections: [("Africa", ["Algeria", "Ghana", "Nigeria"]), ("Asia", ["Iran", "Japan"]), ("Europe", ["France", "Spain"])])
        var table = makeTable(before)
        table.select(pos(1, 1))
        var update = TableUpdate()
        update.insertedSections = [1]
        update.insertedRows = [pos(1, 0), pos(1, 1)]
        #expect(update.newPosition(of: pos(1, 1)) == pos(2, 1))
        table.apply(update, sections: after.tableSections, now: 0)
        #expect(table.cursor == update.newPosition(of: pos(1, 1)))
        #expect(after.name(table.cursor!) == "Spain")
        #expect(Set(table.flashes.keys) == [pos(1, 0), pos(1, 1)])
        let grid = render(&table, after, height: 10)
        #expect(lines(grid)[4] == " Asia")
        #expect(lines(grid)[9] == "▶ Spain                         Wins: 1")
    }

    @Test("A deleted section before the cursor moves it with its row")
    func sectionDelete() {
        let before = Model(sections: [("Africa", ["Algeria", "Ghana", "Nigeria"]), ("Asia", ["Iran", "Japan"]), ("Europe", ["France", "Spain"])])
        let after = Model(sections: [("Africa", ["Algeria", "Ghana", "Nigeria"]), ("Europe", ["France", "Spain"])])
        var table = makeTable(before)
        table.select(pos(2, 1))
        var update = TableUpdate()
        update.deletedSections = [1]
        update.deletedRows = [pos(1, 1), pos(1, 0)]
        #expect(update.newPosition(of: pos(2, 1)) == pos(1, 1))
        table.apply(update, sections: after.tableSections, now: 0)
        #expect(table.cursor == pos(1, 1))
        #expect(after.name(table.cursor!) == "Spain")
        #expect(table.flashes.isEmpty)
    }

    struct DeletionCase: Sendable, CustomTestStringConvertible {
        var name: String
        var before: [Int]
        var cursor: TablePosition
        var deletedSections: Set<Int> = []
        var deletedRows: [TablePosition]
        var after: [Int]
        var expected: TablePosition?
        var testDescription: String { name }
    }

    @Test("When the cursor's row is deleted the cursor lands on a nearby row", arguments: [
        DeletionCase(name: "last row of a section", before: [3, 2], cursor: pos(1, 1), deletedRows: [pos(1, 1)], after: [3, 1], expected: pos(1, 0)),
        DeletionCase(name: "first row of the table", before: [3, 2], cursor: pos(0, 0), deletedRows: [pos(0, 0)], after: [2, 2], expected: pos(0, 0)),
        DeletionCase(name: "middle row", before: [3, 2], cursor: pos(0, 1), deletedRows: [pos(0, 1)], after: [2, 2], expected: pos(0, 1)),
        DeletionCase(name: "only row of a middle section", before: [3, 1, 2], cursor: pos(1, 0), deletedSections: [1], deletedRows: [pos(1, 0)], after: [3, 2], expected: pos(1, 0)),
        DeletionCase(name: "whole last section", before: [3, 2], cursor: pos(1, 1), deletedSections: [1], deletedRows: [pos(1, 0), pos(1, 1)], after: [3], expected: pos(0, 2)),
        DeletionCase(name: "every row", before: [1, 1], cursor: pos(1, 0), deletedSections: [0, 1], deletedRows: [pos(0, 0), pos(1, 0)], after: [], expected: nil),
    ])
    func cursorRowDeleted(_ test: DeletionCase) {
        var table = makeTable(Model.numbered(test.before))
        table.select(test.cursor)
        #expect(table.cursor == test.cursor)
        var update = TableUpdate()
        update.deletedSections = test.deletedSections
        update.deletedRows = test.deletedRows
        #expect(update.newPosition(of: test.cursor) == nil)
        table.apply(update, sections: Model.numbered(test.after).tableSections, now: 0)
        #expect(table.cursor == test.expected)
        let grid = render(&table, Model.numbered(test.after))
        #expect(cursorLines(grid).count == (test.expected == nil ? 0 : 1))
    }

    @Test("Rows inserted into an empty table put the cursor on the first row")
    func insertIntoEmpty() {
        var table = TableView()
        table.reload([])
        var update = TableUpdate()
        update.insertedSections = [0]
        update.insertedRows = [pos(0, 0)]
        table.apply(update, sections: [TableSection(title: "Africa", rowCount: 1)], now: 0)
        #expect(table.cursor == pos(0, 0))
    }
}

// MARK: - TableUpdate.newPosition

struct PositionCase: Sendable, CustomTestStringConvertible {
    var name: String
    var update: TableUpdate
    var mapping: [(old: TablePosition, new: TablePosition?)]
    var testDescription: String { name }
}

func makeUpdate(deletedSections: Set<Int> = [], insertedSections: Set<Int> = [], deleted: [TablePosition] = [], inserted: [TablePosition] = [], moved: [(TablePosition, TablePosition)] = [], reloaded: [(TablePosition, TablePosition)] = []) -> TableUpdate {
    var update = TableUpdate()
    update.deletedSections = deletedSections
    update.insertedSections = insertedSections
    update.deletedRows = deleted
    update.insertedRows = inserted
    update.movedRows = moved.map { (from: $0.0, to: $0.1) }
    update.reloadedRows = reloaded.map { (from: $0.0, to: $0.1) }
    return update
}

@Suite("TableUpdate.newPosition")
struct TableUpdatePositionTests {
    @Test("Where unmentioned rows go", arguments: [
        PositionCase(name: "a delete shifts later rows up", update: makeUpdate(deleted: [pos(0, 1)]), mapping: [
            (pos(0, 0), pos(0, 0)), (pos(0, 1), nil), (pos(0, 2), pos(0, 1)), (pos(0, 5), pos(0, 4)), (pos(1, 3), pos(1, 3)),
        ]),
        PositionCase(name: "two deletes", update: makeUpdate(deleted: [pos(0, 3), pos(0, 1)]), mapping: [
            (pos(0, 0), pos(0, 0)), (pos(0, 2), pos(0, 1)), (pos(0, 4), pos(0, 2)),
        ]),
        PositionCase(name: "an insert shifts later rows down", update: makeUpdate(inserted: [pos(0, 0)]), mapping: [
            (pos(0, 0), pos(0, 1)), (pos(0, 2), pos(0, 3)), (pos(1, 0), pos(1, 0)),
        ]),
        PositionCase(name: "an insert after the row", update: makeUpdate(inserted: [pos(0, 5)]), mapping: [
            (pos(0, 2), pos(0, 2)), (pos(0, 4), pos(0, 4)), (pos(0, 5), pos(0, 6)),
        ]),
        PositionCase(name: "inserts in new index space", update: makeUpdate(inserted: [pos(0, 1), pos(0, 2)]), mapping: [
            (pos(0, 0), pos(0, 0)), (pos(0, 1), pos(0, 3)), (pos(0, 2), pos(0, 4)),
        ]),
        PositionCase(name: "a delete and an insert in one section", update: makeUpdate(deleted: [pos(0, 0)], inserted: [pos(0, 0)]), mapping: [
            (pos(0, 1), pos(0, 1)), (pos(0, 2), pos(0, 2)),
        ]),
        PositionCase(name: "a delete before and an insert after", update: makeUpdate(deleted: [pos(0, 0)], inserted: [pos(0, 3)]), mapping: [
            (pos(0, 1), pos(0, 0)), (pos(0, 3), pos(0, 2)), (pos(0, 4), pos(0, 4)),
        ]),
        PositionCase(name: "a move up within a section (a tap)", update: makeUpdate(moved: [(pos(0, 4), pos(0, 0))]), mapping: [
            (pos(0, 4), pos(0, 0)), (pos(0, 0), pos(0, 1)), (pos(0, 3), pos(0, 4)), (pos(0, 5), pos(0, 5)), (pos(1, 0), pos(1, 0)),
        ]),
        PositionCase(name: "a move down within a section", update: makeUpdate(moved: [(pos(0, 0), pos(0, 2))]), mapping: [
            (pos(0, 1), pos(0, 0)), (pos(0, 2), pos(0, 1)), (pos(0, 3), pos(0, 3)),
        ]),
        PositionCase(name: "a move across sections", update: makeUpdate(moved: [(pos(0, 1), pos(1, 0))]), mapping: [
            (pos(0, 0), pos(0, 0)), (pos(0, 2), pos(0, 1)), (pos(1, 0), pos(1, 1)), (pos(1, 2), pos(1, 3)),
        ]),
        PositionCase(name: "a reload in place", update: makeUpdate(reloaded: [(pos(0, 1), pos(0, 1))]), mapping: [
            (pos(0, 0), pos(0, 0)), (pos(0, 1), pos(0, 1)), (pos(0, 2), pos(0, 2)),
        ]),
        PositionCase(name: "a section inserted before", update: makeUpdate(insertedSections: [0], inserted: [pos(0, 0)]), mapping: [
            (pos(0, 0), pos(1, 0)), (pos(0, 1), pos(1, 1)), (pos(2, 3), pos(3, 3)),
        ]),
        PositionCase(name: "a section inserted after", update: makeUpdate(insertedSections: [1], inserted: [pos(1, 0)]), mapping: [
            (pos(0, 1), pos(0, 1)), (pos(1, 0), pos(2, 0)),
        ]),
        PositionCase(name: "two sections inserted", update: makeUpdate(insertedSections: [0, 2]), mapping: [
            (pos(0, 0), pos(1, 0)), (pos(1, 0), pos(3, 0)), (pos(2, 0), pos(4, 0)),
        ]),
        PositionCase(name: "a section deleted", update: makeUpdate(deletedSections: [1], deleted: [pos(1, 0), pos(1, 1)]), mapping: [
            (pos(0, 2), pos(0, 2)), (pos(1, 0), nil), (pos(1, 1), nil), (pos(2, 1), pos(1, 1)), (pos(3, 0), pos(2, 0)),
        ]),
        PositionCase(name: "a section deleted and another inserted", update: makeUpdate(deletedSections: [0], insertedSections: [1]), mapping: [
            (pos(0, 0), nil), (pos(1, 2), pos(0, 2)), (pos(2, 0), pos(2, 0)),
        ]),
        PositionCase(name: "a section inserted and rows deleted in a later one", update: makeUpdate(insertedSections: [0], deleted: [pos(1, 0)]), mapping: [
            (pos(1, 1), pos(2, 0)), (pos(0, 1), pos(1, 1)),
        ]),
    ])
    func newPositions(_ test: PositionCase) {
        for (old, new) in test.mapping {
            #expect(test.update.newPosition(of: old) == new, "\(old)")
        }
    }

    @Test("Changed rows are the inserts and the destinations of moves and reloads")
    func changedRows() {
        let update = makeUpdate(deleted: [pos(0, 0)], inserted: [pos(1, 1)], moved: [(pos(0, 3), pos(0, 0))], reloaded: [(pos(2, 0), pos(2, 0))])
        #expect(update.changedRows == [pos(1, 1), pos(0, 0), pos(2, 0)])
    }
}
