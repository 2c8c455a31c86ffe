import LiveResults
import PostgresNIO

/// One read of the change log for a controller, in one statement (so one snapshot): the
/// entries after the cursor (`ChangeLogCursor`), the transactions still running, the pruned
/// mark, and the current key of each row the entries name: where it sorts now, or that it
/// left the result.
///
/// Reading keys at read time, not the values each commit wrote, makes reading an entry twice
/// harmless: a row read again reports an update of the values it has.
struct LogRead: Sendable {
    private let sql: String
    private let predicate: PostgresPredicate?
    private let tableName: String
    /// The controller's key query, whose selection and predicate the read uses.
    let keys: PostgresKeyQuery.Statements

    /// What one read found.
    struct Found {
        /// The read's snapshot: which transactions had not committed.
        var snapshot = ChangeLogSnapshot()
        /// What pruning deleted, if anything.
        var pruned: PrunedMark?
        /// The highest position read, if any entry was.
        var lastPosition: Int64?
        /// Whether an entry said every row may have changed (TRUNCATE).
        var everyRow = false
        /// Each row the entries named, with its key now (nil: gone, or no longer matching).
        var rows: [(id: RecordID, key: RowKey?)] = []
        /// The transactions whose entries named each row of `rows`.
        var transactions: [RecordID: [UInt64]] = [:]
        /// Joined: the related rows the entries named, each with its section row now (nil: gone).
        var sections: [(id: ColumnValue, row: SectionRow?)] = []
        /// Joined: every related key, when the read was asked for them (`RelatedKeys`).
        var relatedKeys: [Int64]?
        /// Joined: the rows of `rows` read by foreign key, because their related row appeared
        /// or went (maybe named by entries too).
        var rejoined: Set<RecordID> = []
        /// Joined: the rows of `rejoined` no entry named, which the commits did not write
        /// (`CommittedChange.readByForeignKey`).
        var readByForeignKey: Set<RecordID> = []
    }

    init(_ keys: PostgresKeyQuery.Statements) throws {
        self.keys = keys
        tableName = keys.query.tableName
        if let related = keys.related {
            (sql, predicate) = try Self.joined(keys, related)
            return
        }
        let (matches, predicate) = try keys.matches(firstParameter: ChangeLogReader.firstFreeParameter)
        self.predicate = predicate
        let pruned = PostgresSQL.identifier(PostgresChangeLog.prunedTableName)
        // A lateral subquery reads the row, so the predicate's bare column names mean the
        // table's columns and nothing of the log.
        sql = ChangeLogReader.entries + """

            SELECT \(ChangeLogReader.snapshotText), mark.position, mark.xid::text, (SELECT max(position) FROM entries),
                EXISTS (SELECT 1 FROM entries WHERE changed_id IS NULL), changed.changed_id, changed.xids, row.*
            FROM snapshot
            LEFT JOIN \(pruned) AS mark ON true
            LEFT JOIN (SELECT changed_id, array_agg(DISTINCT xid::text) AS xids FROM entries WHERE changed_id IS NOT NULL
                       GROUP BY changed_id) AS changed ON true
            LEFT JOIN LATERAL (
                SELECT \(keys.selection()), (\(matches)) AS liveresults_matches
                FROM \(PostgresSQL.identifier(tableName)) WHERE \(PostgresSQL.identifier(keys.query.idColumn)) = changed.changed_id
            ) AS row ON true
            """
    }

    /// The statement for a reader at `cursor`; joined, `related` says which related rows
    /// existed at the cursor.
    func query(after cursor: ChangeLogCursor, related: RelatedKeys = RelatedKeys()) -> PostgresQuery {
        var bindings = ChangeLogReader.bindings(cursor, table: tableName)
        if let joined = keys.related { related.bind(table: joined.sections.table, into: &bindings) }
        predicate?.bind(into: &bindings)
        return PostgresQuery(unsafeSQL: sql, binds: bindings)
    }

    /// What the rows of `query(after:)` say.
    func decode(_ rows: some Sequence<PostgresRow>) throws -> Found {
        if let related = keys.related { return try decodeJoined(rows, related) }
        var found = Found()
        for row in rows {
            let header = try row.decode((String, Int64?, String?, Int64?, Bool, Int64?, [String]?).self)
            var cells = row.makeIterator()
            for _ in 0..<7 { _ = cells.next() }
            try found.readLog(snapshot: header.0, prunedPosition: header.1, prunedXID: header.2, lastPosition: header.3, everyRow: header.4)
            guard let changedID = header.5 else { continue }
            found.transactions[changedID] = (header.6 ?? []).compactMap { UInt64($0) }
            guard let changed = try decodeChanged(&cells) else {
                found.rows.append((changedID, nil)) // Deleted.
                continue
            }
            found.rows.append((changed.id, changed.matches ? changed.key : nil))
        }
        return found
    }

    /// The changed row's cells, after a read row's header: nil when there is no row (it was
    /// deleted), else its id, its key and whether it matches the predicate.
    func decodeChanged(_ cells: inout PostgresRow.Iterator) throws -> (id: RecordID, key: RowKey, matches: Bool)? {
        var peek = cells
        guard let idCell = peek.next(), idCell.bytes != nil else { return nil }
        let (id, key) = try keys.decode(&cells)
        let matches = try cells.next()?.decode(Bool?.self) ?? false
        return (id, key, matches == true)
    }
}

extension LogRead.Found {
    /// Reads the columns every row of a read begins with (the same on each): the read's
    /// snapshot, the pruned mark, the highest position, and whether an entry named every row.
    mutating func readLog(snapshot: String, prunedPosition: Int64?, prunedXID: String?, lastPosition: Int64?, everyRow: Bool) throws {
        self.snapshot = try ChangeLogReader.snapshot(snapshot)
        if let prunedPosition, let xid = prunedXID.flatMap(UInt64.init) { pruned = PrunedMark(position: prunedPosition, xid: xid) }
        self.lastPosition = lastPosition
        self.everyRow = everyRow
    }
}
