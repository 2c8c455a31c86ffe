import LiveResults
import PostgresNIO

// The log read of a controller whose sections come through a related table
// (`PostgresRelatedQuery`): the entries of both tables, read in one statement after one cursor
// (positions and transactions are the log's, whatever the table).
//
// A related row changed in place (renamed, moved) is read alone: its new title and order make
// a section update or move, and no row of the main table is read. Only a related row that
// appeared or went since the last read changes which rows the inner join keeps: the rows whose
// foreign key names it are read again then, through the foreign key's index. Which related rows
// existed at the cursor is `RelatedKeys`, which the feed keeps from read to read.

/// The keys of the related rows that existed at a joined feed's cursor, which tell a related
/// row changed in place from one that appeared or went. Unknown at first, and after a read that
/// may have missed entries: a read then takes every named related row as appeared or gone (its
/// rows are read again, which is always right), and brings every key back.
///
/// With the keys, the title and order of each related row as the feed's result has it, where
/// known: a write of this process hands its rows over only when their sections are as the
/// result has them (`knows(_:as:)`). A section row the write read differently was changed by a
/// commit the feed has not applied yet (a zone made or moved just before): applying the write
/// alone would order its section among stale ones, so the log brings both, in order.
struct RelatedKeys: Sendable {
    private(set) var keys: Set<Int64> = []
    private(set) var known = false
    /// The title and order of the keys the feed has read them for (a read of every key brings
    /// keys alone).
    private var rows: [Int64: SectionRow] = [:]

    /// Unknown keys (the first read brings them).
    init() {}

    /// The related rows of a fetch, read in its snapshot.
    init(_ sections: [(id: ColumnValue, row: SectionRow)]) {
        for (id, row) in sections {
            guard case .integer(let key) = id else { continue }
            keys.insert(key)
            rows[key] = row
        }
        known = true
    }

    /// Whether the related row `key` existed at the cursor with exactly `row`'s title and order.
    func knows(_ key: Int64, as row: SectionRow) -> Bool {
        known && rows[key] == row
    }

    /// Records a related row's new title and order, applied from a write of this process.
    mutating func applied(_ key: Int64, _ row: SectionRow) {
        guard known, keys.contains(key) else { return }
        rows[key] = row
    }

    /// Binds the read's parameters from $5: the related table, the keys, whether they are unknown.
    func bind(table: String, into bindings: inout PostgresBindings) {
        bindings.append(table)
        bindings.append(Array(keys))
        bindings.append(!known)
    }

    /// The first parameter after the joined read's own.
    static let firstFreeParameter = ChangeLogReader.firstFreeParameter + 3

    /// The keys after a read that found `found`; `missed`: the read may have missed entries.
    mutating func update(after found: LogRead.Found, missed: Bool) {
        if let all = found.relatedKeys {
            keys = Set(all)
            rows = [:]
            known = true
        }
        if missed {
            known = false
            rows = [:]
            return
        }
        for (id, row) in found.sections {
            guard case .integer(let key) = id else { continue }
            keys.remove(key)
            rows[key] = nil
            if let row {
                keys.insert(key)
                rows[key] = row
            }
        }
    }
}

extension LogRead {
    /// The joined read's SQL and predicate.
    static func joined(_ keys: PostgresKeyQuery.Statements, _ related: PostgresRelatedQuery) throws -> (String, PostgresPredicate?) {
        let (matches, predicate) = try keys.matches(firstParameter: RelatedKeys.firstFreeParameter)
        let query = keys.query
        let main = PostgresSQL.identifier(query.tableName)
        let id = PostgresSQL.identifier(query.idColumn)
        let foreignKey = PostgresSQL.identifier(related.sections.foreignKey)
        let relatedKey = PostgresSQL.identifier(related.sections.key)
        let log = PostgresSQL.identifier(PostgresChangeLog.tableName)
        let pruned = PostgresSQL.identifier(PostgresChangeLog.prunedTableName)
        let sql = ChangeLogReader.entries + """
            ,
            related_entries AS MATERIALIZED (
                SELECT entry.xid, entry.position, entry.changed_id FROM \(log) AS entry
                WHERE (entry.position > $1::int8 OR entry.xid = ANY($2::text[]::xid8[]) OR entry.xid >= $3::text::xid8)
                    AND entry.table_name = $5),
            related_changed AS MATERIALIZED (
                SELECT changed_id, array_agg(DISTINCT xid::text) AS xids FROM related_entries WHERE changed_id IS NOT NULL
                GROUP BY changed_id),
            rejoined AS MATERIALIZED (
                SELECT joined.\(id) AS changed_id FROM related_changed
                JOIN \(main) AS joined ON joined.\(foreignKey) = related_changed.changed_id
                WHERE $7::bool
                    OR EXISTS (SELECT 1 FROM \(related.table) AS present WHERE present.\(relatedKey) = related_changed.changed_id)
                       <> (related_changed.changed_id = ANY($6::int8[])))
            SELECT \(ChangeLogReader.snapshotText), mark.position, mark.xid::text,
                greatest((SELECT max(position) FROM entries), (SELECT max(position) FROM related_entries)),
                EXISTS (SELECT 1 FROM entries WHERE changed_id IS NULL) OR EXISTS (SELECT 1 FROM related_entries WHERE changed_id IS NULL),
                changed.changed_id, changed.xids, changed.is_related, changed.is_rejoined,
                CASE WHEN $7::bool THEN (SELECT coalesce(array_agg(every.\(relatedKey)::int8), '{}') FROM \(related.table) AS every) END,
                row.*, section.*
            FROM snapshot
            LEFT JOIN \(pruned) AS mark ON true
            LEFT JOIN (
                SELECT changed_id, array_remove(array_agg(DISTINCT xid), NULL) AS xids, false AS is_related,
                    bool_or(xid IS NULL) AS is_rejoined FROM (
                    SELECT changed_id, xid::text AS xid FROM entries WHERE changed_id IS NOT NULL
                    UNION ALL SELECT changed_id, NULL FROM rejoined) AS named
                GROUP BY changed_id
                UNION ALL SELECT changed_id, xids, true, false FROM related_changed
            ) AS changed ON true
            LEFT JOIN LATERAL (
                SELECT \(keys.selection()), (\(matches)) AS liveresults_matches, \(foreignKey) AS liveresults_section_key
                FROM \(main) WHERE \(id) = changed.changed_id AND NOT changed.is_related
            ) AS row ON true
            LEFT JOIN LATERAL (
                \(related.lateralRow(keyedBy: "CASE WHEN changed.is_related THEN changed.changed_id ELSE row.liveresults_section_key END"))
            ) AS section ON true
            """
        return (sql, predicate)
    }

    /// What the rows of the joined read say: the main table's rows as `decode` reads them (a
    /// row whose related row is gone has left the result), the related rows named, and which
    /// rows were read by foreign key (`rejoined`), and of those which no entry named
    /// (`readByForeignKey`: they have no transaction of their own).
    func decodeJoined(_ rows: some Sequence<PostgresRow>, _ related: PostgresRelatedQuery) throws -> Found {
        var found = Found()
        for row in rows {
            let header = try row.decode((String, Int64?, String?, Int64?, Bool, Int64?, [String]?, Bool?, Bool?, [Int64]?).self)
            var cells = row.makeIterator()
            for _ in 0..<10 { _ = cells.next() }
            try found.readLog(snapshot: header.0, prunedPosition: header.1, prunedXID: header.2, lastPosition: header.3, everyRow: header.4)
            if let keys = header.9 { found.relatedKeys = keys }
            guard let changedID = header.5 else { continue }
            let transactions = (header.6 ?? []).compactMap { UInt64($0) }
            if header.7 == true {
                for _ in 0..<(keys.keyColumns.count + 2) { _ = cells.next() }
                let section = try related.decode(&cells)
                found.sections.append((changedID.columnValue, section?.row))
                continue
            }
            found.transactions[changedID] = transactions
            if header.8 == true {
                found.rejoined.insert(changedID)
                if transactions.isEmpty { found.readByForeignKey.insert(changedID) }
            }
            guard let changed = try decodeChanged(&cells) else {
                found.rows.append((changedID, nil)) // Deleted.
                continue
            }
            _ = cells.next() // The foreign key again, which `key` holds as its section.
            let section = try related.decode(&cells)
            found.rows.append((changed.id, changed.matches && section != nil ? changed.key : nil))
        }
        return found
    }
}
