import GRDB
import GRDBSQLite
import LiveResults

extension Statement {
    /// Steps through the statement's rows with the SQLite C API, handing over the raw
    /// statement at each row, and resets it at the end. (Reading columns this way skips
    /// GRDB's generic decoding, which costs more than the query itself when a million rows
    /// load.)
    func forEachRawRow(_ db: Database, _ body: (SQLiteStatement) throws -> Void) throws {
        let raw = sqliteStatement
        defer { sqlite3_reset(raw) }
        while true {
            let code = sqlite3_step(raw)
            if code == SQLITE_DONE { return }
            guard code == SQLITE_ROW else {
                throw DatabaseError(resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(db.sqliteConnection)), sql: sql)
            }
            try body(raw)
        }
    }
}
