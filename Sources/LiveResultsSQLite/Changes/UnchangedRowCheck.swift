import GRDB
import GRDBSQLite

/// The two functions the temporary triggers of `ChangeTracker.watchUnchangedUpdates` call around
/// each UPDATE of a row: the first keeps the row as it was, the second says whether the update
/// left it so.
///
/// Rows are read whole (`SELECT *`, prepared at each call), so that no trigger names a column:
/// SQLite compiles a connection's triggers with each statement that fires them, and one naming
/// a column that another connection dropped or renamed would fail every UPDATE of the table on
/// this connection. They are read through the C API: a GRDB statement run inside another would
/// take the place of GRDB's observation of the UPDATE that fired the trigger.
final class UnchangedRowCheck: @unchecked Sendable { // Called only inside the connection's statements, on its queue.
    static let keepFunction = "liveresults_row_before_update"
    static let isUnchangedFunction = "liveresults_row_unchanged"

    private struct RowAddress: Hashable {
        let table: String
        let rowID: Int64
    }

    private let connection: SQLiteConnection
    /// The rows whose update is under way, as they were before it.
    private var rowsBefore: [RowAddress: [DatabaseValue]] = [:]

    private init(connection: SQLiteConnection) {
        self.connection = connection
    }

    /// Gives `db`'s connection the two functions (again: a table's trackers register them at
    /// each fetch, and the connection keeps the last).
    static func register(on db: Database) {
        guard let connection = db.sqliteConnection else { return }
        let check = UnchangedRowCheck(connection: connection)
        db.add(function: DatabaseFunction(keepFunction, argumentCount: 2, pure: false) { values in
            guard let table = String.fromDatabaseValue(values[0]), let rowID = Int64.fromDatabaseValue(values[1]) else { return nil }
            check.rowsBefore[RowAddress(table: table, rowID: rowID)] = check.row(of: table, rowID: rowID)
            return nil
        })
        db.add(function: DatabaseFunction(isUnchangedFunction, argumentCount: 3, pure: false) { values in
            guard let table = String.fromDatabaseValue(values[0]), let oldID = Int64.fromDatabaseValue(values[1]),
                  let newID = Int64.fromDatabaseValue(values[2]) else { return false }
            return check.isUnchanged(table: table, oldID: oldID, newID: newID)
        })
    }

    /// Whether the update of row `oldID` (now `newID`) left its rowid and every value as they were.
    private func isUnchanged(table: String, oldID: Int64, newID: Int64) -> Bool {
        guard let before = rowsBefore.removeValue(forKey: RowAddress(table: table, rowID: oldID)), oldID == newID,
              let after = row(of: table, rowID: newID), before.count == after.count else { return false }
        return zip(before, after).allSatisfy(Self.same)
    }

    /// The change log's comparison (`IS` under the binary collation): text by its bytes, an
    /// integer and a real by their numbers, anything else by its type and value.
    private static func same(_ old: DatabaseValue, _ new: DatabaseValue) -> Bool {
        switch (old.storage, new.storage) {
        case (.string(let old), .string(let new)): old.utf8.elementsEqual(new.utf8)
        case (.string, _), (_, .string): false
        default: old == new
        }
    }

    private func row(of table: String, rowID: Int64) -> [DatabaseValue]? {
        var statement: SQLiteStatement?
        let sql = "SELECT * FROM main.\(table.quotedDatabaseIdentifier) WHERE rowid = ?1"
        guard sqlite3_prepare_v2(connection, sql, -1, &statement, nil) == SQLITE_OK, let statement else { return nil }
        defer { sqlite3_finalize(statement) }
        sqlite3_bind_int64(statement, 1, rowID)
        guard sqlite3_step(statement) == SQLITE_ROW else { return nil }
        return (0..<sqlite3_column_count(statement)).map { DatabaseValue(sqliteStatement: statement, index: $0) }
    }
}
