import PostgresNIO

/// The change log of a PostgreSQL database: triggers record the id of every row an insert,
/// update or delete touches, with the transaction that touched it, and wake listeners.
///
/// Each entry has a `position` (a sequence: it only grows, but transactions commit in any
/// order, so positions do not become visible in order) and the `xid` of its transaction. A
/// reader's `ChangeLogCursor` holds a position and the transactions that were running at its
/// last read, so an entry is never skipped because a later position committed first.
///
/// When a transaction that changed a tracked table commits, one `NOTIFY` on `channel(for:)`
/// carries what it wrote (`NotifiedCommit`: its id, and each entry's position, row id and the
/// row's `payloadColumns` after it), so that a feed whose cursor it follows applies it without
/// reading the log; a transaction too large for one payload sends a cut one, and the feed
/// reads the log. The log stays the truth.
///
/// An UPDATE that writes the values a row already has (`SET score = score`) is not recorded:
/// no controller reports it. (A statement run through `PostgresWriter` is recorded all the
/// same: its rows are reported as written.) Installing the log again brings this to a log
/// installed by an earlier version.
///
/// Install it once per tracked table; it is idempotent:
///
/// ```swift
/// try await PostgresChangeLog.install(on: "team", connection: connection)
/// ```
///
/// `TRUNCATE` (which fires no row trigger) is recorded as one entry without an id: every row
/// may have changed. The log keeps about `retaining` entries: every tenth of that many
/// entries (at most 1,000), the writing transaction deletes older entries of finished
/// transactions and records in `liveresults_change_pruned` the last position and the newest
/// transaction it deleted, so that a reader whose cursor is behind it knows it may have
/// missed entries and compares a fresh fetch instead.
public enum PostgresChangeLog {
    /// The table of entries: `position`, `xid`, `table_name`, `changed_id` (NULL: every row).
    public static let tableName = "liveresults_change"
    /// The one-row table of what pruning deleted: entries up to `position`, of transactions up to `xid`.
    public static let prunedTableName = "liveresults_change_pruned"
    /// The advisory lock (two-key form) a transaction holds while it prunes the log.
    public static let pruneLock = (classID: Int32(0x4C52), objectID: Int32(0x5052)) // "LR", "PR"
    /// How many entries the log keeps by default.
    public static let defaultRetained = 10_000

    /// The channel a tracked table's statements notify: `liveresults_` and the table's name.
    /// Throws when the name is too long for a channel (63 bytes) or holds a double quote.
    public static func channel(for table: String) throws -> String {
        let channel = "liveresults_" + table
        guard channel.utf8.count <= 63, !channel.contains("\"") else {
            throw LiveResultsPostgresError("The table name “\(table)” cannot name a notification channel: it must be at most 51 bytes long and hold no double quote.")
        }
        return channel
    }

    /// The function the row trigger of `table` runs: `liveresults_log_` and the table's name.
    /// Throws when the name is too long for a function's (63 bytes).
    static func triggerFunction(for table: String) throws -> String {
        let function = "liveresults_log_" + table
        guard function.utf8.count <= 63 else {
            throw LiveResultsPostgresError("The table name “\(table)” is too long for the change log's trigger function: it must be at most 47 bytes long.")
        }
        return function
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
        retaining retained: Int = defaultRetained,
        payloadColumns: [String]? = nil,
        connection: PostgresConnection,
        logger: Logger = Logger(label: "LiveResultsPostgres")
    ) async throws {
        do {
            var columns = payloadColumns ?? []
            if payloadColumns == nil { columns = try await everyColumn(of: table, connection: connection, logger: logger) }
            let statements = try installStatements(on: table, idColumn: idColumn, retaining: retained, payloadColumns: columns)
            for statement in statements {
                try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
            }
        } catch let error as LiveResultsPostgresError {
            throw error
        } catch {
            throw LiveResultsPostgresError("The change log could not be installed on “\(table)”: \(PostgresSQL.message(of: error)).")
        }
    }

    /// The columns of `table`, in order (the notification's columns when none are named).
    private static func everyColumn(of table: String, connection: PostgresConnection, logger: Logger) async throws -> [String] {
        var bindings = PostgresBindings()
        bindings.append(PostgresSQL.identifier(table))
        let rows = try await connection.query(PostgresQuery(unsafeSQL: """
            SELECT attname::text FROM pg_attribute WHERE attrelid = to_regclass($1) AND attnum > 0 AND NOT attisdropped ORDER BY attnum
            """, binds: bindings), logger: logger)
        var columns: [String] = []
        for try await name in rows.decode(String.self) { columns.append(name) }
        return columns
    }

    /// The setting a writing transaction may set (`set_config(noteSetting, text, true)`) to
    /// say something of itself to every listener: its notification carries it when it fits
    /// (`ChangeBatch.notes`). An application tells who made a change this way, so a listener
    /// names it without a query. Any role that may write the table may set it: a listener
    /// believes it as much as the change.
    public static let noteSetting = "liveresults.note"

    /// The setting a write handed over (`PostgresWriter`) turns on for its transaction, from
    /// its RETURNING clause (evaluated before the row triggers run).
    static let handedOverSetting = "liveresults.handed_over"

    /// The statements `install` runs, in order, one per query: for a caller that runs them
    /// itself, inside its own transaction, synchronously (the statements are idempotent).
    /// Throws when the table's name cannot name a channel.
    package static func installStatements(on table: String, idColumn: String = "id",
                                          retaining retained: Int = defaultRetained,
                                          payloadColumns: [String] = []) throws -> [String] {
        let channel = try channel(for: table)
        let payload = NotifiedCommit.Layout(table: table, columns: payloadColumns)
        let values = payloadColumns.map { NotifiedCommit.Layout.valueSQL("NEW." + PostgresSQL.identifier($0)) }
            .joined(separator: " || ")
        let newEntry = values.isEmpty ? "' v ' || new_id" : "' v ' || new_id || \(values)"
        let function = try PostgresSQL.identifier(triggerFunction(for: table))
        let (name, id) = (PostgresSQL.literal(table), PostgresSQL.identifier(idColumn))
        let log = PostgresSQL.identifier(tableName)
        let pruned = PostgresSQL.identifier(prunedTableName)
        let target = PostgresSQL.identifier(table)
        let retained = max(1, retained)
        // Prune often enough to stay near `retained`, rarely enough to cost little per write.
        let pruneStep = max(1, min(1000, retained / 10))
        // One statement per query (the extended protocol runs one at a time), and no
        // BEGIN/COMMIT of our own, which would commit a caller's transaction.
        return [
            """
            CREATE TABLE IF NOT EXISTS \(log) (
                position bigserial PRIMARY KEY,
                xid xid8 NOT NULL DEFAULT pg_current_xact_id(),
                table_name text NOT NULL,
                changed_id bigint)
            """,
            // Logs made before TRUNCATE was recorded required an id.
            // (Only when needed: an ALTER TABLE fails where the log has deferred events pending.)
            """
            DO $$ BEGIN
                IF EXISTS (SELECT 1 FROM pg_attribute WHERE attrelid = \(PostgresSQL.literal(log))::regclass AND attname = 'changed_id' AND attnotnull) THEN
                    ALTER TABLE \(log) ALTER COLUMN changed_id DROP NOT NULL;
                END IF;
            END $$
            """,
            """
            CREATE TABLE IF NOT EXISTS \(pruned) (
                one boolean PRIMARY KEY DEFAULT true CHECK (one),
                position bigint NOT NULL,
                xid xid8 NOT NULL)
            """,
            // Readers look entries up by position (the primary key) and by transaction.
            """
            DO $$ BEGIN
                IF to_regclass('liveresults_change_xid') IS NULL THEN CREATE INDEX liveresults_change_xid ON \(log) (xid); END IF;
            END $$
            """,
            // Deletes the entries of finished transactions below the last `retained` positions,
            // and moves the pruned mark up to the last position and the newest transaction
            // deleted (never down: prunes may overlap).
            """
            CREATE OR REPLACE FUNCTION liveresults_prune(retained bigint) RETURNS void LANGUAGE plpgsql AS $$
            DECLARE
                bound bigint;
                newest xid8;
            BEGIN
                -- One pruning transaction at a time; the others skip rather than wait for its
                -- row locks (a writer must never wait for another writer's prune).
                IF NOT pg_try_advisory_xact_lock(\(pruneLock.classID), \(pruneLock.objectID)) THEN RETURN; END IF;
                SELECT position INTO bound FROM \(log) ORDER BY position DESC OFFSET retained LIMIT 1;
                IF bound IS NULL THEN RETURN; END IF;
                WITH deleted AS (
                    DELETE FROM \(log) WHERE position <= bound AND xid < pg_snapshot_xmin(pg_current_snapshot()) RETURNING xid)
                SELECT max(xid) INTO newest FROM deleted;
                IF newest IS NULL THEN RETURN; END IF;
                INSERT INTO \(pruned) (position, xid) VALUES (bound, newest)
                ON CONFLICT (one) DO UPDATE SET position = greatest(\(pruned).position, EXCLUDED.position),
                                                xid = greatest(\(pruned).xid, EXCLUDED.xid);
            END $$
            """,
            // A function of the table's own, so that it reads the id column directly (a
            // function shared by all tables had to find it by name through `to_jsonb` of the
            // whole row, twice an update: a fifth of the trigger's cost).
            """
            CREATE OR REPLACE FUNCTION \(function)() RETURNS trigger LANGUAGE plpgsql AS $$
            DECLARE
                old_id bigint;
                new_id bigint;
                logged bigint;
                entries text;
                setting text := \(PostgresSQL.literal(NotifiedCommit.Layout.pendingSetting)) || md5(\(name));
                pending text := coalesce(current_setting(setting, true), '');
            BEGIN
                -- An UPDATE that writes the values the row already has changed no data: no
                -- reader hears of it. `*=` compares the rows' stored bytes, so it needs no
                -- equality operator for any column's type (json has none). A write handed over
                -- (`PostgresWriter`, which marks its statement) is logged all the same: its
                -- feeds applied it already and wait for its notification.
                IF TG_OP = 'UPDATE' AND OLD *= NEW
                   AND current_setting(\(PostgresSQL.literal(handedOverSetting)), true) IS DISTINCT FROM 'on' THEN
                    RETURN NULL;
                END IF;
                IF TG_OP <> 'INSERT' THEN old_id := OLD.\(id); END IF;
                IF TG_OP <> 'DELETE' THEN new_id := NEW.\(id); END IF;
                IF old_id IS NOT NULL THEN
                    INSERT INTO \(log) (table_name, changed_id) VALUES (\(name), old_id) RETURNING position INTO logged;
                    -- An update that keeps the id is one entry, with the row as it is now.
                    entries := ' ' || logged || CASE WHEN new_id = old_id THEN \(newEntry) ELSE ' d ' || old_id END;
                END IF;
                IF new_id IS NOT NULL AND new_id IS DISTINCT FROM old_id THEN
                    INSERT INTO \(log) (table_name, changed_id) VALUES (\(name), new_id) RETURNING position INTO logged;
                    entries := coalesce(entries, '') || ' ' || logged || \(newEntry);
                END IF;
                -- What the transaction's notification will carry, kept with the transaction
                -- (a savepoint rolled back takes its part back); past the size of one
                -- notification, only that it was cut.
                IF pending <> \(PostgresSQL.literal(payload.header + " cut")) AND entries IS NOT NULL THEN
                    IF pending = '' THEN pending := \(PostgresSQL.literal(payload.header)); END IF;
                    pending := pending || entries;
                    IF octet_length(pending) > \(payload.pendingLimit) THEN pending := \(PostgresSQL.literal(payload.header + " cut")); END IF;
                    PERFORM set_config(setting, pending, true);
                END IF;
                IF logged % \(pruneStep) = 0 THEN
                    PERFORM liveresults_prune(\(retained));
                END IF;
                RETURN NULL;
            END $$
            """,
            // TRUNCATE fires no row trigger: one entry without an id says "every row". It
            // notifies too, naming only the transaction: listeners read the log.
            """
            CREATE OR REPLACE FUNCTION liveresults_log_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                INSERT INTO \(log) (table_name, changed_id) VALUES (TG_ARGV[0], NULL);
                PERFORM pg_notify(TG_ARGV[1], pg_current_xact_id()::text);
                RETURN NULL;
            END $$
            """,
            // Sends what the row trigger of the entry's table kept for the transaction, once:
            // the first of its deferred calls at the commit sends it and empties it, the
            // others find it empty. A final "+" says the transaction wrote another table too
            // (its entries, found by the xid index, are all there at the commit): a listener
            // whose sections come through that table cannot apply these entries alone. A
            // payload too long for it (a row trigger of an older install measured without it)
            // goes as the bare transaction id: "read the log".
            """
            CREATE OR REPLACE FUNCTION liveresults_notify() RETURNS trigger LANGUAGE plpgsql AS $$
            DECLARE
                setting text := \(PostgresSQL.literal(NotifiedCommit.Layout.pendingSetting)) || md5(NEW.table_name);
                pending text := current_setting(setting, true);
                note text := current_setting(\(PostgresSQL.literal(noteSetting)), true);
                payload text;
            BEGIN
                IF pending IS NULL OR pending = '' THEN RETURN NULL; END IF;
                PERFORM set_config(setting, '', true);
                payload := \(PostgresSQL.literal(NotifiedCommit.Layout.Version.current.rawValue + " ")) || pg_current_xact_id() || ' ' || pending;
                IF EXISTS (SELECT 1 FROM \(log) WHERE xid = pg_current_xact_id() AND table_name <> NEW.table_name) THEN
                    payload := payload || \(PostgresSQL.literal(" " + NotifiedCommit.Layout.otherTables));
                END IF;
                -- The note goes where it fits, and only there: a listener without it reads as before.
                IF note <> '' AND octet_length(payload) + octet_length(note) + 16 <= \(NotifiedCommit.Layout.payloadLimit) THEN
                    payload := payload || \(PostgresSQL.literal(" " + NotifiedCommit.Layout.noteMark + " ")) || length(note) || ':' || note;
                END IF;
                IF octet_length(payload) > \(NotifiedCommit.Layout.payloadLimit) THEN payload := pg_current_xact_id()::text; END IF;
                PERFORM pg_notify('liveresults_' || NEW.table_name, payload);
                RETURN NULL;
            END $$
            """,
            """
            CREATE OR REPLACE TRIGGER liveresults_log AFTER INSERT OR UPDATE OR DELETE ON \(target)
            FOR EACH ROW EXECUTE FUNCTION \(function)()
            """,
            """
            CREATE OR REPLACE TRIGGER liveresults_log_truncate AFTER TRUNCATE ON \(target)
            FOR EACH STATEMENT EXECUTE FUNCTION liveresults_log_truncate(\(PostgresSQL.literal(table)), \(PostgresSQL.literal(channel)))
            """,
            // Logs made before notified from a statement trigger on the table.
            "DROP TRIGGER IF EXISTS liveresults_notify ON \(target)",
            // Deferred to the commit, so that one notification carries the whole transaction
            // (a statement trigger would send one per statement, and a listener could not tell
            // the last). On the log, not on the tracked table: a deferred event pending on a
            // table forbids ALTER TABLE on it in that transaction (a migration that changes
            // rows, then the table). Made once: a constraint trigger cannot be replaced in
            // place, and this transaction may have pending events on the log already.
            """
            DO $$ BEGIN
                IF NOT EXISTS (SELECT 1 FROM pg_trigger WHERE tgrelid = \(PostgresSQL.literal(log))::regclass AND tgname = 'liveresults_notify') THEN
                    CREATE CONSTRAINT TRIGGER liveresults_notify AFTER INSERT ON \(log)
                    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION liveresults_notify();
                END IF;
            END $$
            """,
        ]
    }
}
