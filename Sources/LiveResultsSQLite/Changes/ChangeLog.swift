import Foundation
import GRDB
import LiveResults

/// A persistent, bounded history of the rows committed changes touched, kept by triggers in
/// the database itself, so every connection and every process writes to it.
///
/// It is what makes a results controller live across processes and lets a section cache
/// outlive a launch: each entry has a position (a number that only grows), a controller
/// remembers the last position it has seen, and a commit from anywhere shows up as entries
/// after it. Install it once per tracked table, in a migration:
///
/// ```swift
/// migrator.registerMigration("v2") { db in try ChangeLog.install(on: "player", in: db) }
/// ```
///
/// Positions are plain rowids, one more than the newest entry's, and never go back: the log
/// never loses its newest entry (pruning keeps it, and a trigger keeps a `DELETE` from
/// removing it). A position kept by `AUTOINCREMENT` would cost every commit a write to
/// `sqlite_sequence`, about a quarter of a tap's commit on a million rows.
///
/// The log keeps the latest `retaining` entries (pruned a tenth at a time). Pruned entries
/// are folded into a summary that keeps, per row, the position of its latest pruned change, so
/// a reader whose position was pruned away still learns exactly which rows changed (the
/// summary holds one entry per row id that ever changed, deleted rows included).
///
/// Rows that SQLite removes by itself are recorded too: foreign-key cascades and triggers
/// fire the delete trigger, and rows that `REPLACE` conflict resolution removes (which fire no
/// delete trigger unless `recursive_triggers` is on) are recorded by triggers that run before
/// each insert, and each update of a uniquely indexed column, and record the rows the new
/// values collide with. Those triggers are made from the table's unique indexes at install
/// time: install the log again after adding a unique index. (Unique indexes on expressions
/// are not covered.)
///
/// An UPDATE that writes the values a row already has (`SET score = score`) is not recorded:
/// no controller reports it. The update trigger compares the columns the table has at install
/// time, so install the log again after adding a column too; a controller refuses to track a
/// table whose log misses one (`LiveResultsError.Kind.changeLogMissesColumn`).
public enum ChangeLog {
    /// The table of entries: `position` (only grows, never reused), `tableName`, `changedRowID`.
    public static let tableName = "liveresults_change"
    /// The summary of pruned entries: per table and row, the position of its latest pruned
    /// change; and in the row of table '' and id 0, the position up to which the log was pruned.
    static let prunedTableName = "liveresults_change_pruned"
    /// One row naming this database, so a cache made for another file is never trusted.
    static let identityTableName = "liveresults_identity"
    /// How many entries are removed at once when the log is pruned: a tenth of those kept,
    /// at most a thousand.
    static func pruneStep(retaining retained: Int) -> Int64 {
        Int64(max(1, min(1000, retained / 10)))
    }

    /// Creates the log (if needed) and the triggers that record every insert, update and
    /// delete of `table`. Call it inside a migration; it is idempotent.
    public static func install(on table: String, in db: Database, retaining retained: Int = 10_000) throws {
        let step = pruneStep(retaining: retained)
        let kept = max(Int64(retained), step)
        let log = tableName.quotedDatabaseIdentifier
        let pruned = prunedTableName.quotedDatabaseIdentifier
        try createLog(in: db)
        try dropAutoincrement(in: db)
        try db.execute(sql: """
            DROP TRIGGER IF EXISTS "liveresults_keep_newest";
            CREATE TRIGGER "liveresults_keep_newest" BEFORE DELETE ON \(log)
            WHEN OLD.position = (SELECT MAX(position) FROM \(log)) BEGIN
                SELECT RAISE(IGNORE);
            END;
            CREATE TABLE IF NOT EXISTS \(identityTableName.quotedDatabaseIdentifier) (
                id INTEGER PRIMARY KEY CHECK (id = 1),
                databaseID TEXT NOT NULL);
            CREATE TABLE IF NOT EXISTS \(pruned) (
                tableName TEXT NOT NULL,
                changedRowID INTEGER NOT NULL,
                position INTEGER NOT NULL,
                PRIMARY KEY (tableName, changedRowID)) WITHOUT ROWID;
            CREATE INDEX IF NOT EXISTS "liveresults_change_pruned_on_position" ON \(pruned) (position);
            DROP TRIGGER IF EXISTS "liveresults_prune";
            CREATE TRIGGER "liveresults_prune" AFTER INSERT ON \(log)
            WHEN NEW.position % \(step) = 0 BEGIN
                INSERT INTO \(pruned) (tableName, changedRowID, position)
                    SELECT tableName, changedRowID, MAX(position) FROM \(log)
                    WHERE position <= NEW.position - \(kept)
                    GROUP BY tableName, changedRowID
                    ON CONFLICT (tableName, changedRowID) DO UPDATE SET position = excluded.position;
                INSERT INTO \(pruned) (tableName, changedRowID, position)
                    VALUES ('', 0, NEW.position - \(kept))
                    ON CONFLICT (tableName, changedRowID) DO UPDATE SET position = excluded.position;
                DELETE FROM \(log) WHERE position <= NEW.position - \(kept);
            END;
            """)
        try db.execute(sql: "INSERT OR IGNORE INTO \(identityTableName.quotedDatabaseIdentifier) (id, databaseID) VALUES (1, ?)",
                       arguments: [UUID().uuidString])
        // Triggers cannot hold bound values: the table name goes in as an SQL string literal.
        let target = table.quotedDatabaseIdentifier
        let name = "'" + table.replacingOccurrences(of: "'", with: "''") + "'"
        let insert = triggerName(table, "insert").quotedDatabaseIdentifier
        let update = triggerName(table, "update").quotedDatabaseIdentifier
        let delete = triggerName(table, "delete").quotedDatabaseIdentifier
        try db.execute(sql: """
            DROP TRIGGER IF EXISTS \(insert);
            DROP TRIGGER IF EXISTS \(update);
            DROP TRIGGER IF EXISTS \(delete);
            CREATE TRIGGER \(insert) AFTER INSERT ON \(target) BEGIN
                INSERT INTO \(log) (tableName, changedRowID) VALUES (\(name), NEW.rowid);
            END;
            CREATE TRIGGER \(update) AFTER UPDATE ON \(target) WHEN \(try valueChanged(in: table, db)) BEGIN
                INSERT INTO \(log) (tableName, changedRowID) VALUES (\(name), OLD.rowid);
                INSERT INTO \(log) (tableName, changedRowID) SELECT \(name), NEW.rowid WHERE NEW.rowid IS NOT OLD.rowid;
            END;
            CREATE TRIGGER \(delete) AFTER DELETE ON \(target) BEGIN
                INSERT INTO \(log) (tableName, changedRowID) VALUES (\(name), OLD.rowid);
            END;
            """)
        try installConflictTriggers(on: table, name: name, in: db)
    }

    /// Runs `body`, which updates rows of `table` that no reader needs to hear of, without
    /// logging those updates: in the migration that adds a column and fills it, before any
    /// controller reads the column. The update trigger is dropped for `body` and installed
    /// again after it (with the rest, as `install` makes them); run both in one transaction,
    /// so other connections never see the table without it. Filling a column of a million
    /// rows would otherwise log a million entries, and leave a summary row per row once they
    /// are pruned.
    public static func withoutLoggingUpdates(of table: String, in db: Database, retaining retained: Int = 10_000,
                                             _ body: () throws -> Void) throws {
        try db.execute(sql: "DROP TRIGGER IF EXISTS \(triggerName(table, "update").quotedDatabaseIdentifier)")
        try body()
        try install(on: table, in: db, retaining: retained)
    }

    /// Creates the table of entries, if needed.
    private static func createLog(in db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE IF NOT EXISTS \(tableName.quotedDatabaseIdentifier) (
                position INTEGER PRIMARY KEY,
                tableName TEXT NOT NULL,
                changedRowID INTEGER NOT NULL)
            """)
    }

    /// Rebuilds a log made by an earlier version, whose positions came from `AUTOINCREMENT`,
    /// as a plain table with the same entries. When its newest entries had been removed, an
    /// entry of table '' (no table's name) takes the last position given, so positions still
    /// never go back.
    private static func dropAutoincrement(in db: Database) throws {
        let log = tableName.quotedDatabaseIdentifier
        let definition = try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?", arguments: [tableName])
        guard let definition, definition.uppercased().contains("AUTOINCREMENT") else { return }
        let given = try db.tableExists("sqlite_sequence")
            ? try Int64.fetchOne(db, sql: "SELECT seq FROM sqlite_sequence WHERE name = ?", arguments: [tableName]) ?? 0
            : 0
        // Dropped and made again under the same name: the triggers that write to the log
        // name it, and work again once it exists.
        try db.execute(sql: """
            CREATE TEMP TABLE liveresults_change_entries AS SELECT position, tableName, changedRowID FROM \(log);
            DROP TABLE \(log);
            """)
        try createLog(in: db)
        try db.execute(sql: """
            INSERT INTO \(log) (position, tableName, changedRowID) SELECT position, tableName, changedRowID FROM temp.liveresults_change_entries;
            DROP TABLE temp.liveresults_change_entries;
            """)
        try db.execute(sql: "INSERT INTO \(log) (position, tableName, changedRowID) SELECT ?, '', 0 WHERE ? > (SELECT IFNULL(MAX(position), 0) FROM \(log))",
                       arguments: [given, given])
    }

    /// The update trigger's condition (and, negated, that of the trigger that tells a tracker
    /// without a log of the updates that changed nothing: `watchUnchangedUpdates`): the rowid
    /// or a column's value changed. An UPDATE that
    /// writes the values a row already has (`SET c = c`) changed no data, so no reader hears of
    /// it. Values compare by their bytes (`COLLATE BINARY`): a column's own collation may call
    /// different texts equal ('a' and 'A' under NOCASE). The columns are the table's at install
    /// time: install the log again after adding one (`checkCoversColumns` refuses a log that
    /// misses one, rather than miss its changes).
    static func valueChanged(in table: String, _ db: Database) throws -> String {
        let columns = try db.columns(in: table).map { $0.name.quotedDatabaseIdentifier }
        return (["rowid"] + columns).map { "OLD.\($0) COLLATE BINARY IS NOT NEW.\($0)" }.joined(separator: " OR ")
    }

    /// Throws when the log of `table` compares the values of updates (a log installed by this
    /// version) but not those of every column the table has now: a column added after the log
    /// was installed, whose changes it would not record.
    static func checkCoversColumns(of table: String, in db: Database) throws {
        guard let trigger = try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = ?",
                                                arguments: [triggerName(table, "update")]),
              trigger.contains("COLLATE BINARY IS NOT")
        else { return }
        for column in try db.columns(in: table) where !trigger.contains("OLD.\(column.name.quotedDatabaseIdentifier) COLLATE BINARY") {
            throw LiveResultsError(.changeLogMissesColumn(column.name), "The change log of table \(table) was installed before its column \(column.name) was added, and would miss its changes: install it again (ChangeLog.install(on: \"\(table)\", in: db)) in the migration that adds the column.")
        }
    }

    /// Triggers that record, before an insert or an update of a uniquely indexed column, the
    /// rows the new values collide with: `REPLACE` deletes those without firing delete
    /// triggers. (When the statement fails or ignores the row instead, a rolled-back entry
    /// vanishes, and an ignored one names a row that did not change: harmless, read again.)
    private static func installConflictTriggers(on table: String, name: String, in db: Database) throws {
        let target = table.quotedDatabaseIdentifier
        let log = tableName.quotedDatabaseIdentifier
        let insert = triggerName(table, "insert_conflicts").quotedDatabaseIdentifier
        let update = triggerName(table, "update_conflicts").quotedDatabaseIdentifier
        try db.execute(sql: "DROP TRIGGER IF EXISTS \(insert); DROP TRIGGER IF EXISTS \(update);")
        let keys = try uniqueKeys(of: table, in: db)
        guard !keys.isEmpty else { return }
        func collisions(_ row: String) -> String {
            keys.map { key in
                "(" + key.map { "\($0.column.quotedDatabaseIdentifier) = \(row).\($0.column.quotedDatabaseIdentifier) COLLATE \($0.collation)" }
                    .joined(separator: " AND ") + ")"
            }.joined(separator: " OR ")
        }
        let columns = Set(keys.joined().map(\.column)).sorted().map(\.quotedDatabaseIdentifier).joined(separator: ", ")
        try db.execute(sql: """
            CREATE TRIGGER \(insert) BEFORE INSERT ON \(target) BEGIN
                INSERT INTO \(log) (tableName, changedRowID) SELECT \(name), rowid FROM \(target) WHERE \(collisions("NEW"));
            END;
            CREATE TRIGGER \(update) BEFORE UPDATE OF \(columns) ON \(target) BEGIN
                INSERT INTO \(log) (tableName, changedRowID) SELECT \(name), rowid FROM \(target)
                WHERE rowid IS NOT OLD.rowid AND (\(collisions("NEW")));
            END;
            """)
    }

    /// The columns (with their collations) of each unique index of a table that is made of
    /// columns only, the primary key aside (a rowid conflict is recorded by the insert trigger).
    private static func uniqueKeys(of table: String, in db: Database) throws -> [[(column: String, collation: String)]] {
        try uniqueIndexes(of: table, in: db).compactMap { key in
            key.allSatisfy { $0.column != nil } ? key.map { ($0.column!, $0.collation) } : nil
        }
    }

    /// The parts of each unique index of a table other than its primary key: a column and its
    /// collation, or a nil column for an expression.
    static func uniqueIndexes(of table: String, in db: Database) throws -> [[(column: String?, collation: String)]] {
        var keys: [[(column: String?, collation: String)]] = []
        for index in try Row.fetchAll(db, sql: "SELECT name, \"unique\", origin FROM pragma_index_list(?)", arguments: [table]) {
            guard index["unique"] as Int == 1, index["origin"] as String != "pk" else { continue }
            let parts = try Row.fetchAll(db, sql: "SELECT cid, name, coll FROM pragma_index_xinfo(?) WHERE key = 1 ORDER BY seqno",
                                         arguments: [index["name"] as String])
            keys.append(parts.map { part in ((part["cid"] as Int) >= 0 ? part["name"] : nil, (part["coll"] as String?) ?? "BINARY") })
        }
        return keys
    }

    static func triggerName(_ table: String, _ event: String) -> String {
        "liveresults_\(table)_\(event)"
    }

    // MARK: - Reading

    /// True when the log records changes of `table`: a program that installs the log itself,
    /// instead of in a migration, installs it when this is false.
    public static func isInstalled(on table: String, in db: Database) throws -> Bool {
        try Bool.fetchOne(db, sql: "SELECT COUNT(*) = 3 FROM sqlite_master WHERE type = 'trigger' AND name IN (?, ?, ?)",
                          arguments: [triggerName(table, "insert"), triggerName(table, "update"), triggerName(table, "delete")]) ?? false
    }

    /// The position of the latest entry ever written (0 before the first).
    static func position(_ db: Database) throws -> Int64 {
        try Int64.fetchOne(db.cachedStatement(sql: "SELECT MAX(position) FROM \(tableName.quotedDatabaseIdentifier)")) ?? 0
    }

    /// The random name this database was given when the log was installed.
    static func databaseID(_ db: Database) throws -> String {
        try String.fetchOne(db, sql: "SELECT databaseID FROM \(identityTableName.quotedDatabaseIdentifier) WHERE id = 1") ?? ""
    }

    /// The rows of `table` changed after `position`, up to `end` (and possibly a few changed
    /// later: reading a row again is harmless). Nil only when entries after `position` were
    /// pruned by a log without a summary of pruned entries (the caller must start afresh).
    static func changedRowIDs(_ db: Database, table: String, after position: Int64, through end: Int64) throws -> Set<RecordID>? {
        guard end > position else { return [] }
        let statement = try db.cachedStatement(sql: """
            SELECT changedRowID FROM \(tableName.quotedDatabaseIdentifier)
            WHERE position > ? AND position <= ? AND tableName = ?
            """)
        var ids = try RecordID.fetchSet(statement, arguments: [position, end, table])
        // Pruning removes the oldest entries and summarises them in one transaction, so looking
        // at the oldest entry after reading the log tells whether anything after `position`
        // was pruned before (or while) it was read; if so, the summary has those rows.
        let oldest = try Int64.fetchOne(db.cachedStatement(sql: "SELECT MIN(position) FROM \(tableName.quotedDatabaseIdentifier)")) ?? (end + 1)
        guard oldest > position + 1 else { return ids }
        // The summary must cover every entry before the oldest: entries removed some other way
        // (a log emptied by hand, or a log without a summary) cannot be known.
        guard try db.tableExists(prunedTableName),
              let prunedThrough = try Int64.fetchOne(db, sql: "SELECT position FROM \(prunedTableName.quotedDatabaseIdentifier) WHERE tableName = '' AND changedRowID = 0"),
              prunedThrough >= min(oldest, end + 1) - 1
        else { return nil }
        let pruned = try db.cachedStatement(sql: """
            SELECT changedRowID FROM \(prunedTableName.quotedDatabaseIdentifier) WHERE position > ? AND tableName = ?
            """)
        ids.formUnion(try RecordID.fetchSet(pruned, arguments: [position, table]))
        return ids
    }
}
