import Foundation
import GRDB
import GRDBSQLite
import LiveResults

/// The SQL a controller runs to learn where rows belong: ids with their sort and section values.
///
/// Through a relationship (`related`), the table's matching rows are joined to their related
/// rows (an inner join on the foreign key), ordered by the related order columns and key, then
/// by the sort descriptors: the section value is the foreign key. A fetch reads them section
/// by section (`forEachRowInOrder`).
struct KeyQuery: Sendable {
    let tableName: String
    let predicate: SQL?
    let sortDescriptors: [SortColumn]
    let sectionColumn: String?
    let related: RelatedSections?
    /// Where a row of `selection` holds the section value: the first sort column when it is
    /// the section column (the usual case: read once), or a column of its own after the sort
    /// columns; nil without sections.
    private let sectionIndex: CInt?

    init(tableName: String, predicate: SQL?, sortDescriptors: [SortColumn], sectionColumn: String?, related: RelatedSections? = nil) {
        self.tableName = tableName
        self.predicate = predicate
        self.sortDescriptors = sortDescriptors
        self.related = related
        self.sectionColumn = related?.foreignKey ?? sectionColumn
        if related != nil {
            sectionIndex = CInt(sortDescriptors.count + 1) // the foreign key, never taken for a sort value
        } else if let sectionColumn {
            let first = sortDescriptors.first.map { SQLNames([$0.column]) }
            sectionIndex = first?.contains(sectionColumn) == true ? 1 : CInt(sortDescriptors.count + 1)
        } else {
            sectionIndex = nil
        }
    }

    /// Largest number of ids bound in one point query.
    private static let chunkSize = 500

    /// The point query, built once. Only the writer's queue uses it.
    private final class Cache: @unchecked Sendable { // Used from one queue at a time: the database writer's.
        var value: (sql: String, arguments: StatementArguments)?
        /// The whole SQL of the point query for one id (a tap's), not built again at each commit.
        var singleIDSQL: String?
    }
    private let pointQueryCache = Cache()

    private var selection: String {
        var columns = ["rowid"] + sortDescriptors.map { $0.column.quotedDatabaseIdentifier }
        if let sectionColumn, sectionIndex == CInt(columns.count) { columns.append(sectionColumn.quotedDatabaseIdentifier) }
        return "SELECT " + columns.joined(separator: ", ") + " FROM " + tableName.quotedDatabaseIdentifier
    }

    /// The selection through a relationship: the table's columns as `liveresults_row.c0…` (the
    /// id, the sort values, the foreign key), joined to the related table as
    /// `liveresults_section`. The predicate, on the table's own columns, goes inside.
    private func joinedSelection(_ related: RelatedSections) -> (head: String, tail: String) {
        let columns = ["rowid"] + sortDescriptors.map { $0.column.quotedDatabaseIdentifier } + [related.foreignKey.quotedDatabaseIdentifier]
        let inner = "SELECT " + columns.enumerated().map { "\($1) AS c\($0)" }.joined(separator: ", ") + " FROM " + tableName.quotedDatabaseIdentifier
        let outer = "SELECT " + columns.indices.map { "liveresults_row.c\($0)" }.joined(separator: ", ") + " FROM (" + inner
        let join = ") AS liveresults_row JOIN " + related.table.quotedDatabaseIdentifier + " AS liveresults_section ON liveresults_section."
            + related.key.quotedDatabaseIdentifier + " = liveresults_row.c\(columns.count - 1)"
        return (outer, join)
    }

    /// SELECT … FROM … WHERE (predicate), joined through a relationship.
    private var selected: SQL {
        guard let related else { return SQL(sql: selection) + filter }
        let (head, tail) = joinedSelection(related)
        return SQL(sql: head) + filter + SQL(sql: tail)
    }

    private var filter: SQL {
        guard let predicate else { return SQL(sql: " WHERE 1") }
        return SQL(sql: " WHERE (") + predicate + SQL(sql: ")")
    }

    /// ORDER BY of the result; through a relationship, of the rows of one section.
    private var ordering: String {
        guard related != nil else { return " ORDER BY " + SortColumn.orderingSQL(sortDescriptors) }
        let rows = sortDescriptors.enumerated().map { "liveresults_row.c\($0 + 1) COLLATE BINARY " + ($1.ascending ? "ASC" : "DESC") }
        return " ORDER BY " + (rows + ["liveresults_row.c0 ASC"]).joined(separator: ", ")
    }

    /// The rowids of the related rows in the sections' order: the order columns, the key, then
    /// the rowid (a related row each, whatever its key).
    private static func sectionOrderSQL(_ related: RelatedSections) -> String {
        "SELECT rowid FROM " + related.table.quotedDatabaseIdentifier + " ORDER BY "
            + ((related.order + [SortColumn(related.key)]).map(\.orderingTerm) + ["rowid ASC"]).joined(separator: ", ")
    }

    /// The rows joined to one related row, in the section's order: the SQL, whose last
    /// parameter is the related row's rowid, and the predicate's arguments (bound before it).
    func sectionRowsSQL(_ db: Database) throws -> (sql: String, arguments: StatementArguments) {
        let (sql, arguments) = try selected.build(db)
        return (sql + " WHERE liveresults_section.rowid = ?" + ordering, arguments)
    }

    /// Every matching row in result order, each handed over on its statement.
    ///
    /// Through a relationship, section by section: the related rows in the sections' order,
    /// then the rows joined to each in the request's order (`sectionRowsSQL`), which an index
    /// of the table on the foreign key then the sort columns gives without a sort. One
    /// statement over the join would sort the whole result: no index of the table holds the
    /// related rows' order. Without such an index SQLite sorts each section's rows.
    private func forEachRowInOrder(_ db: Database, _ body: (SQLiteStatement) throws -> Void) throws {
        guard let related else {
            try forEachRow(db, statement(db, selected + SQL(sql: ordering)), body)
            return
        }
        let sections = try Int64.fetchAll(db, sql: Self.sectionOrderSQL(related))
        let (sql, arguments) = try sectionRowsSQL(db)
        let rows = try db.makeStatement(sql: sql)
        rows.setUncheckedArguments(arguments)
        let rowIDParameter = sqlite3_bind_parameter_count(rows.sqliteStatement)
        for rowID in sections {
            sqlite3_bind_int64(rows.sqliteStatement, rowIDParameter, rowID)
            try forEachRow(db, rows, body)
        }
    }

    /// The id column of the selection, for point queries.
    private var idColumn: String { related == nil ? "rowid" : "liveresults_row.c0" }

    /// The id and key of the row a statement of `selection` stands on.
    private func decode(_ row: SQLiteStatement) -> (id: RecordID, key: RowKey) {
        let count = sortDescriptors.count
        var sort: [ColumnValue] = []
        sort.reserveCapacity(count)
        for i in 0..<count { sort.append(ColumnValue(sqliteStatement: row, index: CInt(i + 1))) }
        let section: ColumnValue = sectionIndex.map { index in index == 1 ? sort[0] : ColumnValue(sqliteStatement: row, index: index) } ?? .null
        return (sqlite3_column_int64(row, 0), RowKey(section: section, sort: sort))
    }

    /// Steps through a statement's rows (`Statement.forEachRawRow`).
    private func forEachRow(_ db: Database, _ statement: Statement, _ body: (SQLiteStatement) throws -> Void) throws {
        try statement.forEachRawRow(db, body)
    }

    /// Whether a column of the current row holds exactly `value` (same type, same bytes).
    private static func column(_ index: CInt, of row: SQLiteStatement, is value: ColumnValue) -> Bool {
        switch (sqlite3_column_type(row, index), value) {
        case (SQLITE_NULL, .null):
            return true
        case (SQLITE_INTEGER, .integer(let int)):
            return sqlite3_column_int64(row, index) == int
        case (SQLITE_TEXT, .text(var string)):
            guard let text = sqlite3_column_text(row, index) else { return false }
            let count = Int(sqlite3_column_bytes(row, index))
            return string.withUTF8 { utf8 in
                guard utf8.count == count else { return false }
                return count == 0 || memcmp(utf8.baseAddress!, text, count) == 0
            }
        default:
            return false // Reals and blobs take the general path.
        }
    }

    /// The bytes of a column of the current row when it is text of ASCII characters without
    /// NUL: exactly the bytes of the `String` a `ColumnValue` would hold (which stops at a NUL
    /// and repairs invalid UTF-8), read without making one. Nil for anything else.
    private static func plainText(_ index: CInt, of row: SQLiteStatement) -> UnsafeRawBufferPointer? {
        guard sqlite3_column_type(row, index) == SQLITE_TEXT, let text = sqlite3_column_text(row, index) else { return nil }
        let bytes = UnsafeRawBufferPointer(start: text, count: Int(sqlite3_column_bytes(row, index)))
        for byte in bytes where byte == 0 || byte >= 0x80 { return nil }
        return bytes
    }

    /// A statement for SQL with its arguments bound.
    private func statement(_ db: Database, _ sql: SQL) throws -> Statement {
        let (text, arguments) = try sql.build(db)
        let statement = try db.makeStatement(sql: text)
        try statement.setArguments(arguments)
        return statement
    }

    /// Every matching row, in result order.
    func fetchAll(_ db: Database) throws -> [(id: RecordID, key: RowKey)] {
        var result: [(id: RecordID, key: RowKey)] = []
        try forEachRowInOrder(db) { result.append(decode($0)) }
        return result
    }

    /// Every related row, with its rowid, key, title and order values (`related` only).
    func fetchSectionRows(_ db: Database, rowIDs: [Int64]? = nil) throws -> [(rowID: Int64, key: ColumnValue, row: SectionRow)] {
        guard let related else { return [] }
        let columns = ["rowid", related.key, related.title] .enumerated().map { $0 == 0 ? $1 : $1.quotedDatabaseIdentifier }
            + related.order.map { $0.column.quotedDatabaseIdentifier }
        var sql = "SELECT " + columns.joined(separator: ", ") + " FROM " + related.table.quotedDatabaseIdentifier
        if let rowIDs { sql += " WHERE rowid IN (" + rowIDs.map(String.init).joined(separator: ",") + ")" }
        var rows: [(rowID: Int64, key: ColumnValue, row: SectionRow)] = []
        let statement = try db.makeStatement(sql: sql)
        try forEachRow(db, statement) { row in
            let order = related.order.indices.map { ColumnValue(sqliteStatement: row, index: CInt($0 + 3)) }
            let title = SectionedIndex.sectionName(ColumnValue(sqliteStatement: row, index: 2))
            rows.append((sqlite3_column_int64(row, 0), ColumnValue(sqliteStatement: row, index: 1), SectionRow(title: title, order: order)))
        }
        return rows
    }

    /// The rowids of the table's rows whose foreign key is one of `keys` (`related` only),
    /// matching or not: the rows a related row's insert or delete may bring in or take out.
    func rowIDs(_ db: Database, withForeignKeyIn keys: [ColumnValue]) throws -> [RecordID] {
        guard let related, !keys.isEmpty else { return [] }
        let sql = "SELECT rowid FROM " + tableName.quotedDatabaseIdentifier + " WHERE " + related.foreignKey.quotedDatabaseIdentifier
            + " IN (" + Array(repeating: "?", count: keys.count).joined(separator: ",") + ")"
        return try RecordID.fetchAll(db, sql: sql, arguments: StatementArguments(keys))
    }

    /// The SQL (without the id list) and predicate arguments of point queries.
    private func pointQuery(_ db: Database) throws -> (sql: String, arguments: StatementArguments) {
        if let cached = pointQueryCache.value { return cached }
        let built = try selected.build(db)
        pointQueryCache.value = built
        return built
    }

    /// Throws `unknownColumn` when the table, a sort column or the section column is missing.
    func checkColumns(_ db: Database) throws {
        guard try db.tableExists(tableName) else {
            throw LiveResultsError(.unknownColumn(tableName), "There is no table named “\(tableName)”.")
        }
        let columns = Set(try db.columns(in: tableName).map { $0.name.lowercased() })
        let named = sortDescriptors.map(\.column) + (sectionColumn.map { [$0] } ?? [])
        for column in named where !columns.contains(column.lowercased()) && column.lowercased() != "rowid" {
            throw LiveResultsError(.unknownColumn(column), "The table “\(tableName)” has no column named “\(column)”.")
        }
        guard let related else { return }
        guard try db.tableExists(related.table) else {
            throw LiveResultsError(.unknownColumn(related.table), "There is no related table named “\(related.table)”.")
        }
        let relatedColumns = Set(try db.columns(in: related.table).map { $0.name.lowercased() })
        for column in [related.key, related.title] + related.order.map(\.column)
        where !relatedColumns.contains(column.lowercased()) && column.lowercased() != "rowid" {
            throw LiveResultsError(.unknownColumn(column), "The related table “\(related.table)” has no column named “\(column)”.")
        }
    }

    /// The query counting the matching rows. Without a predicate it has no WHERE at all:
    /// SQLite counts a bare `SELECT COUNT(*) FROM table` from its b-tree (one `Count` step),
    /// while `WHERE 1` would make it step through every row (a million at a fetch).
    var countSQL: SQL {
        guard let related else { return tableCountSQL }
        let (head, tail) = joinedSelection(related)
        return SQL(sql: "SELECT COUNT(*) FROM (" + head) + filter + SQL(sql: tail + ")")
    }

    /// The query counting the table's matching rows, not joined (as `countSQL` without a relationship).
    private var tableCountSQL: SQL {
        let count = SQL(sql: "SELECT COUNT(*) FROM " + tableName.quotedDatabaseIdentifier)
        return predicate == nil ? count : count + filter
    }

    /// The number of matching rows.
    func fetchCount(_ db: Database) throws -> Int {
        try SQLRequest<Int>(literal: countSQL).fetchOne(db) ?? 0
    }

    /// Every matching row, in result order, straight into an index: no key is held twice.
    func fetchIndex(_ db: Database, sectionName: (ColumnValue) -> String) throws -> SectionedIndex {
        var index = SectionedIndex(ascending: sortDescriptors.map(\.ascending), unsectioned: sectionColumn == nil,
                                   sectionOrder: related?.order.map(\.ascending))
        for (_, key, row) in try fetchSectionRows(db) { index.setSectionRow(row, for: key) }
        // Room for every matching row. Through a relationship, the table's matching rows: a
        // bound (a row naming no related row is counted too) that costs no join, where counting
        // through the join reads a related row for every row.
        index.reserveCapacity(try SQLRequest<Int>(literal: tableCountSQL).fetchOne(db) ?? 0)
        let sectionOffset = sectionIndex ?? 0
        // The first sort column is the section column (the usual case): its value is the
        // section's, already read or recognised, so it is neither decoded again nor compared.
        let firstValueIsSection = sectionOffset == 1
        var previousSection: ColumnValue?
        try forEachRowInOrder(db) { row in
            let id = sqlite3_column_int64(row, 0)
            let sortValue = { (column: Int) in ColumnValue(sqliteStatement: row, index: CInt(column + 1)) }
            // Rows come section by section: most rows are in the previous row's section, which
            // is recognised from the column's bytes without decoding or hashing the value.
            if let previousSection, sectionColumn == nil || Self.column(sectionOffset, of: row, is: previousSection) {
                index.appendToLastSection(id: id, firstValueIsSection: firstValueIsSection, mapsID: false, sortValues: sortValue) { Self.plainText(CInt($0 + 1), of: row) }
            } else {
                let section: ColumnValue = sectionColumn == nil ? .null : ColumnValue(sqliteStatement: row, index: sectionOffset)
                try index.appendSorted(id: id, section: section, sectionName: sectionName, firstValueIsSection: firstValueIsSection, mapsID: false, sortValues: sortValue)
                previousSection = section
            }
        }
        // The ids were appended unmapped (rowids of one table: each new): map them at once.
        index.mapFetchedIDs()
        index.checkInvariantsInDebug()
        return index
    }

    /// The point query's SQL for `count` ids.
    private func pointSQL(_ db: Database, count: Int) throws -> String {
        if count == 1, let cached = pointQueryCache.singleIDSQL { return cached }
        let placeholders = count == 1 ? "?" : Array(repeating: "?", count: count).joined(separator: ",")
        let sql = try pointQuery(db).sql + " AND " + idColumn + " IN (" + placeholders + ")"
        if count == 1 { pointQueryCache.singleIDSQL = sql }
        return sql
    }

    /// The keys of `ids` (ascending, each once), in that order: nil for an id whose row does
    /// not exist or does not match the predicate.
    func fetchKeys(_ db: Database, ids: [RecordID]) throws -> [(id: RecordID, key: RowKey?)] {
        assert(zip(ids, ids.dropFirst()).allSatisfy { $0 < $1 }, "ids must ascend, each once")
        var keys: [(id: RecordID, key: RowKey?)] = []
        keys.reserveCapacity(ids.count)
        var found: [(id: RecordID, key: RowKey)] = []
        var start = 0
        while start < ids.count {
            let chunk = ids[start..<min(start + Self.chunkSize, ids.count)]
            // A cached statement per chunk size: one prepared query serves every tap.
            let statement = try db.cachedStatement(sql: pointSQL(db, count: chunk.count))
            // The ids, the last parameters, are bound with the C API: GRDB's arguments made of
            // them (a generic initializer, a boxed value each) were a visible share of a tap.
            statement.setUncheckedArguments(try pointQuery(db).arguments)
            let raw = statement.sqliteStatement
            let firstID = sqlite3_bind_parameter_count(raw) - Int32(chunk.count) + 1
            for (offset, id) in chunk.enumerated() { sqlite3_bind_int64(raw, firstID + Int32(offset), id) }
            found.removeAll(keepingCapacity: true)
            try forEachRow(db, statement) { found.append(decode($0)) }
            // SQLite answers `rowid IN (…)` in rowid order; sorted anyway should a plan not.
            if !zip(found, found.dropFirst()).allSatisfy({ $0.id < $1.id }) { found.sort { $0.id < $1.id } }
            var next = found.startIndex
            for id in chunk {
                if next < found.endIndex, found[next].id == id {
                    keys.append((id, found[next].key))
                    next += 1
                } else {
                    keys.append((id, nil))
                }
            }
            start += Self.chunkSize
        }
        return keys
    }
}
