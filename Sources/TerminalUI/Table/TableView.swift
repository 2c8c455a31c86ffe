/// A row's place in a sectioned table.
public struct TablePosition: Hashable, Comparable, Sendable {
    public var section: Int
    public var row: Int

    public init(section: Int, row: Int) {
        self.section = section
        self.row = row
    }

    public static func < (a: TablePosition, b: TablePosition) -> Bool {
        (a.section, a.row) < (b.section, b.row)
    }
}

/// One section as the table shows it.
public struct TableSection: Hashable, Sendable {
    public var title: String
    public var rowCount: Int

    public init(title: String, rowCount: Int) {
        self.title = title
        self.rowCount = rowCount
    }
}

/// What one row shows: a badge, a title, and a detail aligned right (like UITableViewCell's value1 style).
public struct TableCell: Hashable, Sendable {
    public var badge: [Span]
    public var title: String
    public var detail: String

    public init(badge: [Span] = [], title: String, detail: String = "") {
        self.badge = badge
        self.title = title
        self.detail = detail
    }
}

/// A batch of changes to a table, with Core Data's index spaces: deletes and move or reload
/// sources refer to the table before the batch; inserts and destinations to the table after it.
public struct TableUpdate: Sendable {
    public var deletedSections: Set<Int> = []
    public var insertedSections: Set<Int> = []
    public var deletedRows: [TablePosition] = []
    public var insertedRows: [TablePosition] = []
    /// Moved rows, from old to new place.
    public var movedRows: [(from: TablePosition, to: TablePosition)] = []
    /// Rows whose content changed in place (old and new place).
    public var reloadedRows: [(from: TablePosition, to: TablePosition)] = []

    public init() {}

    /// Where a row that was at `old` before the batch is after it; nil when it was deleted.
    public func newPosition(of old: TablePosition) -> TablePosition? {
        if deletedSections.contains(old.section) || deletedRows.contains(old) { return nil }
        if let move = movedRows.first(where: { $0.from == old }) ?? reloadedRows.first(where: { $0.from == old }) {
            return move.to
        }
        let removed = deletedRows + movedRows.map(\.from) + reloadedRows.map(\.from)
        var row = old.row - removed.filter { $0.section == old.section && $0.row < old.row }.count
        var section = old.section - deletedSections.filter { $0 < old.section }.count
        for inserted in insertedSections.sorted() where inserted <= section { section += 1 }
        let added = (insertedRows + movedRows.map(\.to) + reloadedRows.map(\.to)).filter { $0.section == section }.map(\.row).sorted()
        for inserted in added where inserted <= row { row += 1 }
        return TablePosition(section: section, row: row)
    }

    /// The rows that changed, at their new places.
    public var changedRows: [TablePosition] {
        insertedRows + movedRows.map(\.to) + reloadedRows.map(\.to)
    }
}

/// The look of a table.
public struct TableTheme: Sendable {
    public var header: Style
    public var row: Style
    public var detail: Style
    public var cursor: Style
    public var flash: Style
    /// The titles of the section index.
    public var index: Style

    public init(header: Style, row: Style, detail: Style, cursor: Style, flash: Style, index: Style = Style(bold: true)) {
        self.header = header
        self.row = row
        self.detail = detail
        self.cursor = cursor
        self.flash = flash
        self.index = index
    }
}

/// What a cell of the table shows, for the mouse.
public enum TableHit: Hashable, Sendable {
    case row(TablePosition)
    /// A section's header, including the sticky header on the top line.
    case header(section: Int)
    /// A title of the section index, by its place in `sectionIndexTitles`.
    case indexTitle(Int)
}

/// A scrolling, sectioned table with a cursor on one row: the state of the view, and how it renders.
///
/// The table holds only section titles and counts; cells come from the owner at render time,
/// for the visible rows only. Batches move the cursor with its row and flash the rows that changed.
public struct TableView: Sendable {
    /// How long a changed row stays highlighted, in seconds.
    public static let flashDuration = 0.5

    public private(set) var sections: [TableSection] = []
    /// The row under the cursor, if the table has rows.
    public private(set) var cursor: TablePosition?
    /// The first line shown (lines count section headers and rows).
    public private(set) var topLine = 0
    /// The number of lines the table area shows; set by `render`, used for paging.
    public private(set) var visibleLines = 20
    /// Rows highlighted until a moment (seconds on the owner's clock).
    public private(set) var flashes: [TablePosition: Double] = [:]
    /// The titles of the section index shown at the right edge, like UITableView's; empty for none.
    /// The owner maps a title to a section (several sections may share one).
    public var sectionIndexTitles: [String] = []
    /// The area the table was last rendered into, for hit testing.
    public private(set) var area: Rect?

    /// The section index shows only when the rows keep at least this many cells beside it.
    public static let sectionIndexMinimumRowWidth = 40
    /// The cells of every index title (two letters, or one wide character): the index has one
    /// width whatever its titles hold, so the rows beside it keep theirs.
    public static let sectionIndexTitleWidth = 2

    public init() {}

    public var rowCount: Int { sections.reduce(0) { $0 + $1.rowCount } }
    private var lineCount: Int { sections.reduce(0) { $0 + 1 + $1.rowCount } }

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

    // MARK: - Geometry

    private func clamped(_ wanted: TablePosition) -> TablePosition? {
        guard rowCount > 0 else { return nil }
        if wanted.section >= sections.count { return position(atFlatIndex: rowCount - 1) }
        if sections[wanted.section].rowCount == 0 { return position(nearLine: line(ofSection: wanted.section)) }
        return TablePosition(section: wanted.section, row: min(wanted.row, sections[wanted.section].rowCount - 1))
    }

    private func line(ofSection section: Int) -> Int {
        sections[..<section].reduce(0) { $0 + 1 + $1.rowCount }
    }

    /// The line a row is drawn on (its section's header comes first).
    public func line(of position: TablePosition) -> Int {
        line(ofSection: position.section) + 1 + position.row
    }

    private func flatIndex(of position: TablePosition) -> Int {
        sections[..<position.section].reduce(0) { $0 + $1.rowCount } + position.row
    }

    private func position(atFlatIndex index: Int) -> TablePosition? {
        var remaining = index
        for (s, section) in sections.enumerated() {
            if remaining < section.rowCount { return TablePosition(section: s, row: remaining) }
            remaining -= section.rowCount
        }
        return nil
    }

    /// What a line shows: a section header (row nil) or a row.
    private func item(atLine line: Int) -> (section: Int, row: Int?)? {
        var remaining = line
        for (s, section) in sections.enumerated() {
            if remaining == 0 { return (s, nil) }
            if remaining <= section.rowCount { return (s, remaining - 1) }
            remaining -= 1 + section.rowCount
        }
        return nil
    }

    /// The first row on or after a line.
    private func position(fromLine line: Int) -> TablePosition? {
        for candidate in max(0, line)..<max(0, lineCount) {
            if let item = item(atLine: candidate), let row = item.row { return TablePosition(section: item.section, row: row) }
        }
        return nil
    }

    private func position(nearLine line: Int) -> TablePosition? {
        guard rowCount > 0 else { return nil }
        for candidate in stride(from: max(0, min(line, lineCount - 1)), through: 0, by: -1) {
            if let item = item(atLine: candidate), let row = item.row { return TablePosition(section: item.section, row: row) }
        }
        return position(atFlatIndex: 0)
    }

    /// Scrolls so the cursor's row is visible below the sticky header.
    private mutating func scrollToCursor() {
        guard let cursor else { topLine = 0; return }
        let cursorLine = line(of: cursor)
        if cursorLine - 1 < topLine { topLine = max(0, cursorLine - 1) }
        if cursorLine >= topLine + visibleLines { topLine = cursorLine - visibleLines + 1 }
        topLine = max(0, min(topLine, max(0, lineCount - visibleLines)))
    }

    // MARK: - Hit testing

    /// What the last render drew at a cell; nil outside the table or on an empty line.
    public func hit(x: Int, y: Int) -> TableHit? {
        guard let area, x >= area.x, x < area.x + area.width, y >= area.y, y < area.y + area.height else { return nil }
        if let index = sectionIndexColumn(in: area), x >= index.x {
            let title = y - index.y
            return sectionIndexTitles.indices.contains(title) ? .indexTitle(title) : nil
        }
        let offset = y - area.y
        guard let item = item(atLine: topLine + offset) else { return nil }
        guard let row = item.row, !(offset == 0 && showsStickyHeader(over: item.section, row: row)) else {
            return .header(section: item.section)
        }
        return .row(TablePosition(section: item.section, row: row))
    }

    /// Whether the top line, on this row, shows its section's header instead (the sticky
    /// header): it does unless the row is its section's last, where the next section's
    /// header, on the line below, has pushed it off (as a scrolled UITableView's does). A
    /// header over that row would name a section with no row on screen.
    private func showsStickyHeader(over section: Int, row: Int) -> Bool {
        row < sections[section].rowCount - 1
    }

    /// Where the section index goes in an area: its right edge, one title per line from the
    /// top, with a blank cell on either side. Nil (hidden) when there are no titles, more
    /// titles than lines, or too little room left for the rows.
    private func sectionIndexColumn(in area: Rect) -> Rect? {
        guard !sectionIndexTitles.isEmpty, sectionIndexTitles.count <= area.height else { return nil }
        let width = Self.sectionIndexTitleWidth + 2
        guard sectionIndexTitles.contains(where: { DisplayText.width($0) > 0 }), area.width - width >= Self.sectionIndexMinimumRowWidth else { return nil }
        return Rect(x: area.x + area.width - width, y: area.y, width: width, height: area.height)
    }

    // MARK: - Rendering

    /// Draws the visible part of the table into `area`, asking `cell` for each visible row,
    /// and the section index at its right edge when there is room.
    /// The header of the section at the top stays on the first line while scrolling.
    public mutating func render(into grid: inout Grid, area fullArea: Rect, theme: TableTheme, now: Double, cell: (TablePosition) -> TableCell) {
        layout(in: fullArea)
        draw(into: &grid, theme: theme, now: now, cell: cell)
    }

    /// Places the table in an area of the screen: the mouse hits and the scrolling follow it.
    public mutating func layout(in area: Rect) {
        self.area = area
        if visibleLines != area.height {
            visibleLines = area.height
            scrollToCursor()
        }
    }

    /// Draws the visible rows into the area given to `layout(in:)`, without changing the table.
    /// The top line shows the header of the section scrolled into, unless the next section's
    /// header is right below it.
    public func draw(into grid: inout Grid, theme: TableTheme, now: Double, cell: (TablePosition) -> TableCell) {
        guard let fullArea = area else { return }
        grid.fill(fullArea, style: theme.row)
        var area = fullArea
        if let index = sectionIndexColumn(in: fullArea) {
            area.width -= index.width
            for (line, title) in sectionIndexTitles.enumerated() {
                grid.write(DisplayText.prefix(title, width: Self.sectionIndexTitleWidth), x: index.x + 1, y: index.y + line, style: theme.index)
            }
        }
        for offset in 0..<area.height {
            guard let item = item(atLine: topLine + offset) else { break }
            let y = area.y + offset
            // Sticky header: the top line names the section scrolled into.
            if offset == 0, let row = item.row, showsStickyHeader(over: item.section, row: row) {
                drawHeader(sections[item.section].title, into: &grid, area: area, y: y, theme: theme)
                continue
            }
            guard let row = item.row else {
                drawHeader(sections[item.section].title, into: &grid, area: area, y: y, theme: theme)
                continue
            }
            let position = TablePosition(section: item.section, row: row)
            var style = theme.row
            if position == cursor { style = theme.cursor } else if let until = flashes[position], until > now { style = theme.flash }
            drawRow(cell(position), into: &grid, area: area, y: y, style: style, detailStyle: position == cursor || flashes[position].map { $0 > now } == true ? style : theme.detail, selected: position == cursor)
        }
    }

    private func drawHeader(_ title: String, into grid: inout Grid, area: Rect, y: Int, theme: TableTheme) {
        grid.fill(Rect(x: area.x, y: y, width: area.width, height: 1), style: theme.header)
        grid.write(DisplayText.truncate(title, toWidth: area.width - 1), x: area.x + 1, y: y, style: theme.header)
    }

    private func drawRow(_ cell: TableCell, into grid: inout Grid, area: Rect, y: Int, style: Style, detailStyle: Style, selected: Bool) {
        grid.fill(Rect(x: area.x, y: y, width: area.width, height: 1), style: style)
        let right = area.x + area.width - 1
        var x = grid.write(selected ? "▶" : " ", x: area.x, y: y, style: style) + 1
        for span in cell.badge {
            x = grid.write(span.glyphs, x: x, y: y, style: selected ? span.style.merged(into: style) : span.style, limit: right - x)
        }
        if !cell.badge.isEmpty { x += 1 }
        let detail = DisplayText.truncate(cell.detail, toWidth: max(0, right - x))
        let detailWidth = detail.reduce(0) { $0 + $1.width }
        let titleRoom = right - x - (detailWidth > 0 ? detailWidth + 2 : 0)
        grid.write(DisplayText.truncate(cell.title, toWidth: max(0, titleRoom)), x: x, y: y, style: style)
        grid.write(detail, x: right - detailWidth, y: y, style: detailStyle)
    }
}

extension Style {
    /// This style on top of a row's style: a style with colours stays as it is (its colours
    /// and weight were chosen to read on each other, and bold can change a colour); one
    /// without takes the row's bold and reverse video.
    func merged(into row: Style) -> Style {
        guard foreground == nil, background == nil else { return self }
        var style = self
        style.bold = style.bold || row.bold
        style.reverse = style.reverse || row.reverse
        return style
    }
}
