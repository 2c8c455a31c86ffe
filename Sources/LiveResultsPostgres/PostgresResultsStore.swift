import Foundation
import LiveResults
import NIOCore
import PostgresNIO

extension ResultsController where Record: ColumnRowRecord {
    /// A controller over a table of a PostgreSQL database, with the contract it has on SQLite.
    ///
    /// The table needs an integer id column (`idColumn`, the records' `RecordID`) and, for a
    /// delegate to hear of changes, `PostgresChangeLog.install(on:)`. Sort columns are
    /// integers, reals, text, varchar, bool or bytea; text is ordered by its UTF-8 bytes (as
    /// on SQLite), whatever the database's collation. The predicate is SQL both servers
    /// understand, with positional arguments. There is no section cache on PostgreSQL.
    public convenience init(database: PostgresReader, fetchRequest: ResultsRequest<Record>, sectionNameKeyPath: String? = nil,
                            idColumn: String = "id") {
        let store = PostgresResultsStore(database: database, idColumn: idColumn)
        self.init(store: store, tableName: Record.databaseTableName, loadRecords: store.recordLoader(Record.self, table: Record.databaseTableName),
                  decodeRecord: store.recordDecoder(Record.self), fetchRequest: fetchRequest, sectionNameKeyPath: sectionNameKeyPath)
    }

    /// A controller over a table of a PostgreSQL database whose sections are the rows of a
    /// related table (`RelatedSections`), as on SQLite: titled and ordered by the related row,
    /// identified by its key, so that a section can be renamed (a section update) and
    /// reordered (a section move). For a delegate to hear of changes, both tables need
    /// `PostgresChangeLog.install(on:)`; index the foreign key, which a related row inserted or
    /// deleted makes the controller look rows up by.
    public convenience init(database: PostgresReader, fetchRequest: ResultsRequest<Record>, sections: RelatedSections, idColumn: String = "id") {
        let store = PostgresResultsStore(database: database, idColumn: idColumn)
        self.init(store: store, tableName: Record.databaseTableName, loadRecords: store.recordLoader(Record.self, table: Record.databaseTableName),
                  decodeRecord: store.recordDecoder(Record.self), fetchRequest: fetchRequest, relatedSections: sections)
    }
}

/// The rows of a PostgreSQL table: keys from `PostgresKeyQuery`, changes from a
/// `PostgresChangeFeed` over the table's `PostgresChangeLog`.
final class PostgresResultsStore: ResultsStore {
    let database: PostgresReader
    let idColumn: String
    /// The statements of the last fetch's table, for loading records.
    private var records: PostgresKeyQuery.Statements?

    init(database: PostgresReader, idColumn: String) {
        self.database = database
        self.idColumn = idColumn
    }

    private var logger: Logger { database.logger }

    private func keyQuery(_ query: StoreQuery) -> PostgresKeyQuery {
        PostgresKeyQuery(tableName: query.tableName, idColumn: idColumn, sortDescriptors: query.sortDescriptors,
                         sectionColumn: query.sectionColumn, predicate: query.predicate, related: query.relatedSections)
    }

    func fetch(_ query: StoreQuery, tracking: Tracking?) throws -> StoreFetch {
        let keys = keyQuery(query)
        let statements = try database.read { try keys.prepare($0, logger: logger) }
        // LISTEN first, read second: a commit between the two is then in the log after the
        // snapshot's cursor, and the feed reads it.
        var feed: PostgresChangeFeed?
        if let tracking {
            // Sections through a related table follow its commits too, from its own log.
            if let unlogged = statements.unlogged {
                throw LiveResultsError(.database, "The table “\(unlogged)” has no change log to follow: install one with PostgresChangeLog.install(on:), or fetch without a delegate.")
            }
            feed = try PostgresChangeFeed(database: database, read: LogRead(statements),
                                          channel: PostgresChangeLog.channel(for: query.tableName), tracking: tracking)
        }
        let (index, cursor, related) = try database.read { connection in try snapshot(keys, statements, tracking: feed != nil, connection) }
        if let cursor { feed?.start(at: cursor, related: related) }
        records = statements
        return StoreFetch(index: index, feed: feed)
    }

    /// The whole result and, when `tracking`, the change log cursor of the snapshot it was read
    /// in; joined, the keys of the related rows in that snapshot too.
    private func snapshot(_ keys: PostgresKeyQuery, _ statements: PostgresKeyQuery.Statements, tracking: Bool,
                          _ connection: PostgresConnection) throws -> (SectionedIndex, ChangeLogCursor?, RelatedKeys) {
        try PostgresKeyQuery.inSnapshot(connection, logger: logger) {
            // Joined, the related rows carry the cursor: one statement for both.
            let related = try statements.related?.relatedRows(connection, withCursor: tracking, logger: logger)
            let cursor = related != nil ? related?.cursor : tracking ? try ChangeLogReader.start(connection: connection, logger: logger) : nil
            let sections = related?.rows ?? []
            let index = try keys.fetchIndex(connection, statements: statements, sections: sections, logger: logger)
            return (index, cursor, statements.related == nil ? RelatedKeys() : RelatedKeys(sections))
        }
    }

    func fetchAll(_ query: StoreQuery) throws -> StoreRows {
        let keys = keyQuery(query)
        let (rows, sections) = try database.read { try keys.fetchResult($0, logger: logger) }
        return StoreRows(rows: rows, sections: sections, position: nil)
    }

    /// Reads the records of `table` by id, each decoded (`ColumnRowRecord`) from its row's
    /// values as SQLite would hand them over.
    func recordLoader<Record: ColumnRowRecord>(_ type: Record.Type, table: String) -> RecordLoader<Record> {
        { [self] ids in
            guard !ids.isEmpty else { return [:] }
            return try database.read { connection in
                let statements = try records ?? PostgresKeyQuery(tableName: table, idColumn: idColumn, sortDescriptors: [])
                    .prepare(connection, logger: logger)
                var loaded: [RecordID: Record] = [:]
                var start = 0
                while start < ids.count {
                    let chunk = Array(ids[start..<min(start + 1000, ids.count)])
                    let rows = try PostgresKeyQuery.running {
                        try connection.rowsWithinDeadline(statements.selectRecords(ids: chunk), logger: logger)
                    }
                    for row in rows {
                        var columns = RecordColumns()
                        for cell in row { columns[cell.columnName] = try PostgresKeyQuery.recordValue(cell) }
                        if case .integer(let id)? = columns[idColumn] { loaded[id] = try PostgresKeyQuery.record(Record.self, from: columns) }
                    }
                    start += 1000
                }
                return loaded
            }
        }
    }

    /// Decodes a row a write returned whole, as `recordLoader` reads it.
    func recordDecoder<Record: ColumnRowRecord>(_ type: Record.Type) -> RecordDecoder<Record> {
        { columns in try PostgresKeyQuery.record(Record.self, from: columns) }
    }
}
