/// A scrolling, sectioned table with a cursor on one row: the state of the view and every
/// change to it. Extensions answer the rest without changing it: which row is on which line
/// (`line(of:)`), and what shows where on screen (`hit(x:y:)`, `draw(into:theme:now:cell:)`).
///
/// The table holds only section titles and counts; cells come from the owner when it draws,
/// for the visible rows only. Batches move the cursor with its row and flash the rows that changed.
public struct TableView: Sendable {
    /// How long a changed row stays highlighted, in seconds.
    public static let flashDuration = 0.5

    public private(set) var sections: [TableSection] = []
    /// The row under the cursor, if the table has rows.
    public private(set) var cursor: TablePosition?
    /// The first line shown (lines count section headers and rows).
    public private(set) var topLine = 0
    /// The number of lines the table area shows; set by `layout(in:)`, used for paging.
    public private(set) var visibleLines = 20
    /// Rows highlighted until a moment (seconds on the owner's clock).
    public private(set) var flashes: [TablePosition: Double] = [:]
    /// The titles of the section index shown at the right edge, like UITableView's; empty for none.
    /// The owner maps a title to a section (several sections may share one).
    public var sectionIndexTitles: [String] = []
    /// The area given to `layout(in:)`, where the table draws and the mouse hits it.
    public private(set) var area: Rect?

    /// The section index shows only when the rows keep at least this many cells beside it.
    public static let sectionIndexMinimumRowWidth = 40
    /// The cells of every index title (two letters, or one wide character): the index has one
    /// width whatever its titles hold, so the rows beside it keep theirs.
    public static let sectionIndexTitleWidth = 2

    public init() {}

    public var rowCount: Int { sections.reduce(0) { $0 + $1.rowCount } }

    /// Replaces every section (a full reload), keeping the cursor at the same place if it still exists.
    public mutating func reload(_ sections: [TableSection]) {
        self.sections = sections
        flashes.removeAll()
        cursor = clamped(cursor ?? TablePosition(section: 0, row: 0))
        scrollToCursor()
    }

    /// Applies a batch: the new sections, and the changes that led to them.
    /// The cursor stays on its row; changed rows flash until `now + flashDuration`.
    public mutating func apply(_ update: TableUpdate, sections newSections: [TableSection], now: Double) {
        let oldCursorLine = cursor.map(line(of:))
        var moved = flashes.compactMap { old, until in update.newPosition(of: old).map { ($0, until) } }
        moved += update.changedRows.map { ($0, now + Self.flashDuration) }
        flashes = Dictionary(moved, uniquingKeysWith: max)
        let newCursor = cursor.flatMap(update.newPosition(of:))
        sections = newSections
        if let newCursor {
            cursor = clamped(newCursor)
        } else if let oldCursorLine {
            // The cursor's row is gone: stay at the same height, on the nearest row.
            cursor = position(nearLine: oldCursorLine)
        } else {
            cursor = clamped(TablePosition(section: 0, row: 0))
        }
        scrollToCursor()
    }

    /// Forgets flashes that ended before `now`. Returns whether any remain.
    @discardableResult
    public mutating func expireFlashes(now: Double) -> Bool {
        flashes = flashes.filter { $0.value > now }
        return !flashes.isEmpty
    }

    /// The moment the next flash ends, if any.
    public var nextFlashExpiry: Double? { flashes.values.min() }

    // MARK: - Cursor

    /// Moves the cursor by rows (negative: up), skipping headers, stopping at the ends.
    public mutating func moveCursor(by delta: Int) {
        guard let cursor else { return }
        let target = max(0, min(rowCount - 1, flatIndex(of: cursor) + delta))
        self.cursor = position(atFlatIndex: target)
        scrollToCursor()
    }

    /// Moves the cursor by a page.
    public mutating func page(by pages: Int) {
        moveCursor(by: pages * max(1, visibleLines - 2))
    }

    /// Puts the cursor on the first or last row.
    public mutating func moveCursorToStart() { moveCursor(by: -rowCount) }
    public mutating func moveCursorToEnd() { moveCursor(by: rowCount) }

    /// Tab: puts the cursor on the first row of the next section (offset 1), or, with
    /// offset -1 (Shift-Tab), on the first row of its section, or of the previous one when it
    /// is there already. Stops at the first and last sections.
    public mutating func moveCursorToSection(offset: Int) {
        guard let cursor else { return }
        var section = cursor.section
        if offset < 0, cursor.row > 0 {
            // Back to the top of the cursor's own section first.
        } else {
            let step = offset < 0 ? -1 : 1
            var next = section + step
            while sections.indices.contains(next), sections[next].rowCount == 0 { next += step }
            guard sections.indices.contains(next) else { return }
            section = next
        }
        self.cursor = TablePosition(section: section, row: 0)
        scrollToCursor()
    }

    /// Puts the cursor on a row.
    public mutating func select(_ position: TablePosition) {
        cursor = clamped(position)
        scrollToCursor()
    }

    /// Puts the cursor on the first row of a section and scrolls its header to the top line
    /// (what a tap on the section index does).
    public mutating func showSection(_ section: Int) {
        guard sections.indices.contains(section) else { return }
        cursor = clamped(TablePosition(section: section, row: 0))
        topLine = line(ofSection: section)
        scrollToCursor()
    }

    /// Scrolls by lines (negative: up), as a mouse wheel does, keeping the cursor on a row
    /// that shows: it moves along only when it would leave the screen.
    public mutating func scroll(by delta: Int) {
        topLine = max(0, min(topLine + delta, lineCount - visibleLines))
        guard let cursor else { return }
        let cursorLine = line(of: cursor)
        // The top line shows a header (the sticky one when a row is there), so rows start below it.
        if cursorLine <= topLine, let first = position(fromLine: topLine + 1) {
            self.cursor = first
        } else if cursorLine >= topLine + visibleLines {
            self.cursor = position(nearLine: topLine + visibleLines - 1)
        }
        scrollToCursor()
    }

    // MARK: - Keeping the cursor on a row and in view

    /// The nearest row to `wanted` that exists; nil when the table has no rows.
    private func clamped(_ wanted: TablePosition) -> TablePosition? {
        guard rowCount > 0 else { return nil }
        if wanted.section >= sections.count { return position(atFlatIndex: rowCount - 1) }
        if sections[wanted.section].rowCount == 0 { return position(nearLine: line(ofSection: wanted.section)) }
        return TablePosition(section: wanted.section, row: min(wanted.row, sections[wanted.section].rowCount - 1))
    }

    /// Scrolls so the cursor's row is visible below the sticky header.
    private mutating func scrollToCursor() {
        guard let cursor else { topLine = 0; return }
        let cursorLine = line(of: cursor)
        if cursorLine - 1 < topLine { topLine = max(0, cursorLine - 1) }
        if cursorLine >= topLine + visibleLines { topLine = cursorLine - visibleLines + 1 }
        topLine = max(0, min(topLine, max(0, lineCount - visibleLines)))
    }

    // MARK: - Place on screen

    /// Places the table in an area of the screen: the mouse hits and the scrolling follow it.
    public mutating func layout(in area: Rect) {
        self.area = area
        if visibleLines != area.height {
            visibleLines = area.height
            scrollToCursor()
        }
    }
}
