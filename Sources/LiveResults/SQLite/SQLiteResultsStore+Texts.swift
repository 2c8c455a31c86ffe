import Foundation
import GRDB
import GRDBSQLite

// Reading a filter's column (`ResultsFilter`): every row's value once, then the values of the
// rows a commit changed.

extension SQLiteResultsStore {
    func forEachText(inColumn column: String, table: String, ids: [RecordID]?,
                     _ body: (RecordID, UnsafeRawBufferPointer?) throws -> Void) throws {
        let selection = "SELECT rowid, \(column.quotedDatabaseIdentifier) FROM \(table.quotedDatabaseIdentifier)"
        try LiveResultsError.readable {
            try database.read { db in
                guard try db.columns(in: table).contains(where: { $0.name.lowercased() == column.lowercased() }) else {
                    throw LiveResultsError(.unknownColumn(column), "The table “\(table)” has no column named “\(column)” to filter on.")
                }
                guard let ids else { return try Self.forEachText(db, db.makeStatement(sql: selection), body) }
                var start = 0
                while start < ids.count {
                    let chunk = ids[start..<min(start + 500, ids.count)]
                    let placeholders = chunk.count == 1 ? "?" : Array(repeating: "?", count: chunk.count).joined(separator: ",")
                    let statement = try db.cachedStatement(sql: selection + " WHERE rowid IN (" + placeholders + ")")
                    statement.setUncheckedArguments(StatementArguments(Array(chunk)))
                    try Self.forEachText(db, statement, body)
                    start += 500
                }
            }
        }
    }

    /// Steps through a statement of (rowid, value) rows with SQLite's C API, handing over each
    /// value's bytes as SQLite gives them as text (nil for NULL), without making a `String`.
    private static func forEachText(_ db: Database, _ statement: Statement,
                                    _ body: (RecordID, UnsafeRawBufferPointer?) throws -> Void) throws {
        let raw = statement.sqliteStatement
        defer { sqlite3_reset(raw) }
        while true {
            let code = sqlite3_step(raw)
            if code == SQLITE_DONE { return }
            guard code == SQLITE_ROW else {
                throw DatabaseError(resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(db.sqliteConnection)), sql: statement.sql)
            }
            let id = sqlite3_column_int64(raw, 0)
            guard sqlite3_column_type(raw, 1) != SQLITE_NULL, let text = sqlite3_column_text(raw, 1) else {
                try body(id, nil)
                continue
            }
            try body(id, UnsafeRawBufferPointer(start: text, count: Int(sqlite3_column_bytes(raw, 1))))
        }
    }
}
