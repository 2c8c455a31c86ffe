import Foundation
import GRDB
import LiveResults

// The section cache on SQLite: what a cache file must match, and reading it at a fetch,
// brought up to date from the change log.

extension SQLiteResultsStore {
    /// What a cache for this query must have been made from (position included).
    static func stamp(_ db: Database, query: StoreQuery, position: Int64) throws -> CacheStamp {
        let predicate = try query.predicate.map { predicate in
            // GRDB's text of the literal, as the stamps of earlier versions have it.
            let (sql, arguments) = try predicate.sqlLiteral.build(db)
            return sql + " -- " + arguments.description
        }
        return CacheStamp(
            table: query.tableName,
            schema: try schemaFingerprint(db),
            sortDescriptors: query.sortDescriptors.map { $0.column + ($0.ascending ? " ASC" : " DESC") },
            predicate: predicate ?? "",
            sectionKeyPath: query.relatedSections.map(Self.stampText) ?? query.sectionColumn,
            databaseID: try ChangeLog.databaseID(db),
            position: position)
    }

    /// How a stamp names sections through a relationship.
    private static func stampText(_ related: RelatedSections) -> String {
        "\(related.foreignKey) -> \(related.table).\(related.key), titled by \(related.title), ordered by "
            + related.order.map { $0.column + ($0.ascending ? " ASC" : " DESC") }.joined(separator: ", ")
    }

    /// A hash of the whole schema's SQL. (Not `PRAGMA schema_version`: GRDB creates and drops a
    /// table each time it opens a pool without a WAL file, which bumps it at every launch.)
    private static func schemaFingerprint(_ db: Database) throws -> String {
        var hash = FNV1a()
        let rows = try Row.fetchCursor(db, sql: "SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name")
        while let row = try rows.next() {
            for index in 0..<4 {
                hash.combine((row[index] as String?) ?? "")
                hash.combine(0xFF) // no UTF-8 byte: where one value ends
            }
        }
        return hash.hex
    }

    /// The cached index brought up to `stamp`'s position by replaying the change log, or nil
    /// when there is no usable cache (missing, stale, corrupt, foreign, or too far behind: more
    /// changes than `replayableChanges`).
    ///
    /// Through a relationship, the related rows are read afresh (the file keeps none: never a
    /// stale title), and a cache is used only when the log records the related table and no
    /// related row changed since it was written (a changed one may move sections and bring
    /// rows in or out: that launch fetches).
    static func loadCache(_ file: SectionCache, stamp: CacheStamp, keys: KeyQuery, db: Database) throws -> SectionedIndex? {
        var sectionRows: [(id: ColumnValue, row: SectionRow)] = []
        if let related = keys.related {
            guard try ChangeLog.isInstalled(on: related.table, in: db) else { return nil }
            sectionRows = try keys.fetchSectionRows(db).map { ($0.key, $0.row) }
        }
        guard case (let cached, var index)? = file.load(matching: stamp, ascending: keys.sortDescriptors.map(\.ascending),
                                                       sectionOrder: keys.related?.order.map(\.ascending), sectionRows: sectionRows,
                                                       sectionName: SectionedIndex.sectionName),
              let changed = try ChangeLog.changedRowIDs(db, table: stamp.table, after: cached.position, through: stamp.position),
              changed.count <= replayableChanges(rows: index.count)
        else { return nil }
        if let related = keys.related {
            guard try ChangeLog.changedRowIDs(db, table: related.table, after: cached.position, through: stamp.position)?.isEmpty == true else { return nil }
        }
        let found = try keys.fetchKeys(db, ids: changed.sorted())
        do {
            try index.replay(found, sectionName: SectionedIndex.sectionName)
        } catch {
            return nil
        }
        return index
    }

    /// The most changes a cache of `rows` rows catches up with rather than being fetched again:
    /// a thirty-second of its rows, or a thousand. A change costs a point query and its share of
    /// the replay, a fetch a pass over every row; a change costs more than a fetched row, and
    /// more as the index grows, so the share of the rows up to which replaying stays the faster
    /// shrinks as boards grow: a thirty-second keeps clear of it at the sizes measured (the
    /// figures: "The figures behind the code's limits" in docs/BENCHMARKS.md).
    static func replayableChanges(rows: Int) -> Int {
        max(1_000, rows / 32)
    }
}
