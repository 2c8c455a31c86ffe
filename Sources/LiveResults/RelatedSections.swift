/// Sections through a to-one relationship: each row's section is the row of another table
/// that its foreign key names (a team's zone), titled and ordered by that row's columns.
///
/// ```swift
/// let controller = ResultsController(database: dbQueue, fetchRequest: ResultsRequest<Team>(
///     sortDescriptors: [SortColumn("wins", ascending: false), SortColumn("nameKey")]),
///     sections: RelatedSections(table: "zone", foreignKey: "zoneID", title: "name", order: [SortColumn("position")]))
/// ```
///
/// A section's identity is the related row's key, so renaming it is a section update and
/// reordering it a section move, with its rows travelling along unreported. The request's
/// sort descriptors order the rows inside each section. Rows whose foreign key is NULL or
/// names no related row are not in the result (an inner join). Related columns may title and
/// order sections only (not order rows inside a section, nor filter): one level, to one
/// related row of another table, by one key column.
///
/// Changes to the related table are followed like the table's own: a related row renamed or
/// reordered costs no row read, whatever its number of rows. On SQLite, install the
/// `ChangeLog` on the related table too (`ChangeLog.install(on: "zone", in: db)`) to follow
/// other processes' changes to it; without it, only this connection's are seen, and a section
/// cache is never used. The controller keeps every related row's title and order in memory.
public struct RelatedSections: Hashable, Sendable {
    /// The related table: `"zone"`.
    public var table: String
    /// The column of the request's table that holds the related row's key: `"zoneID"`.
    public var foreignKey: String
    /// The related table's key column: `"id"`.
    public var key: String
    /// The related column whose text titles a section: `"name"`.
    public var title: String
    /// The related columns that order the sections; the key breaks ties.
    public var order: [SortColumn]

    /// Sections titled by `title` and ordered by `order` (then `key`) of the rows of `table`
    /// whose `key` equals a row's `foreignKey`.
    public init(table: String, foreignKey: String, key: String = "id", title: String, order: [SortColumn] = []) {
        self.table = table
        self.foreignKey = foreignKey
        self.key = key
        self.title = title
        self.order = order
    }
}

/// What a section through a relationship shows of its related row: the title and the values
/// of `RelatedSections.order`, as a store read them.
package struct SectionRow: Equatable, Sendable {
    /// The title column's text ("" for NULL; other values as `SectionedIndex.sectionName` spells them).
    package var title: String
    /// The values of the order columns, in `RelatedSections.order`'s order.
    package var order: [ColumnValue]

    package init(title: String, order: [ColumnValue]) {
        self.title = title
        self.order = order
    }

    /// Equal as SQLite orders: text byte for byte, numbers by value.
    package static func == (a: SectionRow, b: SectionRow) -> Bool {
        a.title.utf8.elementsEqual(b.title.utf8) && a.order.count == b.order.count
            && zip(a.order, b.order).allSatisfy { SQLiteOrdering.compare($0, $1) == 0 }
    }
}
