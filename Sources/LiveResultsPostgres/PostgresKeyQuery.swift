import Foundation
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
/// Values become the core's `ColumnValue`s as SQLite would hold them: int2/int4/int8 and bool
/// as integers, float4/float8 as reals, text and varchar as text, bytea as blobs. Columns of
/// other types are refused, and so is NaN: their orders have no SQLite counterpart.
///
/// Queries run synchronously on a connection (waiting on an event loop's future), for
/// LiveResults' synchronous controller; call them from any thread but an event loop's.
package struct PostgresKeyQuery: Sendable {
    package let tableName: String
    package let idColumn: String
    package let sortDescriptors: [SortColumn]
    package let sectionColumn: String?
    /// An SQL condition on the table's columns; nil matches every row.
    package let predicate: ResultsPredicate?
    /// The related table that sections and orders the rows, if any: the section column is then
    /// its foreign key (`PostgresRelatedQuery`).
    package let related: RelatedSections?

    package init(tableName: String, idColumn: String = "id", sortDescriptors: [SortColumn], sectionColumn: String? = nil, predicate: ResultsPredicate? = nil,
                 related: RelatedSections? = nil) {
        self.tableName = tableName
        self.idColumn = idColumn
        self.sortDescriptors = sortDescriptors
        self.sectionColumn = related?.foreignKey ?? sectionColumn
        self.predicate = predicate
        self.related = related
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

    /// The integer types, by oid: what an id or a join's key may be.
    static let integerTypes: Set<UInt32> = [PostgresDataType.int2.rawValue, PostgresDataType.int4.rawValue, PostgresDataType.int8.rawValue]

    /// One ORDER BY term: the column, `COLLATE "C"` for text, the direction, and NULLs where
    /// SQLite puts them (smallest).
    static func orderingTerm(_ column: SortColumn, isText: Bool) -> String {
        PostgresSQL.identifier(column.column)
            + (isText ? " COLLATE \"C\"" : "")
            + (column.ascending ? " ASC NULLS FIRST" : " DESC NULLS LAST")
    }

    /// The statements of a query whose table and columns were checked.
    package struct Statements: Sendable {
        let query: PostgresKeyQuery
        /// The table's columns in order, with their types; `::text` for types LiveResults does
        /// not read natively (records only).
        let recordColumns: [String]
        /// The id, the sort columns and the section column, in that order.
        let keyColumns: [String]
        /// Which sort columns are text.
        let textColumns: Set<String>
        /// The table's columns in order, each with its type's name as the key query reads it
        /// (`supportedTypes`'), nil for a column a record reads as text: `recordColumns`, for a
        /// write's RETURNING (`recordSelection(from:)`) and a notification's values.
        var recordCells: [(name: String, type: String?)] = []
        /// The related table's part, when the rows are sectioned through it.
        let related: PostgresRelatedQuery?
        /// The type of each sort column, then of the section column (`supportedTypes`' names).
        var keyTypes: [String] = []
        /// The first of the table and the related table without the change log's trigger, when
        /// they were checked (nil: both have it).
        var unlogged: String?

        /// The key columns, ordered, of `source` (a table or an alias).
        func selection(from source: String? = nil) -> String {
            keyColumns.map { (source.map { "\($0)." } ?? "") + $0 }.joined(separator: ", ")
        }

        /// `WHERE` and the predicate with parameters numbered from `firstParameter`, or "".
        func filter(firstParameter: Int) throws -> (sql: String, predicate: PostgresPredicate?) {
            guard let predicate = query.predicate else { return ("", nil) }
            let translated = try PostgresPredicate(predicate, firstParameter: firstParameter)
            return (" WHERE (" + translated.sql + ")", translated)
        }

        /// The predicate as a condition (with parameters numbered from `firstParameter`), or
        /// `true` when there is none: whether a row matches, as a column of a query.
        func matches(firstParameter: Int) throws -> (sql: String, predicate: PostgresPredicate?) {
            let (filter, predicate) = try filter(firstParameter: firstParameter)
            return (filter.isEmpty ? "true" : String(filter.dropFirst(" WHERE ".count)), predicate)
        }

        /// Every matching row, in result order (joined: sections in their related rows' order,
        /// read section by section: `PostgresRelatedQuery.orderedSource`).
        func selectAll() throws -> PostgresQuery {
            var bindings = PostgresBindings()
            let ordering = query.sortDescriptors.map { PostgresKeyQuery.orderingTerm($0, isText: textColumns.contains($0.column)) }
                + [PostgresSQL.identifier(query.idColumn) + " ASC"]
            guard let related else {
                let (filter, predicate) = try filter(firstParameter: 1)
                predicate?.bind(into: &bindings)
                return PostgresQuery(unsafeSQL: "SELECT " + selection() + " FROM " + PostgresSQL.identifier(query.tableName)
                    + filter + " ORDER BY " + ordering.joined(separator: ", "), binds: bindings)
            }
            let (condition, predicate) = try matches(firstParameter: 1)
            predicate?.bind(into: &bindings)
            return PostgresQuery(unsafeSQL: "SELECT " + selection(from: PostgresRelatedQuery.mainAlias) + " FROM "
                + related.orderedSource(mainTable: query.tableName, mainSelection: selection(), condition: condition, rowOrdering: ordering), binds: bindings)
        }

        /// The whole rows of `ids` that exist.
        func selectRecords(ids: [RecordID]) -> PostgresQuery {
            var bindings = PostgresBindings()
            bindings.append(ids)
            return PostgresQuery(unsafeSQL: "SELECT " + recordColumns.joined(separator: ", ") + " FROM " + PostgresSQL.identifier(query.tableName)
                + " WHERE " + PostgresSQL.identifier(query.idColumn) + " = ANY($1)", binds: bindings)
        }

        /// The id and key of a row whose first cells are `selection()`'s.
        func decode(_ cells: inout PostgresRow.Iterator) throws -> (id: RecordID, key: RowKey) {
            guard let idCell = cells.next(), case .integer(let id) = try PostgresKeyQuery.value(idCell) else {
                throw LiveResultsError(.database, "A row of “\(query.tableName)” has no id.")
            }
            var sort: [ColumnValue] = []
            sort.reserveCapacity(query.sortDescriptors.count)
            for _ in query.sortDescriptors { sort.append(try PostgresKeyQuery.value(cells.next()!)) }
            let section = query.sectionColumn == nil ? ColumnValue.null : try PostgresKeyQuery.value(cells.next()!)
            return (id, RowKey(section: section, sort: sort))
        }
    }

    /// What the server says of a table: its columns in order with their types' oids (none:
    /// there is no such table), and whether the change log's trigger is on it.
    struct TableShape {
        var columns: [(name: String, oid: UInt32)] = []
        var logged = false
    }

    /// The shape of each of `tables`, in one statement (across a network, each is a round trip).
    static func shapes(of tables: [String], _ connection: PostgresConnection, logger: Logger) throws -> [TableShape] {
        var binds = PostgresBindings()
        binds.append(tables.map(PostgresSQL.identifier))
        let rows = try connection.rowsWithinDeadline(PostgresQuery(unsafeSQL: """
            SELECT asked.n, a.attname::text, a.atttypid::int8,
                EXISTS (SELECT 1 FROM pg_trigger WHERE tgrelid = to_regclass(asked.name) AND tgname = 'liveresults_log')
            FROM unnest($1::text[]) WITH ORDINALITY AS asked(name, n)
            LEFT JOIN pg_attribute a ON a.attrelid = to_regclass(asked.name) AND a.attnum > 0 AND NOT a.attisdropped
            ORDER BY asked.n, a.attnum
            """, binds: binds), logger: logger)
        var shapes = Array(repeating: TableShape(), count: tables.count)
        for row in rows {
            let (n, name, oid, logged) = try row.decode((Int64, String?, Int64?, Bool).self)
            guard shapes.indices.contains(Int(n) - 1) else { continue }
            shapes[Int(n) - 1].logged = logged
            if let name, let oid { shapes[Int(n) - 1].columns.append((name, UInt32(oid))) }
        }
        return shapes
    }

    /// The type of `column` of `table` (`types`: its columns' oids), or an error in one sentence
    /// when there is no such column or LiveResults cannot order its type.
    static func checkedType(of column: String, in table: String, types: [String: UInt32]) throws -> (name: String, isText: Bool) {
        guard let oid = types[column] else {
            throw LiveResultsError(.unknownColumn(column), "The table “\(table)” has no column named “\(column)”.")
        }
        guard let type = supportedTypes[oid] else {
            throw LiveResultsError(.database, "The column “\(column)” of “\(table)” has a type LiveResults cannot order like SQLite (oid \(oid)): use an integer, real, text, varchar, bool or bytea column.")
        }
        return type
    }

    /// Checks the table's columns, and the related table's, in one round trip, and returns
    /// the query's statements.
    package func prepare(_ connection: PostgresConnection, logger: Logger = Logger(label: "LiveResultsPostgres")) throws -> Statements {
        let shapes = try Self.shapes(of: [tableName] + (related.map { [$0.table] } ?? []), connection, logger: logger)
        let columns = shapes[0].columns
        guard !columns.isEmpty else {
            throw LiveResultsError(.unknownColumn(tableName), "There is no table named “\(tableName)”.")
        }
        let types = Dictionary(columns.map { ($0.name, $0.oid) }, uniquingKeysWith: { first, _ in first })
        let recordColumns = columns.map { name, oid in
            let column = PostgresSQL.identifier(name)
            return Self.supportedTypes[oid] == nil ? column + "::text AS " + column : column
        }
        var textColumns = Set<String>()
        for column in [idColumn] + sortDescriptors.map(\.column) + (sectionColumn.map { [$0] } ?? []) {
            let type = try Self.checkedType(of: column, in: tableName, types: types)
            if column == idColumn, !Self.integerTypes.contains(types[column]!) {
                throw LiveResultsError(.database, "The id column “\(column)” of “\(tableName)” is not an integer column.")
            }
            if type.isText { textColumns.insert(column) }
        }
        let related = try related.map {
            try PostgresRelatedQuery.prepare($0, columns: shapes[1].columns, mainColumns: types, mainTable: tableName)
        }
        let keyColumns = ([idColumn] + sortDescriptors.map(\.column) + (sectionColumn.map { [$0] } ?? [])).map(PostgresSQL.identifier)
        var statements = Statements(query: self, recordColumns: recordColumns, keyColumns: keyColumns, textColumns: textColumns, related: related)
        statements.recordCells = columns.map { ($0.name, Self.supportedTypes[$0.oid]?.name) }
        statements.keyTypes = (sortDescriptors.map(\.column) + (sectionColumn.map { [$0] } ?? [])).compactMap { types[$0].flatMap { Self.supportedTypes[$0]?.name } }
        statements.unlogged = zip([tableName] + (self.related.map { [$0.table] } ?? []), shapes).first { !$0.1.logged }?.0
        return statements
    }

    /// Every row, in result order, with its key.
    package func fetchAll(_ connection: PostgresConnection, logger: Logger = Logger(label: "LiveResultsPostgres")) throws -> [(id: RecordID, key: RowKey)] {
        try fetchResult(connection, logger: logger).rows
    }

    /// Every row, in result order, with its key; joined, every related row too, read in the
    /// same snapshot (every row's section then has its related row).
    package func fetchResult(_ connection: PostgresConnection, logger: Logger = Logger(label: "LiveResultsPostgres"))
    throws -> (rows: [(id: RecordID, key: RowKey)], sections: [(id: ColumnValue, row: SectionRow)]) {
        let statements = try prepare(connection, logger: logger)
        return try Self.inSnapshot(connection, logger: logger) {
            let sections = try statements.related?.relatedRows(connection, withCursor: false, logger: logger).rows ?? []
            let rows = try Self.running { try connection.rowsWithinDeadline(statements.selectAll(), logger: logger) }
            let keys = try rows.map { row in
                var cells = row.makeIterator()
                return try statements.decode(&cells)
            }
            return (keys, sections)
        }
    }

    /// Runs `body` in a read-only transaction of one snapshot (REPEATABLE READ).
    package static func inSnapshot<T>(_ connection: PostgresConnection, logger: Logger, _ body: () throws -> T) throws -> T {
        try running {
            _ = try connection.rowsWithinDeadline("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", logger: logger)
            do {
                let result = try body()
                _ = try connection.rowsWithinDeadline("COMMIT", logger: logger)
                return result
            } catch {
                _ = try? connection.rowsWithinDeadline("ROLLBACK", logger: logger)
                throw error
            }
        }
    }

    /// Runs `body`, turning a server's refusal into one sentence; errors of LiveResults pass.
    static func running<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as LiveResultsError {
            throw error
        } catch let error as PSQLError where error.serverInfo?[.message] != nil {
            throw PostgresErrors.readable(error)
        }
    }

    /// A cell as the value SQLite would hold.
    static func value(_ cell: PostgresCell) throws -> ColumnValue {
        guard cell.bytes != nil else { return .null }
        switch cell.dataType {
        case .int2, .int4, .int8: return try cell.decode(Int64.self).columnValue
        case .bool: return (try cell.decode(Bool.self) ? 1 : 0).columnValue
        case .float4, .float8:
            // PostgreSQL sorts NaN above every number; SQLite has no NaN (it stores NULL), and
            // LiveResults' comparison has no place for it.
            let double = try cell.decode(Double.self)
            guard !double.isNaN else {
                throw LiveResultsError(.database, "The column “\(cell.columnName)” holds NaN, which LiveResults cannot order: use NULL instead.")
            }
            return double.columnValue
        case .text, .varchar: return try cell.decode(String.self).columnValue
        case .bytea: return try cell.decode(Data.self).columnValue
        default:
            throw LiveResultsError(.database, "The column “\(cell.columnName)” has a type LiveResults cannot order like SQLite (\(cell.dataType)).")
        }
    }
}
