import PostgresNIO

/// Reads the change log from a cursor (see `ChangeLogCursor` for why the cursor is
/// (xid, position) and not a position).
public struct ChangeLogReader: Sendable {
    /// The last entry read (or where reading starts).
    public private(set) var cursor: ChangeLogCursor

    /// A reader that reads the entries after `cursor`.
    public init(cursor: ChangeLogCursor) {
        self.cursor = cursor
    }

    /// One statement, so the snapshot's xmin and the entries come from one snapshot: the
    /// xmin (on every row, and alone on a row of NULLs when there is no entry to read) and the
    /// entries after the cursor below it, in (xid, position) order.
    static let sql = """
        WITH snapshot AS (SELECT pg_snapshot_xmin(pg_current_snapshot()) AS xmin)
        SELECT snapshot.xmin::text, entry.xid::text, entry.position, entry.table_name, entry.changed_id
        FROM snapshot LEFT JOIN \(PostgresSQL.identifier(PostgresChangeLog.tableName)) AS entry
            ON (entry.xid, entry.position) > ($1::text::xid8, $2::int8) AND entry.xid < snapshot.xmin
        ORDER BY entry.xid, entry.position
        """

    /// Reads the entries committed since the last read whose transactions are all older than
    /// every running one, oldest first, and moves the cursor past them.
    public mutating func read(connection: PostgresConnection, logger: Logger = Logger(label: "LiveResultsPostgres")) async throws -> [ChangeLogEntry] {
        let (xmin, entries) = try await fetch(connection: connection, logger: logger)
        let (read, next) = cursor.advance(over: entries, xmin: xmin)
        cursor = next
        return read
    }

    /// What the server returns for the cursor: the snapshot's xmin and the entries the SQL
    /// selects (`advance` applies the same rule again, so a read never depends on one alone).
    func fetch(connection: PostgresConnection, logger: Logger) async throws -> (xmin: UInt64, entries: [ChangeLogEntry]) {
        var binds = PostgresBindings()
        binds.append(String(cursor.xid))
        binds.append(cursor.position)
        var xmin: UInt64?
        var entries: [ChangeLogEntry] = []
        do {
            let rows = try await connection.query(PostgresQuery(unsafeSQL: Self.sql, binds: binds), logger: logger)
            for try await (snapshotXmin, xid, position, table, id) in rows.decode((String, String?, Int64?, String?, Int64?).self) {
                xmin = UInt64(snapshotXmin)
                if let xid, let xid = UInt64(xid), let position, let table {
                    entries.append(ChangeLogEntry(xid: xid, position: position, tableName: table, changedID: id))
                }
            }
        } catch {
            throw LiveResultsPostgresError("The change log could not be read: \(PostgresSQL.message(of: error)).")
        }
        guard let xmin else { throw LiveResultsPostgresError("The change log could not be read: the server returned no snapshot.") }
        return (xmin, entries)
    }

    /// The xmin of the current snapshot. Read it before reading a result (or in the same
    /// snapshot), and start the result's reader at `ChangeLogCursor.start(snapshotXmin:)`:
    /// every transaction below it had ended, so the result includes it; every other one is
    /// read from the log.
    public static func snapshotXmin(connection: PostgresConnection, logger: Logger = Logger(label: "LiveResultsPostgres")) async throws -> UInt64 {
        do {
            let rows = try await connection.query("SELECT pg_snapshot_xmin(pg_current_snapshot())::text", logger: logger)
            for try await text in rows.decode(String.self) {
                if let xmin = UInt64(text) { return xmin }
            }
        } catch {
            throw LiveResultsPostgresError("The snapshot could not be read: \(PostgresSQL.message(of: error)).")
        }
        throw LiveResultsPostgresError("The snapshot could not be read: the server returned no xmin.")
    }
}
