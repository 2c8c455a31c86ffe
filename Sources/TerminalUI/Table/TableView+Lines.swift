/// Where things are in the table's lines: each section is a header line followed by its
/// rows, one line each; the line of a row, the row on a line and the flat index of a row
/// (headers not counted).
extension TableView {
    /// Every line: each section's header and its rows.
    var lineCount: Int { sections.reduce(0) { $0 + 1 + $1.rowCount } }

    /// The line of a section's header.
    func line(ofSection section: Int) -> Int {
        sections[..<section].reduce(0) { $0 + 1 + $1.rowCount }
    }

    /// The line a row is drawn on (its section's header comes first).
    public func line(of position: TablePosition) -> Int {
        line(ofSection: position.section) + 1 + position.row
    }

    /// A row's place when the rows of every section are counted in one run.
    func flatIndex(of position: TablePosition) -> Int {
        sections[..<position.section].reduce(0) { $0 + $1.rowCount } + position.row
    }

    /// The row at a place in one run of every section's rows; nil past the last.
    func position(atFlatIndex index: Int) -> TablePosition? {
        var remaining = index
        for (s, section) in sections.enumerated() {
            if remaining < section.rowCount { return TablePosition(section: s, row: remaining) }
            remaining -= section.rowCount
        }
        return nil
    }

    /// What a line shows: a section header (row nil) or a row.
    func item(atLine line: Int) -> (section: Int, row: Int?)? {
        var remaining = line
        for (s, section) in sections.enumerated() {
            if remaining == 0 { return (s, nil) }
            if remaining <= section.rowCount { return (s, remaining - 1) }
            remaining -= 1 + section.rowCount
        }
        return nil
    }

    /// The first row on or after a line.
    func position(fromLine line: Int) -> TablePosition? {
        for candidate in max(0, line)..<max(0, lineCount) {
            if let item = item(atLine: candidate), let row = item.row { return TablePosition(section: item.section, row: row) }
        }
        return nil
    }

    /// The last row on or before a line (the first row when there is none before it); nil
    /// when the table has no rows.
    func position(nearLine line: Int) -> TablePosition? {
        guard rowCount > 0 else { return nil }
        for candidate in stride(from: max(0, min(line, lineCount - 1)), through: 0, by: -1) {
            if let item = item(atLine: candidate), let row = item.row { return TablePosition(section: item.section, row: row) }
        }
        return position(atFlatIndex: 0)
    }
}
