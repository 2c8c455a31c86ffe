import PostgresNIO

/// Reads the change log from a cursor (see `ChangeLogCursor` for why the cursor holds the
/// running transactions and not only a position).
public struct ChangeLogReader: Sendable {
    /// Where the next read starts.
    public private(set) var cursor: ChangeLogCursor

    /// A reader that reads the entries after `cursor`.
    public init(cursor: ChangeLogCursor) {
        self.cursor = cursor
    }

    /// The log's entries a reader at ($1 position, $2 running transactions, $3 the first
    /// unfinished transaction) reads, of the table $4: a common table expression named
    /// `entries`, with the read's snapshot as `snapshot`. Every query that reads the log
    /// starts with it.
    static let entries = """
        WITH snapshot AS MATERIALIZED (SELECT pg_current_snapshot() AS taken),
        entries AS MATERIALIZED (
            SELECT entry.xid, entry.position, entry.changed_id FROM \(PostgresSQL.identifier(PostgresChangeLog.tableName)) AS entry
            WHERE (entry.position > $1::int8 OR entry.xid = ANY($2::text[]::xid8[]) OR entry.xid >= $3::text::xid8)
                AND entry.table_name = $4)
        """

    /// The read's snapshot as text (`ChangeLogSnapshot(text:)`), for the next cursor.
    static let snapshotText = "snapshot.taken::text"

    /// The first parameter after those of `entries`.
    static let firstFreeParameter = 5

    /// The snapshot of `text`, or an error in one sentence.
    static func snapshot(_ text: String) throws -> ChangeLogSnapshot {
        guard let snapshot = ChangeLogSnapshot(text: text) else {
            throw LiveResultsPostgresError("The change log could not be read: the server returned a snapshot it does not describe.")
        }
        return snapshot
    }

    /// The bindings of `entries` for `cursor` and `table`.
    static func bindings(_ cursor: ChangeLogCursor, table: String) -> PostgresBindings {
        var bindings = PostgresBindings()
        bindings.append(cursor.position)
        bindings.append(cursor.inProgress.map(String.init))
        bindings.append(String(cursor.unfinishedFrom))
        bindings.append(table)
        return bindings
    }

    /// Reads the entries of `table` committed since the last read, in position order, and
    /// moves the cursor past them.
    public mutating func read(table: String, connection: PostgresConnection, logger: Logger = Logger(label: "LiveResultsPostgres")) async throws -> [ChangeLogEntry] {
        let sql = Self.entries + "\nSELECT \(Self.snapshotText), entries.xid::text, entries.position, entries.changed_id FROM snapshot LEFT JOIN entries ON true"
        var snapshotText = ""
        var visible: [ChangeLogEntry] = []
        do {
            let rows = try await connection.query(PostgresQuery(unsafeSQL: sql, binds: Self.bindings(cursor, table: table)), logger: logger)
            for try await (text, xid, position, id) in rows.decode((String, String?, Int64?, Int64?).self) {
                snapshotText = text
                if let xid = xid.flatMap(UInt64.init), let position {
                    visible.append(ChangeLogEntry(xid: xid, position: position, tableName: table, changedID: id))
                }
            }
        } catch {
            throw LiveResultsPostgresError("The change log could not be read: \(PostgresSQL.message(of: error)).")
        }
        let (read, next) = cursor.advance(over: visible, snapshot: try Self.snapshot(snapshotText))
        cursor = next
        return read
    }

    /// The cursor of a result read in the current transaction's snapshot (run it inside that
    /// transaction): after every entry the snapshot sees (and after the pruned mark: pruned
    /// entries are in the result too), waiting for the transactions that had not committed then.
    public static func start(connection: PostgresConnection, logger: Logger = Logger(label: "LiveResultsPostgres")) throws -> ChangeLogCursor {
        try reading {
            let rows = try connection.rowsWithinDeadline(PostgresQuery(unsafeSQL: "SELECT " + startColumns), logger: logger)
            guard let row = rows.first else { throw LiveResultsPostgresError("The change log could not be read: the server returned no position.") }
            var cells = row.makeIterator()
            return try start(from: &cells)
        }
    }

    /// The two columns of `start`'s cursor, for a statement that reads them beside other
    /// columns (in the same snapshot, a round trip less): the position, then the snapshot.
    static let startColumns = """
        greatest((SELECT max(position) FROM \(PostgresSQL.identifier(PostgresChangeLog.tableName))),
                 (SELECT position FROM \(PostgresSQL.identifier(PostgresChangeLog.prunedTableName))), 0),
        pg_current_snapshot()::text
        """

    /// The cursor from `startColumns`' two cells, the next of `cells`.
    static func start(from cells: inout PostgresRow.Iterator) throws -> ChangeLogCursor {
        try reading {
            guard let positionCell = cells.next(), let snapshotCell = cells.next() else {
                throw LiveResultsPostgresError("The change log could not be read: the server returned no position.")
            }
            let position = try positionCell.decode(Int64.self)
            return ChangeLogCursor(position: position).after(nil, snapshot: try snapshot(try snapshotCell.decode(String.self)))
        }
    }

    /// Runs `body`, a read of the log's position, saying in one sentence why it failed.
    private static func reading<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as LiveResultsPostgresError {
            throw error
        } catch {
            throw LiveResultsPostgresError("The change log could not be read: \(PostgresSQL.message(of: error)).")
        }
    }
}
