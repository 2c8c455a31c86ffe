/// The key help: a framed panel over the screen listing keys and what they do, in two
/// columns, the descriptions wrapped at word boundaries to the frame's width (keys too long
/// for their column on a line of their own), scrolling when the screen is too short to show
/// it all.
///
/// The panel clears the cells beneath it and a one-cell margin around its frame, so nothing
/// of the screen under it runs into its text. Its owner turns keys into `scroll(by:in:)`.
public struct KeyHelpPanel: Sendable {
    /// One line of help: the keys, and what they do.
    public struct Entry: Sendable, Equatable {
        /// The keys, as the user presses them ("PgUp PgDn").
        public var keys: String
        /// What they do, wrapped to the panel's width.
        public var action: String

        /// An entry of the help.
        public init(keys: String, action: String) {
            self.keys = keys
            self.action = action
        }
    }

    /// The title on the frame's top line.
    public var title: String
    /// The lines of help, in order.
    public var entries: [Entry]
    /// The first laid-out line shown; kept within range by `scroll(by:in:)`.
    public private(set) var scrollOffset = 0

    /// The widest a panel grows, in cells, however wide the screen.
    public static let maximumWidth = 90

    /// A panel showing `entries` from the top.
    public init(title: String = "Keys", entries: [Entry]) {
        self.title = title
        self.entries = entries
    }

    /// Where things go in an area: the framed box, the column of the descriptions, and the
    /// lines (keys, or blank on a continuation line; a piece of description; where the
    /// description starts, after the keys, when they are too long for their column).
    struct Layout {
        var box: Rect
        var keysWidth: Int
        var textX: Int
        var textWidth: Int
        var lines: [(keys: String, text: String, after: Int?)]
        /// How many lines fit inside the frame.
        var visibleRows: Int

        var maximumOffset: Int { max(0, lines.count - visibleRows) }
    }

    func layout(in area: Rect) -> Layout {
        let longestKeys = entries.map { DisplayText.width($0.keys) }.max() ?? 0
        let longestAction = entries.map { DisplayText.width($0.action) }.max() ?? 0
        // The frame and a space inside it on each side take 4 cells; the margin 2 more.
        let width = max(0, min(area.width - 2, Self.maximumWidth, longestKeys + 2 + longestAction + 4))
        let inner = max(1, width - 4)
        // The keys' column is as wide as the keys that fit in a quarter of the frame; longer
        // keys take a line of their own, their description under it, so that one long entry
        // does not narrow every description. The descriptions get at least 12 cells.
        let keyWidths = entries.map { DisplayText.width($0.keys) }
        let keysWidth = min(keyWidths.filter { $0 <= max(8, inner / 4) }.max() ?? min(longestKeys, max(8, inner / 4)),
                            max(1, inner - 2 - min(12, longestAction)))
        let textWidth = max(1, inner - keysWidth - 2)
        var lines: [(keys: String, text: String, after: Int?)] = []
        for (entry, keyWidth) in zip(entries, keyWidths) {
            // Keys too long for their column keep a short description beside them, after them,
            // rather than one word alone on the next line.
            if keyWidth > keysWidth, keyWidth + 2 + DisplayText.width(entry.action) <= inner {
                lines.append((entry.keys, entry.action, keyWidth + 2))
                continue
            }
            let pieces = DisplayText.wrap(entry.action, toWidth: textWidth)
            if keyWidth > keysWidth { lines.append((entry.keys, "", nil)) }
            for (index, piece) in pieces.enumerated() { lines.append((index == 0 && keyWidth <= keysWidth ? entry.keys : "", piece, nil)) }
        }
        // Frame, a blank line, the lines, a blank line, frame; at most the area less the margin.
        let height = max(0, min(area.height - 2, lines.count + 4))
        let box = Rect(x: area.x + (area.width - width) / 2, y: area.y + (area.height - height) / 2, width: width, height: height)
        return Layout(box: box, keysWidth: keysWidth, textX: box.x + 2 + keysWidth + 2, textWidth: textWidth,
                      lines: lines, visibleRows: max(0, height - 4))
    }

    /// How many lines a page is in this area.
    public func pageSize(in area: Rect) -> Int {
        max(1, layout(in: area).visibleRows)
    }

    /// Whether the help is longer than the area shows.
    public func scrolls(in area: Rect) -> Bool {
        layout(in: area).maximumOffset > 0
    }

    /// Moves the shown lines by `lines` (negative: up), kept within the help.
    public mutating func scroll(by lines: Int, in area: Rect) {
        scrollOffset = min(max(0, scrollOffset + lines), layout(in: area).maximumOffset)
    }

    /// Draws the panel centred in `area`.
    public func render(into grid: inout Grid, area: Rect, frame: Style, keys keysStyle: Style) {
        let layout = layout(in: area)
        let box = layout.box
        guard box.width >= 8, box.height >= 3 else { return }
        // Clear beneath it, with a margin, so the table's text never touches the frame.
        grid.fill(Rect(x: box.x - 1, y: box.y - 1, width: box.width + 2, height: box.height + 2))
        grid.fill(box, style: frame)
        let right = box.x + box.width - 1, bottom = box.y + box.height - 1
        let rule = String(repeating: "─", count: box.width - 2)
        grid.write("┌" + rule + "┐", x: box.x, y: box.y, style: frame)
        grid.write("└" + rule + "┘", x: box.x, y: bottom, style: frame)
        for y in (box.y + 1)..<bottom {
            grid.write("│", x: box.x, y: y, style: frame)
            grid.write("│", x: right, y: y, style: frame)
        }
        var titleStyle = frame
        titleStyle.bold = true
        grid.write(DisplayText.truncate(" \(title) ", toWidth: box.width - 4), x: box.x + 2, y: box.y, style: titleStyle)
        let offset = min(scrollOffset, layout.maximumOffset)
        for row in 0..<layout.visibleRows where offset + row < layout.lines.count {
            let line = layout.lines[offset + row]
            let y = box.y + 2 + row
            // Keys with a line of their own may take the whole line; a description after them, the rest.
            let keysWidth = line.after ?? (line.text.isEmpty ? box.width - 4 : layout.keysWidth)
            grid.write(DisplayText.truncate(line.keys, toWidth: keysWidth), x: box.x + 2, y: y, style: keysStyle)
            let textX = line.after.map { box.x + 2 + $0 } ?? layout.textX
            grid.write(DisplayText.truncate(line.text, toWidth: box.x + box.width - 2 - textX), x: textX, y: y, style: frame)
        }
        // Where the lines shown are, when not all fit; and how to close.
        var hint = " any key closes "
        if layout.maximumOffset > 0 {
            let last = min(layout.lines.count, offset + layout.visibleRows)
            hint = " \(offset + 1)–\(last) of \(layout.lines.count) · ↑↓ scroll · other keys close "
            if offset > 0 { grid.write("▲", x: right, y: box.y + 2, style: frame) }
            if last < layout.lines.count { grid.write("▼", x: right, y: bottom - 2, style: frame) }
        }
        grid.write(DisplayText.truncate(hint, toWidth: box.width - 4), x: box.x + 2, y: bottom, style: frame)
    }
}
