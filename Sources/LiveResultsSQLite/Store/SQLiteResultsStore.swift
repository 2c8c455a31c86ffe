import Foundation
import GRDB
import LiveResults

/// The rows of an SQLite table (through GRDB): keys from `KeyQuery`, changes from a
/// `SQLiteChangeFeed`, and the section cache, whose validity the table's `ChangeLog` decides.
final class SQLiteResultsStore: ResultsStore {
    let database: any DatabaseWriter
    /// The section cache file; nil for none.
    private let cache: SectionCache?
    /// What the cache must match for the last fetch's request (nil: the table has no change
    /// log, or there is no cache), and the position the file holds (nil: unknown).
    private var cacheStamp: CacheStamp?
    private var savedPosition: Int64?

    init(database: any DatabaseWriter, cache: SectionCache? = nil) {
        self.database = database
        self.cache = cache
    }

    func fetch(_ query: StoreQuery, tracking: Tracking?) throws -> StoreFetch {
        let file = cache
        let keys = KeyQuery(query)
        let (fetched, tracker) = try LiveResultsError.readable {
            try database.writeWithoutTransaction { db -> ((fetch: StoreFetch, stamp: CacheStamp?), ChangeTracker?) in
                try keys.checkColumns(db)
                let rowIDColumn = try db.primaryKey(query.tableName).rowIDColumn
                var fetched: ((fetch: StoreFetch, stamp: CacheStamp?), ChangeTracker?)?
                // One snapshot for the log position, the cache check and the rows; on the writer,
                // so no commit of ours falls between reading and observing.
                try db.inTransaction(.deferred) {
                    let position = try ChangeLog.isInstalled(on: query.tableName, in: db) ? try ChangeLog.position(db) : nil
                    if position != nil, tracking != nil { try ChangeLog.checkCoversColumns(of: query.tableName, in: db) }
                    let stamp = try position.flatMap { position in try file.map { _ in try Self.stamp(db, query: query, position: position) } }
                    let cached = try file.flatMap { file in try stamp.flatMap { try Self.loadCache(file, stamp: $0, keys: keys, db: db) } }
                    let index = try cached ?? keys.fetchIndex(db, sectionName: SectionedIndex.sectionName)
                    var tracker: ChangeTracker?
                    if let tracking {
                        let unique = try ChangeTracker.uniqueColumns(of: query.tableName, in: db)
                        tracker = ChangeTracker(query: keys, rowIDColumn: rowIDColumn, uniqueColumns: unique, logPosition: position, tracking: tracking)
                        if let related = query.relatedSections {
                            let logged = try ChangeLog.isInstalled(on: related.table, in: db)
                            if logged { try ChangeLog.checkCoversColumns(of: related.table, in: db) }
                            try tracker!.trackRelatedRows(db, logged: logged)
                        }
                        db.add(transactionObserver: tracker!, extent: .observerLifetime)
                        tracker!.register(on: db)
                        if position == nil { tracker!.watchUnchangedUpdates(db) }
                    }
                    fetched = ((StoreFetch(index: index, feed: nil, position: position, source: cached == nil ? .database : .cache), stamp), tracker)
                    return .commit
                }
                return fetched!
            }
        }
        cacheStamp = file == nil ? nil : fetched.stamp
        savedPosition = fetched.fetch.source == .cache ? fetched.fetch.position : nil
        guard let tracker, let tracking else { return fetched.fetch }
        var result = fetched.fetch
        result.feed = SQLiteChangeFeed(database: database, tracker: tracker, pollInterval: tracking.pollInterval, minimumLookInterval: tracking.minimumLookInterval)
        return result
    }

    /// Writes the cache file when the index moved past the one on disk.
    func keep(_ index: SectionedIndex, at position: Int64?) throws {
        guard let cache, var stamp = cacheStamp, let position, position != savedPosition else { return }
        stamp.position = position
        try cache.save(index, stamp: stamp)
        savedPosition = position
    }

    func fetchAll(_ query: StoreQuery) throws -> StoreRows {
        let keys = KeyQuery(query)
        return try LiveResultsError.readable {
            try database.read { db in
                let position = try ChangeLog.isInstalled(on: query.tableName, in: db) ? try ChangeLog.position(db) : nil
                let sections = try keys.fetchSectionRows(db).map { (id: $0.key, row: $0.row) }
                return StoreRows(rows: try keys.fetchAll(db), sections: sections, position: position)
            }
        }
    }

    /// Reads the records of `Record`'s table by rowid, decoded by GRDB.
    func recordLoader<Record: FetchableRecord & TableRecord>(_ type: Record.Type) -> RecordLoader<Record> {
        let table = Record.databaseTableName.quotedDatabaseIdentifier
        return { [database] ids in
            guard !ids.isEmpty else { return [:] }
            return try LiveResultsError.readable {
                try database.read { db in
                    var loaded: [RecordID: Record] = [:]
                    var start = 0
                    while start < ids.count {
                        let chunk = ids[start..<min(start + 500, ids.count)]
                        let sql = "SELECT rowid AS \"liveresults_rowid\", * FROM \(table) WHERE rowid IN (\(chunk.map(String.init).joined(separator: ",")))"
                        let cursor = try Row.fetchCursor(db, sql: sql)
                        while let row = try cursor.next() {
                            loaded[row[0]] = try Record(row: row)
                        }
                        start += 500
                    }
                    return loaded
                }
            }
        }
    }
}

extension KeyQuery {
    init(_ query: StoreQuery) {
        self.init(tableName: query.tableName, predicate: query.predicate?.sqlLiteral, sortDescriptors: query.sortDescriptors, sectionColumn: query.sectionColumn,
                  related: query.relatedSections)
    }
}
