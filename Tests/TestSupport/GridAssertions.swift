import TerminalUI

/// The lines of a grid as `text` gives them (trailing spaces removed).
public func lines(_ grid: Grid) -> [String] {
    grid.text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
}

/// True when a scalar must never reach the terminal raw: C0/C1 controls, DEL, and format
/// characters such as bidi overrides, which can reorder or hide what the terminal shows.
public func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.properties.generalCategory {
    case .control, .format: return true
    default: return false
    }
}

/// Everything that would make a grid draw wrongly: a line that is not as wide as the grid, a
/// raw control or format character in a cell, a cell that is neither one nor two cells wide,
/// and broken wide glyphs (every two-cell glyph is followed by a continuation cell, and every
/// continuation cell follows a two-cell glyph).
public func drawingProblems(_ grid: Grid) -> [String] {
    var problems: [String] = []
    for y in 0..<grid.height {
        if DisplayText.width(grid.line(y)) != grid.width { problems.append("line \(y) is \(DisplayText.width(grid.line(y))) cells wide") }
        for x in 0..<grid.width {
            let cell = grid[x, y]
            if cell.text.unicodeScalars.contains(where: isUnsafe) { problems.append("raw control or format character at (\(x), \(y))") }
            if cell.isContinuation {
                if x == 0 || grid[x - 1, y].isContinuation || DisplayText.width(grid[x - 1, y].text) != 2 {
                    problems.append("orphan continuation at (\(x), \(y))")
                }
            } else if DisplayText.width(cell.text) == 2 {
                if x + 1 >= grid.width || !grid[x + 1, y].isContinuation {
                    problems.append("wide glyph without continuation at (\(x), \(y))")
                }
            } else if DisplayText.width(cell.text) != 1 {
                problems.append("cell of width \(DisplayText.width(cell.text)) at (\(x), \(y))")
            }
        }
    }
    return problems
}
