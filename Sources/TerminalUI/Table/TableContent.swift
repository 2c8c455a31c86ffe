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
    /// The title's characters drawn emphasised (underlined and bold), such as what a search
    /// found in it; nil for none.
    public var emphasis: Range<Int>?

    public init(badge: [Span] = [], title: String, detail: String = "", emphasis: Range<Int>? = nil) {
        self.badge = badge
        self.title = title
        self.detail = detail
        self.emphasis = emphasis
    }
}
