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

/// What the table shows where: the mouse's hits and the drawing, in the area given to
/// `layout(in:)`. Neither changes the table.
extension TableView {
    // MARK: - Hit testing

    /// What `draw` shows at a cell; nil outside the table or on an empty line.
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

    // MARK: - Drawing

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
        let title = DisplayText.truncate(cell.title, toWidth: max(0, titleRoom))
        let titleEnd = grid.write(title, x: x, y: y, style: style)
        if let emphasis = cell.emphasis {
            drawEmphasis(emphasis, of: cell.title, into: &grid, x: x, y: y, until: titleEnd - (title.count < DisplayText.glyphs(cell.title).count ? 1 : 0), style: style)
        }
        grid.write(detail, x: right - detailWidth, y: y, style: detailStyle)
    }

    /// Draws again, emphasised, the characters `range` of a title written at `x`, up to
    /// `end` (where the title was cut, its ellipsis stays as it is).
    private func drawEmphasis(_ range: Range<Int>, of title: String, into grid: inout Grid, x: Int, y: Int, until end: Int, style: Style) {
        let characters = Array(title)
        guard range.lowerBound >= 0, range.upperBound <= characters.count, !range.isEmpty else { return }
        let start = x + DisplayText.width(String(characters[..<range.lowerBound]))
        guard start < end else { return }
        var emphasised = style
        emphasised.underline = true
        emphasised.bold = true
        grid.write(DisplayText.prefix(String(characters[range]), width: end - start), x: start, y: y, style: emphasised)
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
