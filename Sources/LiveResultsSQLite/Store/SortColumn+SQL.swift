import GRDB
import LiveResults

extension SortColumn {
    /// This term as a controller's queries order by it: the column, in SQLite's BINARY
    /// collation for text, and the direction.
    public var orderingTerm: String {
        column.quotedDatabaseIdentifier + " COLLATE BINARY" + (ascending ? " ASC" : " DESC")
    }

    /// The terms of an ORDER BY (without the keywords) that sorts rows exactly as a controller
    /// with these sort descriptors does: each column, then the row id, which breaks ties.
    public static func orderingSQL(_ columns: [SortColumn]) -> String {
        (columns.map(\.orderingTerm) + ["rowid ASC"]).joined(separator: ", ")
    }

    /// The leading columns of an index that SQLite reads in this order without sorting (the
    /// table's columns keep SQLite's default BINARY collation): each column, DESC where it
    /// descends. Add the row id's column after them for the tie-breaker.
    public static func indexColumns(_ columns: [SortColumn]) -> [String] {
        columns.map { $0.column.quotedDatabaseIdentifier + ($0.ascending ? "" : " DESC") }
    }

    /// Compares two rows' values the way SQLite's ORDER BY with these terms does (BINARY
    /// collation: text by UTF-8 bytes, never Swift's `<`, which takes canonically equivalent
    /// strings as equal). A column a row lacks is NULL. Returns a negative number, zero or a
    /// positive number as `a` sorts before, with or after `b`; ties are left to the caller.
    public static func compare(_ a: [String: DatabaseValue], _ b: [String: DatabaseValue], by columns: [SortColumn]) -> Int {
        compare(a, b, by: columns) { row, column in row[column] ?? .null }
    }

    /// Compares two rows as `compare(_:_:by:)` does, reading only the columns it needs through
    /// `value` (a row's value of a column), so that a record need not be encoded whole.
    public static func compare<Row>(_ a: Row, _ b: Row, by columns: [SortColumn], value: (Row, String) -> DatabaseValue) -> Int {
        for term in columns {
            let order = SQLiteOrdering.compare(ColumnValue(value(a, term.column)), ColumnValue(value(b, term.column)))
            if order != 0 { return term.ascending ? order : -order }
        }
        return 0
    }
}
