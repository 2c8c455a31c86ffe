import GRDB
import LiveResults
import PostgresNIO

/// One read of the change log for a controller, in one statement (so one snapshot): the
/// entries after the cursor of transactions older than every running one (`ChangeLogCursor`),
/// the pruned mark, and the current key of each row they name: where it sorts now, or that it
/// left the result.
///
/// Reading keys at read time, not the values each commit wrote, makes reading an entry twice
/// harmless: a row read again reports an update of the values it has.
struct LogRead: Sendable {
    private let sql: String
    private let predicate: PostgresPredicate?
    private let tableName: String
    private let keys: PostgresKeyQuery.Statements

    /// What one read found.
    struct Found {
        /// The oldest transaction still running when the read ran.
        var xmin: UInt64
        /// The last entry the log deleted, if any.
        var pruned: ChangeLogCursor?
        /// The last entry read, if any.
        var last: ChangeLogCursor?
        /// Whether an entry said every row may have changed (TRUNCATE).
        var everyRow: Bool
        /// Each row the entries named, with its key now (nil: gone, or no longer matching).
        var rows: [(id: RecordID, key: RowKey?)]
    }

    init(_ keys: PostgresKeyQuery.Statements) throws {
        self.keys = keys
        tableName = keys.query.tableName
        let (filter, predicate) = try keys.filter(firstParameter: 4)
        self.predicate = predicate
        let matches = filter.isEmpty ? "true" : String(filter.dropFirst(" WHERE ".count))
        let log = PostgresSQL.identifier(PostgresChangeLog.tableName)
        let pruned = PostgresSQL.identifier(PostgresChangeLog.prunedTableName)
        // A lateral subquery reads the row, so the predicate's bare column names mean the
        // table's columns and nothing of the log.
        sql = """
            WITH snapshot AS MATERIALIZED (SELECT pg_snapshot_xmin(pg_current_snapshot()) AS xmin),
            entries AS MATERIALIZED (
                SELECT entry.xid, entry.position, entry.changed_id FROM \(log) AS entry, snapshot
                WHERE (entry.xid, entry.position) > ($1::text::xid8, $2::int8) AND entry.xid < snapshot.xmin
                    AND entry.table_name = $3)
            SELECT snapshot.xmin::text, mark.xid::text, mark.position, last.xid::text, last.position,
                EXISTS (SELECT 1 FROM entries WHERE changed_id IS NULL), changed.changed_id,
                row.*
            FROM snapshot
            LEFT JOIN \(pruned) AS mark ON true
            LEFT JOIN (SELECT xid, position FROM entries ORDER BY xid DESC, position DESC LIMIT 1) AS last ON true
            LEFT JOIN (SELECT DISTINCT changed_id FROM entries WHERE changed_id IS NOT NULL) AS changed ON true
            LEFT JOIN LATERAL (
                SELECT \(keys.selection()), (\(matches)) AS liveresults_matches
                FROM \(PostgresSQL.identifier(tableName)) WHERE \(PostgresSQL.identifier(keys.query.idColumn)) = changed.changed_id
            ) AS row ON true
            """
    }

    /// The statement for a reader at `cursor`.
    func query(after cursor: ChangeLogCursor) -> PostgresQuery {
        var bindings = PostgresBindings()
        bindings.append(String(cursor.xid))
        bindings.append(cursor.position)
        bindings.append(tableName)
        predicate?.bind(into: &bindings)
        return PostgresQuery(unsafeSQL: sql, binds: bindings)
    }

    /// What the rows of `query(after:)` say.
    func decode(_ rows: PostgresQueryResult) throws -> Found {
        var found = Found(xmin: 0, pruned: nil, last: nil, everyRow: false, rows: [])
        for row in rows {
            var cells = row.makeIterator()
            let header = try row.decode((String, String?, Int64?, String?, Int64?, Bool, Int64?).self)
            for _ in 0..<7 { _ = cells.next() }
            found.xmin = UInt64(header.0) ?? 0
            if let xid = header.1.flatMap(UInt64.init), let position = header.2 { found.pruned = ChangeLogCursor(xid: xid, position: position) }
            if let xid = header.3.flatMap(UInt64.init), let position = header.4 { found.last = ChangeLogCursor(xid: xid, position: position) }
            found.everyRow = header.5
            guard let changedID = header.6 else { continue }
            var keyCells = cells
            guard let idCell = keyCells.next(), idCell.bytes != nil else {
                found.rows.append((changedID, nil)) // Deleted.
                continue
            }
            let (id, key) = try keys.decode(&cells)
            let matches = try cells.next()?.decode(Bool?.self) ?? false
            found.rows.append((id, matches == true ? key : nil))
        }
        return found
    }
}
