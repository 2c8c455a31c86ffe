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
