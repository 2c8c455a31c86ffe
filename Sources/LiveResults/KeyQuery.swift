import GRDB

/// The SQL a controller runs to learn where rows belong: ids with their sort and section values.
struct KeyQuery: Sendable {
    let tableName: String
    let predicate: SQL?
    let sortDescriptors: [SortColumn]
    let sectionColumn: String?

    /// Largest number of ids bound in one point query.
    private static let chunkSize = 500

    /// The point query, built once. Only the writer's queue uses it.
    private final class Cache: @unchecked Sendable { // Used from one queue at a time: the database writer's.
        var value: (sql: String, arguments: StatementArguments)?
    }
    private let pointQueryCache = Cache()

    private var selection: String {
        var columns = ["rowid"] + sortDescriptors.map { $0.column.quotedDatabaseIdentifier }
        if let sectionColumn { columns.append(sectionColumn.quotedDatabaseIdentifier) }
        return "SELECT " + columns.joined(separator: ", ") + " FROM " + tableName.quotedDatabaseIdentifier
    }

    private var filter: SQL {
        guard let predicate else { return SQL(sql: " WHERE 1") }
        return SQL(sql: " WHERE (") + predicate + SQL(sql: ")")
    }

    private var ordering: String {
        let terms = sortDescriptors.map { descriptor in
            descriptor.column.quotedDatabaseIdentifier + " COLLATE BINARY" + (descriptor.ascending ? " ASC" : " DESC")
        }
        return " ORDER BY " + (terms + ["rowid ASC"]).joined(separator: ", ")
    }

    private func decode(_ row: Row) -> (id: RecordID, key: RowKey) {
        let count = sortDescriptors.count
        var sort: [DatabaseValue] = []
        sort.reserveCapacity(count)
        for i in 0..<count { sort.append(row[i + 1]) }
        let section: DatabaseValue = sectionColumn == nil ? .null : row[count + 1]
        return (row[0], RowKey(section: section, sort: sort))
    }

    /// Every matching row, in result order.
    func fetchAll(_ db: Database) throws -> [(id: RecordID, key: RowKey)] {
        let request = SQLRequest<Row>(literal: SQL(sql: selection) + filter + SQL(sql: ordering))
        var result: [(id: RecordID, key: RowKey)] = []
        let cursor = try Row.fetchCursor(db, request)
        while let row = try cursor.next() { result.append(decode(row)) }
        return result
    }

    /// The SQL (without the id list) and predicate arguments of point queries.
    private func pointQuery(_ db: Database) throws -> (sql: String, arguments: StatementArguments) {
        if let cached = pointQueryCache.value { return cached }
        let built = try (SQL(sql: selection) + filter).build(db)
        pointQueryCache.value = built
        return built
    }

    /// Every matching row, in result order, straight into an index: no key is held twice.
    func fetchIndex(_ db: Database, sectionName: (DatabaseValue) -> String) throws -> SectionedIndex {
        var index = SectionedIndex(ascending: sortDescriptors.map(\.ascending))
        let countRequest = SQLRequest<Int>(literal: SQL(sql: "SELECT COUNT(*) FROM " + tableName.quotedDatabaseIdentifier) + filter)
        index.reserveCapacity(try countRequest.fetchOne(db) ?? 0)
        let request = SQLRequest<Row>(literal: SQL(sql: selection) + filter + SQL(sql: ordering))
        let cursor = try Row.fetchCursor(db, request)
        let sectionOffset = sortDescriptors.count + 1
        while let row = try cursor.next() {
            let section: DatabaseValue = sectionColumn == nil ? .null : row[sectionOffset]
            try index.appendSorted(id: row[0], section: section, sectionName: sectionName) { row[$0 + 1] }
        }
        return index
    }

    /// The keys of those of `ids` that exist and match the predicate.
    func fetchKeys(_ db: Database, ids: [RecordID]) throws -> [RecordID: RowKey] {
        var keys: [RecordID: RowKey] = [:]
        var start = 0
        while start < ids.count {
            let chunk = ids[start..<min(start + Self.chunkSize, ids.count)]
            // A cached statement per chunk size: one prepared query serves every tap.
            let (sql, predicateArguments) = try pointQuery(db)
            let placeholders = chunk.count == 1 ? "?" : Array(repeating: "?", count: chunk.count).joined(separator: ",")
            let statement = try db.cachedStatement(sql: sql + " AND rowid IN (" + placeholders + ")")
            statement.setUncheckedArguments(predicateArguments + StatementArguments(Array(chunk)))
            let cursor = try Row.fetchCursor(statement)
            while let row = try cursor.next() {
                let (id, key) = decode(row)
                keys[id] = key
            }
            start += Self.chunkSize
        }
        return keys
    }
}
