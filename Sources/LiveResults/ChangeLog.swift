import Foundation
import GRDB

/// A persistent, bounded history of the rows committed changes touched, kept by triggers in
/// the database itself, so every connection and every process writes to it.
///
/// It is what makes a results controller live across processes and lets a section cache
/// outlive a launch: each entry has a position (a number that only grows), a controller
/// remembers the last position it has seen, and a commit from anywhere shows up as entries
/// after it. Install it once per tracked table, in a migration:
///
/// ```swift
/// migrator.registerMigration("v2") { db in try ChangeLog.install(on: "team", in: db) }
/// ```
///
/// The log keeps the latest `retaining` entries (pruned a thousand at a time). A reader whose
/// position was pruned away refetches the whole result and diffs, so it stays correct.
public enum ChangeLog {
    /// The table of entries: `position` (AUTOINCREMENT, never reused), `tableName`, `changedRowID`.
    public static let tableName = "liveresults_change"
    /// One row naming this database, so a cache made for another file is never trusted.
    static let identityTableName = "liveresults_identity"
    /// How many entries are removed at once when the log is pruned.
    static let pruneStep: Int64 = 1000

    /// Creates the log (if needed) and the triggers that record every insert, update and
    /// delete of `table`. Call it inside a migration; it is idempotent.
    public static func install(on table: String, in db: Database, retaining retained: Int = 10_000) throws {
        let log = tableName.quotedDatabaseIdentifier
        try db.execute(sql: """
            CREATE TABLE IF NOT EXISTS \(log) (
                position INTEGER PRIMARY KEY AUTOINCREMENT,
                tableName TEXT NOT NULL,
                changedRowID INTEGER NOT NULL);
            CREATE TABLE IF NOT EXISTS \(identityTableName.quotedDatabaseIdentifier) (
                id INTEGER PRIMARY KEY CHECK (id = 1),
                databaseID TEXT NOT NULL);
            DROP TRIGGER IF EXISTS "liveresults_prune";
            CREATE TRIGGER "liveresults_prune" AFTER INSERT ON \(log)
            WHEN NEW.position % \(pruneStep) = 0 BEGIN
                DELETE FROM \(log) WHERE position <= NEW.position - \(max(Int64(retained), pruneStep));
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
            CREATE TRIGGER \(update) AFTER UPDATE ON \(target) BEGIN
                INSERT INTO \(log) (tableName, changedRowID) VALUES (\(name), OLD.rowid);
                INSERT INTO \(log) (tableName, changedRowID) SELECT \(name), NEW.rowid WHERE NEW.rowid IS NOT OLD.rowid;
            END;
            CREATE TRIGGER \(delete) AFTER DELETE ON \(target) BEGIN
                INSERT INTO \(log) (tableName, changedRowID) VALUES (\(name), OLD.rowid);
            END;
            """)
    }

    static func triggerName(_ table: String, _ event: String) -> String {
        "liveresults_\(table)_\(event)"
    }

    // MARK: - Reading

    /// True when the log records changes of `table`.
    static func isInstalled(on table: String, in db: Database) throws -> Bool {
        try Bool.fetchOne(db, sql: "SELECT COUNT(*) = 3 FROM sqlite_master WHERE type = 'trigger' AND name IN (?, ?, ?)",
                          arguments: [triggerName(table, "insert"), triggerName(table, "update"), triggerName(table, "delete")]) ?? false
    }

    /// The position of the latest entry ever written (0 before the first).
    static func position(_ db: Database) throws -> Int64 {
        try Int64.fetchOne(db.cachedStatement(sql: "SELECT seq FROM sqlite_sequence WHERE name = ?"), arguments: [tableName]) ?? 0
    }

    /// The random name this database was given when the log was installed.
    static func databaseID(_ db: Database) throws -> String {
        try String.fetchOne(db, sql: "SELECT databaseID FROM \(identityTableName.quotedDatabaseIdentifier) WHERE id = 1") ?? ""
    }

    /// The rows of `table` changed after `position`, up to `end`; nil when entries after
    /// `position` were pruned (the caller must refetch).
    static func changedRowIDs(_ db: Database, table: String, after position: Int64, through end: Int64) throws -> Set<RecordID>? {
        guard end > position else { return [] }
        let oldest = try Int64.fetchOne(db.cachedStatement(sql: "SELECT MIN(position) FROM \(tableName.quotedDatabaseIdentifier)")) ?? (end + 1)
        guard oldest <= position + 1 else { return nil }
        let statement = try db.cachedStatement(sql: """
            SELECT changedRowID FROM \(tableName.quotedDatabaseIdentifier)
            WHERE position > ? AND position <= ? AND tableName = ?
            """)
        return try RecordID.fetchSet(statement, arguments: [position, end, table])
    }
}
