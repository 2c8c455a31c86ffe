/// A rectangle of terminal cells.
public struct Rect: Hashable, Sendable {
    public var x: Int, y: Int, width: Int, height: Int

    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = max(0, width)
        self.height = max(0, height)
    }
}

/// An in-memory screen: what the terminal should show, cell by cell.
///
/// Views render into a grid; the terminal session writes only the cells that differ from
/// the last grid it showed; tests read the grid back as text.
public struct Grid: Equatable, Sendable {
    /// One cell. A wide glyph occupies its cell and marks the next one as its continuation.
    public struct Cell: Hashable, Sendable {
        public var text: String
        public var style: Style
        /// True for the second cell of a wide glyph: nothing of its own is drawn there.
        public var isContinuation: Bool

        public static let blank = Cell(text: " ", style: .plain, isContinuation: false)
    }

    public let width: Int
    public let height: Int
    private(set) var cells: [Cell]

    public init(width: Int, height: Int) {
        self.width = max(0, width)
        self.height = max(0, height)
        cells = Array(repeating: .blank, count: self.width * self.height)
    }

    public subscript(x: Int, y: Int) -> Cell {
        cells[y * width + x]
    }

    /// Fills a rectangle with spaces in a style; a wide glyph cut by its edge is blanked whole.
    public mutating func fill(_ rect: Rect, style: Style = .plain) {
        let blank = Cell(text: " ", style: style, isContinuation: false)
        for y in clampedRange(rect.y, rect.height, height) {
            for x in clampedRange(rect.x, rect.width, width) { put(blank, x: x, y: y) }
        }
    }

    /// Writes text from (x, y), clipped at `limit` cells (default: the right edge).
    /// Returns the column after the last cell written.
    @discardableResult
    public mutating func write(_ text: String, x: Int, y: Int, style: Style = .plain, limit: Int? = nil) -> Int {
        write(DisplayText.glyphs(text), x: x, y: y, style: style, limit: limit)
    }

    /// Writes measured glyphs from (x, y), clipped at `limit` cells. Returns the next column.
    @discardableResult
    public mutating func write(_ glyphs: [DisplayText.Glyph], x: Int, y: Int, style: Style = .plain, limit: Int? = nil) -> Int {
        guard y >= 0, y < height else { return x }
        let end = min(width, limit.map { x + max(0, $0) } ?? width)
        var column = x
        for glyph in glyphs {
            guard column + glyph.width <= end else { break }
            if column >= 0 {
                put(Cell(text: glyph.text, style: style, isContinuation: false), x: column, y: y)
                if glyph.width == 2 { put(Cell(text: "", style: style, isContinuation: true), x: column + 1, y: y) }
            }
            column += glyph.width
        }
        return column
    }

    /// Sets one cell, blanking the half of any wide glyph it overwrites.
    private mutating func put(_ cell: Cell, x: Int, y: Int) {
        let index = y * width + x
        if cells[index].isContinuation, x > 0, !cell.isContinuation {
            cells[index - 1] = Cell(text: " ", style: cells[index - 1].style, isContinuation: false)
        }
        if x + 1 < width, cells[index + 1].isContinuation {
            cells[index + 1] = Cell(text: " ", style: cells[index + 1].style, isContinuation: false)
        }
        cells[index] = cell
    }

    /// Applies a style to every cell of a rectangle, keeping the text.
    public mutating func restyle(_ rect: Rect, _ change: (inout Style) -> Void) {
        for y in clampedRange(rect.y, rect.height, height) {
            for x in clampedRange(rect.x, rect.width, width) { change(&cells[y * width + x].style) }
        }
    }

    /// The part of start..<start+length that lies inside 0..<limit (possibly empty).
    private func clampedRange(_ start: Int, _ length: Int, _ limit: Int) -> Range<Int> {
        let lower = max(0, start)
        return lower..<max(lower, min(limit, start + length))
    }

    /// The text of one line, as a terminal would show it.
    public func line(_ y: Int) -> String {
        (0..<width).map { self[$0, y].text }.joined()
    }

    /// All lines, with trailing spaces removed; for tests and plain output.
    public var text: String {
        (0..<height).map { line($0).replacingTrailingSpaces() }.joined(separator: "\n")
    }
}

extension String {
    func replacingTrailingSpaces() -> String {
        var result = self
        while result.last == " " { result.removeLast() }
        return result
    }
}
