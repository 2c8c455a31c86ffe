import Foundation
import GRDB
import LiveResults
import PostgresNIO

/// The query that tells where rows belong on PostgreSQL: ids with their sort and section
/// values, in exactly the order LiveResults keeps in memory (`SQLiteOrdering`).
///
/// That order is SQLite's: NULL before every value, text by its UTF-8 bytes, the id
/// ascending last. PostgreSQL's ORDER BY differs by default on two counts, which the query
/// undoes: text follows the database's collation (a locale, where "a" < "B" and "Ä" sits by
/// "A"), so text columns are ordered `COLLATE "C"` (byte order in UTF-8); and NULLs come last
/// ascending, so each term says `NULLS FIRST` ascending and `NULLS LAST` descending (SQLite's
/// NULL-smallest, reversed with the rest).
///
/// Values become GRDB's `DatabaseValue`s as SQLite would hold them: int2/int4/int8 and bool
/// as integers, float4/float8 as reals, text and varchar as text, bytea as blobs. Columns of
/// other types are refused, and so is NaN: their orders have no SQLite counterpart.
package struct PostgresKeyQuery: Sendable {
    package let tableName: String
    package let idColumn: String
    package let sortDescriptors: [SortColumn]
    package let sectionColumn: String?

    package init(tableName: String, idColumn: String = "id", sortDescriptors: [SortColumn], sectionColumn: String? = nil) {
        self.tableName = tableName
        self.idColumn = idColumn
        self.sortDescriptors = sortDescriptors
        self.sectionColumn = sectionColumn
    }

    /// The types the query reads, by oid: whether each is text (ordered `COLLATE "C"`).
    static let supportedTypes: [UInt32: (name: String, isText: Bool)] = [
        PostgresDataType.int2.rawValue: ("int2", false),
        PostgresDataType.int4.rawValue: ("int4", false),
        PostgresDataType.int8.rawValue: ("int8", false),
        PostgresDataType.bool.rawValue: ("bool", false),
        PostgresDataType.float4.rawValue: ("float4", false),
        PostgresDataType.float8.rawValue: ("float8", false),
        PostgresDataType.text.rawValue: ("text", true),
        PostgresDataType.varchar.rawValue: ("varchar", true),
        PostgresDataType.bytea.rawValue: ("bytea", false),
    ]

    /// One ORDER BY term: the column, `COLLATE "C"` for text, the direction, and NULLs where
    /// SQLite puts them (smallest).
    static func orderingTerm(_ column: SortColumn, isText: Bool) -> String {
        PostgresSQL.identifier(column.column)
            + (isText ? " COLLATE \"C\"" : "")
            + (column.ascending ? " ASC NULLS FIRST" : " DESC NULLS LAST")
    }

    /// The whole query, given which sort columns are text.
    func sql(textColumns: Set<String>) -> String {
        var selected = [PostgresSQL.identifier(idColumn)] + sortDescriptors.map { PostgresSQL.identifier($0.column) }
        if let sectionColumn { selected.append(PostgresSQL.identifier(sectionColumn)) }
        let ordering = sortDescriptors.map { Self.orderingTerm($0, isText: textColumns.contains($0.column)) }
            + [PostgresSQL.identifier(idColumn) + " ASC"]
        return "SELECT " + selected.joined(separator: ", ") + " FROM " + PostgresSQL.identifier(tableName)
            + " ORDER BY " + ordering.joined(separator: ", ")
    }

    /// The table's columns and their type oids; throws when the table does not exist.
    private func columnTypes(_ connection: PostgresConnection, logger: Logger) async throws -> [String: UInt32] {
        var binds = PostgresBindings()
        binds.append(PostgresSQL.identifier(tableName))
        let rows = try await connection.query(PostgresQuery(unsafeSQL: """
            SELECT a.attname::text, a.atttypid::int8 FROM pg_attribute a
            WHERE a.attrelid = to_regclass($1) AND a.attnum > 0 AND NOT a.attisdropped
            """, binds: binds), logger: logger)
        var types: [String: UInt32] = [:]
        for try await (name, oid) in rows.decode((String, Int64).self) { types[name] = UInt32(oid) }
        guard !types.isEmpty else { throw LiveResultsPostgresError("There is no table named “\(tableName)”.") }
        return types
    }

    /// Checks the table's columns and returns the query's SQL.
    package func sql(_ connection: PostgresConnection, logger: Logger) async throws -> String {
        let types = try await columnTypes(connection, logger: logger)
        var textColumns = Set<String>()
        for column in [idColumn] + sortDescriptors.map(\.column) + (sectionColumn.map { [$0] } ?? []) {
            guard let oid = types[column] else {
                throw LiveResultsPostgresError("The table “\(tableName)” has no column named “\(column)”.")
            }
            guard let type = Self.supportedTypes[oid] else {
                throw LiveResultsPostgresError("The column “\(column)” of “\(tableName)” has a type LiveResults cannot order like SQLite (oid \(oid)): use an integer, real, text, varchar, bool or bytea column.")
            }
            if column == idColumn, !["int2", "int4", "int8"].contains(type.name) {
                throw LiveResultsPostgresError("The id column “\(column)” of “\(tableName)” is not an integer column.")
            }
            if type.isText { textColumns.insert(column) }
        }
        return sql(textColumns: textColumns)
    }

    /// Every row, in result order, with its key.
    package func fetchAll(_ connection: PostgresConnection, logger: Logger = Logger(label: "LiveResultsPostgres")) async throws -> [(id: RecordID, key: RowKey)] {
        do {
            let sql = try await sql(connection, logger: logger)
            let count = sortDescriptors.count
            var result: [(id: RecordID, key: RowKey)] = []
            for try await row in try await connection.query(PostgresQuery(unsafeSQL: sql), logger: logger) {
                var cells = row.makeIterator()
                guard case .int64(let id) = try Self.value(cells.next()!).storage else {
                    throw LiveResultsPostgresError("A row of “\(tableName)” has no id.")
                }
                var sort: [DatabaseValue] = []
                sort.reserveCapacity(count)
                for _ in 0..<count { sort.append(try Self.value(cells.next()!)) }
                let section = sectionColumn == nil ? DatabaseValue.null : try Self.value(cells.next()!)
                result.append((id, RowKey(section: section, sort: sort)))
            }
            return result
        } catch let error as LiveResultsPostgresError {
            throw error
        } catch {
            throw LiveResultsPostgresError("The key query on “\(tableName)” failed: \(PostgresSQL.message(of: error)).")
        }
    }

    /// A cell as the value SQLite would hold.
    static func value(_ cell: PostgresCell) throws -> DatabaseValue {
        guard cell.bytes != nil else { return .null }
        switch cell.dataType {
        case .int2, .int4, .int8: return try cell.decode(Int64.self).databaseValue
        case .bool: return (try cell.decode(Bool.self) ? 1 : 0).databaseValue
        case .float4, .float8:
            // PostgreSQL sorts NaN above every number; SQLite has no NaN (it stores NULL), and
            // LiveResults' comparison has no place for it.
            let double = try cell.decode(Double.self)
            guard !double.isNaN else {
                throw LiveResultsPostgresError("The column “\(cell.columnName)” holds NaN, which LiveResults cannot order: use NULL instead.")
            }
            return double.databaseValue
        case .text, .varchar: return try cell.decode(String.self).databaseValue
        case .bytea: return try cell.decode(Data.self).databaseValue
        default:
            throw LiveResultsPostgresError("The column “\(cell.columnName)” has a type LiveResults cannot order like SQLite (\(cell.dataType)).")
        }
    }
}
