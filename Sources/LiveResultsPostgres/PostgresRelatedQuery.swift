import Foundation
import LiveResults
import PostgresNIO

/// The part of a key query that sections through a related table (`RelatedSections`): the
/// related row each row's foreign key names gives the row's section, its title and its order.
///
/// The join is an inner join by the related table's integer key, so a row whose foreign key
/// is NULL or names no related row is not in the result. A fetch reads every related row first
/// (the index holds them all, so a row may enter any section); a log read or a write's answer
/// reads the related row of each row it reads, to know whether the row is in the join.
package struct PostgresRelatedQuery: Sendable {
    package let sections: RelatedSections
    /// Which of the related table's order columns are text (ordered `COLLATE "C"`).
    let textColumns: Set<String>

    /// The alias the main table's rows have in the joined fetch.
    static let mainAlias = "liveresults_row"
    /// The alias the related table has in every joined read.
    static let relatedAlias = "liveresults_related"

    /// The related columns every read selects, of `source`, in order: the key, the title, the
    /// order columns.
    func selection(from source: String) -> String {
        ([sections.key, sections.title] + sections.order.map(\.column))
            .map { source + "." + PostgresSQL.identifier($0) }.joined(separator: ", ")
    }

    /// How many cells `selection(from:)` reads.
    var cellCount: Int { 2 + sections.order.count }

    /// The related table, quoted.
    var table: String { PostgresSQL.identifier(sections.table) }

    /// The names the fetch gives the related rows' key and order columns: names of its own, so
    /// that the predicate's bare column names, inside the lateral subquery, are never taken
    /// for the related table's.
    static let keyAlias = "liveresults_key"
    static func orderAlias(_ index: Int) -> String { "liveresults_order\(index)" }

    /// `FROM … ORDER BY …` of the fetch, section by section: the related rows in the sections'
    /// order (the order columns, text `COLLATE "C"`, then the key), and for each, laterally,
    /// the main table's rows that name it and match `condition`, in `rowOrdering`. Each
    /// subquery's `OFFSET 0` keeps it a subquery of its own: the planner then runs a nested
    /// loop over the related rows in order, reading each one's rows in order, from an index
    /// on the foreign key then the sort terms (without one it sorts each section's rows). The
    /// ORDER BY, the sections' order, is the related subquery's own: no sort. One join ordered
    /// by all the terms would sort every row (no index holds the related rows' order).
    func orderedSource(mainTable: String, mainSelection: String, condition: String, rowOrdering: [String]) -> String {
        let columns = [PostgresSQL.identifier(sections.key) + " AS " + Self.keyAlias] + sections.order.enumerated().map { index, column in
            PostgresSQL.identifier(column.column) + (textColumns.contains(column.column) ? " COLLATE \"C\"" : "") + " AS " + Self.orderAlias(index)
        }
        // The columns are collated already: their terms need no COLLATE.
        let order = sections.order.enumerated().map { index, column in
            PostgresKeyQuery.orderingTerm(SortColumn(Self.orderAlias(index), ascending: column.ascending), isText: false)
        } + [Self.keyAlias + " ASC"]
        let related = "(SELECT " + columns.joined(separator: ", ") + " FROM " + table + " ORDER BY " + order.joined(separator: ", ") + " OFFSET 0) AS " + Self.relatedAlias
        let rows = "(SELECT " + mainSelection + " FROM " + PostgresSQL.identifier(mainTable)
            + " WHERE " + PostgresSQL.identifier(sections.foreignKey) + " = " + Self.relatedAlias + "." + Self.keyAlias + " AND " + condition
            + " ORDER BY " + rowOrdering.joined(separator: ", ") + " OFFSET 0) AS " + Self.mainAlias
        return related + " CROSS JOIN LATERAL " + rows + " ORDER BY " + order.map { Self.relatedAlias + "." + $0 }.joined(separator: ", ")
    }

    /// A subquery reading the related row whose key is `keySQL`, as columns of a lateral join
    /// (`selection`'s cells; all NULL when there is none).
    func lateralRow(keyedBy keySQL: String) -> String {
        "SELECT " + selection(from: Self.relatedAlias) + " FROM " + table + " AS " + Self.relatedAlias
            + " WHERE " + Self.relatedAlias + "." + PostgresSQL.identifier(sections.key) + " = " + keySQL
    }

    /// The related columns of the row a write returns (the main table `table` in a RETURNING
    /// list), one scalar subquery each: RETURNING can join nothing.
    func returning(from mainTable: String) -> [String] {
        let foreignKey = mainTable + "." + PostgresSQL.identifier(sections.foreignKey)
        return ([sections.key, sections.title] + sections.order.map(\.column)).map { column in
            "(SELECT " + Self.relatedAlias + "." + PostgresSQL.identifier(column) + " FROM " + table + " AS " + Self.relatedAlias
                + " WHERE " + Self.relatedAlias + "." + PostgresSQL.identifier(sections.key) + " = " + foreignKey + ")"
        }
    }

    /// The related row of `selection`'s cells: its key and its section row; nil when the cells
    /// are NULL (no such row).
    func decode(_ cells: inout PostgresRow.Iterator) throws -> (key: ColumnValue, row: SectionRow)? {
        guard let keyCell = cells.next() else { throw LiveResultsError(.database, "A row of “\(sections.table)” lacks its key.") }
        guard keyCell.bytes != nil else {
            for _ in 1..<cellCount { _ = cells.next() }
            return nil
        }
        let key = try PostgresKeyQuery.value(keyCell)
        guard let titleCell = cells.next() else { throw LiveResultsError(.database, "A row of “\(sections.table)” lacks its title.") }
        let title = SectionedIndex.sectionName(try PostgresKeyQuery.value(titleCell))
        var order: [ColumnValue] = []
        order.reserveCapacity(sections.order.count)
        for _ in sections.order {
            guard let cell = cells.next() else { throw LiveResultsError(.database, "A row of “\(sections.table)” lacks an order value.") }
            order.append(try PostgresKeyQuery.value(cell))
        }
        return (key, SectionRow(title: title, order: order))
    }

    /// Every related row: its key and section row (run it in the snapshot of the rows read with
    /// it); and, `withCursor`, the change log's cursor of that snapshot in the same statement
    /// (`ChangeLogReader.start`'s: one round trip for both).
    func relatedRows(_ connection: PostgresConnection, withCursor: Bool,
                     logger: Logger) throws -> (rows: [(id: ColumnValue, row: SectionRow)], cursor: ChangeLogCursor?) {
        let related = "SELECT " + selection(from: Self.relatedAlias) + " FROM " + table + " AS " + Self.relatedAlias
        // The cursor's columns on every row, and on one of NULLs when the table is empty.
        let sql = withCursor ? "SELECT " + ChangeLogReader.startColumns + ", liveresults_sections.* FROM (SELECT 1) AS liveresults_one LEFT JOIN (" + related
            + ") AS liveresults_sections ON true" : related
        let rows = try PostgresKeyQuery.running { try connection.rowsWithinDeadline(PostgresQuery(unsafeSQL: sql), logger: logger) }
        var cursor: ChangeLogCursor?
        let found = try rows.compactMap { row in
            var cells = row.makeIterator()
            if withCursor { cursor = try ChangeLogReader.start(from: &cells) }
            return try decode(&cells).map { ($0.key, $0.row) }
        }
        return (found, cursor)
    }

    /// Checks the related table's `columns` (in order, with their types' oids) and returns the
    /// query's related part.
    static func prepare(_ sections: RelatedSections, columns: [(name: String, oid: UInt32)], mainColumns: [String: UInt32],
                        mainTable: String) throws -> PostgresRelatedQuery {
        guard let foreignKeyType = mainColumns[sections.foreignKey] else {
            throw LiveResultsError(.unknownColumn(sections.foreignKey), "The table “\(mainTable)” has no column named “\(sections.foreignKey)”.")
        }
        let types = Dictionary(columns.map { ($0.name, $0.oid) }, uniquingKeysWith: { first, _ in first })
        guard !types.isEmpty else {
            throw LiveResultsError(.unknownColumn(sections.table), "There is no table named “\(sections.table)”.")
        }
        var textColumns = Set<String>()
        for column in [sections.key, sections.title] + sections.order.map(\.column) {
            let type = try PostgresKeyQuery.checkedType(of: column, in: sections.table, types: types)
            if type.isText, column != sections.key { textColumns.insert(column) }
        }
        for (column, oid, table) in [(sections.key, types[sections.key]!, sections.table), (sections.foreignKey, foreignKeyType, mainTable)]
        where !PostgresKeyQuery.integerTypes.contains(oid) {
            throw LiveResultsError(.database, "The column “\(column)” of “\(table)” joins the sections and must be an integer column.")
        }
        return PostgresRelatedQuery(sections: sections, textColumns: textColumns)
    }
}
