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

    /// The log's entries a reader at ($1 position, $2 running transactions) reads, of the
    /// table $3: a common table expression named `entries`, with the read's snapshot as
    /// `snapshot`. Every query that reads the log starts with it.
    static let entries = """
        WITH snapshot AS MATERIALIZED (SELECT pg_current_snapshot() AS taken),
        entries AS MATERIALIZED (
            SELECT entry.xid, entry.position, entry.changed_id FROM \(PostgresSQL.identifier(PostgresChangeLog.tableName)) AS entry
            WHERE (entry.position > $1::int8 OR entry.xid = ANY($2::text[]::xid8[])) AND entry.table_name = $3)
        """

    /// The snapshot's running transactions, as text, for the next cursor.
    static let running = "ARRAY(SELECT running::text FROM snapshot, pg_snapshot_xip(snapshot.taken) AS running)"

    /// The bindings of `entries` for `cursor` and `table`.
    static func bindings(_ cursor: ChangeLogCursor, table: String) -> PostgresBindings {
        var bindings = PostgresBindings()
        bindings.append(cursor.position)
        bindings.append(cursor.inProgress.map(String.init))
        bindings.append(table)
        return bindings
    }

    /// Reads the entries of `table` committed since the last read, in position order, and
    /// moves the cursor past them.
    public mutating func read(table: String, connection: PostgresConnection, logger: Logger = Logger(label: "LiveResultsPostgres")) async throws -> [ChangeLogEntry] {
        let sql = Self.entries + "\nSELECT \(Self.running), entries.xid::text, entries.position, entries.changed_id FROM snapshot LEFT JOIN entries ON true"
        var running: [UInt64] = []
        var visible: [ChangeLogEntry] = []
        do {
            let rows = try await connection.query(PostgresQuery(unsafeSQL: sql, binds: Self.bindings(cursor, table: table)), logger: logger)
            for try await (inProgress, xid, position, id) in rows.decode(([String], String?, Int64?, Int64?).self) {
                running = inProgress.compactMap(UInt64.init)
                if let xid = xid.flatMap(UInt64.init), let position {
                    visible.append(ChangeLogEntry(xid: xid, position: position, tableName: table, changedID: id))
                }
            }
        } catch {
            throw LiveResultsPostgresError("The change log could not be read: \(PostgresSQL.message(of: error)).")
        }
        let (read, next) = cursor.advance(over: visible, running: running)
        cursor = next
        return read
    }

    /// The cursor of a result read in the current transaction's snapshot (run it inside that
    /// transaction): after every entry the snapshot sees (and after the pruned mark: pruned
    /// entries are in the result too), waiting for the transactions running then.
    public static func start(connection: PostgresConnection, logger: Logger = Logger(label: "LiveResultsPostgres")) throws -> ChangeLogCursor {
        let sql = """
            SELECT greatest((SELECT max(position) FROM \(PostgresSQL.identifier(PostgresChangeLog.tableName))),
                            (SELECT position FROM \(PostgresSQL.identifier(PostgresChangeLog.prunedTableName))), 0),
                   ARRAY(SELECT running::text FROM pg_snapshot_xip(pg_current_snapshot()) AS running)
            """
        do {
            let rows = try connection.query(PostgresQuery(unsafeSQL: sql), logger: logger).wait()
            guard let (position, running) = try rows.first?.decode((Int64, [String]).self) else {
                throw LiveResultsPostgresError("The change log could not be read: the server returned no position.")
            }
            return ChangeLogCursor(position: position, inProgress: running.compactMap(UInt64.init))
        } catch let error as LiveResultsPostgresError {
            throw error
        } catch {
            throw LiveResultsPostgresError("The change log could not be read: \(PostgresSQL.message(of: error)).")
        }
    }
}
