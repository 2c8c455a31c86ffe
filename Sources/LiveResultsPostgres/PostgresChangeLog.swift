import PostgresNIO

/// The change log of a PostgreSQL database: triggers record the id of every row an insert,
/// update or delete touches, with the transaction that touched it, and wake listeners.
///
/// Each entry has a `position` (a sequence: it only grows, but transactions commit in any
/// order, so positions do not become visible in order) and the `xid` of its transaction. A
/// reader keeps a `ChangeLogCursor` over (xid, position) and reads only the entries of
/// transactions that every snapshot now sees as finished (`ChangeLogCursor`), so an entry is
/// never skipped because a later position committed first.
///
/// After each statement that changes a tracked table, a `NOTIFY` on `channel(for:)` tells
/// listeners to read the log; the notification carries nothing more: the log stays the truth.
/// Install it once per tracked table; it is idempotent:
///
/// ```swift
/// try await PostgresChangeLog.install(on: "team", connection: connection)
/// ```
///
/// Not recorded: `TRUNCATE` (it fires no row trigger). Entries are never pruned yet.
public enum PostgresChangeLog {
    /// The table of entries: `position`, `xid`, `table_name`, `changed_id`.
    public static let tableName = "liveresults_change"

    /// The channel a tracked table's statements notify: `liveresults_` and the table's name.
    /// Throws when the name is too long for a channel (63 bytes) or holds a double quote.
    public static func channel(for table: String) throws -> String {
        let channel = "liveresults_" + table
        guard channel.utf8.count <= 63, !channel.contains("\"") else {
            throw LiveResultsPostgresError("The table name “\(table)” cannot name a notification channel: it must be at most 51 bytes long and hold no double quote.")
        }
        return channel
    }

    /// Creates the log (if needed) and the triggers that record every insert, update and
    /// delete of `table` (whose integer id column is `idColumn`) and notify its channel.
    /// An update that changes the id records both the old and the new id.
    ///
    /// Every statement is idempotent: run it inside the migration's transaction to make it all
    /// or nothing, or again after a failure.
    public static func install(
        on table: String,
        idColumn: String = "id",
        connection: PostgresConnection,
        logger: Logger = Logger(label: "LiveResultsPostgres")
    ) async throws {
        let channel = try channel(for: table)
        let log = PostgresSQL.identifier(tableName)
        let target = PostgresSQL.identifier(table)
        // One statement per query (the extended protocol runs one at a time), and no
        // BEGIN/COMMIT of our own, which would commit a caller's transaction.
        let statements = [
            """
            CREATE TABLE IF NOT EXISTS \(log) (
                position bigserial PRIMARY KEY,
                xid xid8 NOT NULL DEFAULT pg_current_xact_id(),
                table_name text NOT NULL,
                changed_id bigint NOT NULL)
            """,
            // Readers look entries up by (xid, position) after their cursor.
            "CREATE INDEX IF NOT EXISTS liveresults_change_xid_position ON \(log) (xid, position)",
            // One function serves every table: TG_ARGV[0] is the table's name as logged,
            // TG_ARGV[1] its id column.
            """
            CREATE OR REPLACE FUNCTION liveresults_log_row() RETURNS trigger LANGUAGE plpgsql AS $$
            DECLARE
                old_id bigint;
                new_id bigint;
            BEGIN
                IF TG_OP <> 'INSERT' THEN old_id := (to_jsonb(OLD) ->> TG_ARGV[1])::bigint; END IF;
                IF TG_OP <> 'DELETE' THEN new_id := (to_jsonb(NEW) ->> TG_ARGV[1])::bigint; END IF;
                IF old_id IS NOT NULL THEN
                    INSERT INTO \(log) (table_name, changed_id) VALUES (TG_ARGV[0], old_id);
                END IF;
                IF new_id IS NOT NULL AND new_id IS DISTINCT FROM old_id THEN
                    INSERT INTO \(log) (table_name, changed_id) VALUES (TG_ARGV[0], new_id);
                END IF;
                RETURN NULL;
            END $$
            """,
            """
            CREATE OR REPLACE FUNCTION liveresults_notify() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                PERFORM pg_notify(TG_ARGV[0], '');
                RETURN NULL;
            END $$
            """,
            """
            CREATE OR REPLACE TRIGGER liveresults_log AFTER INSERT OR UPDATE OR DELETE ON \(target)
            FOR EACH ROW EXECUTE FUNCTION liveresults_log_row(\(PostgresSQL.literal(table)), \(PostgresSQL.literal(idColumn)))
            """,
            // Statement level: one notification per statement, and PostgreSQL folds equal
            // notifications of one transaction into one, delivered at commit.
            """
            CREATE OR REPLACE TRIGGER liveresults_notify AFTER INSERT OR UPDATE OR DELETE ON \(target)
            FOR EACH STATEMENT EXECUTE FUNCTION liveresults_notify(\(PostgresSQL.literal(channel)))
            """,
        ]
        do {
            for statement in statements {
                try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
            }
        } catch {
            throw LiveResultsPostgresError("The change log could not be installed on “\(table)”: \(PostgresSQL.message(of: error)).")
        }
    }
}
