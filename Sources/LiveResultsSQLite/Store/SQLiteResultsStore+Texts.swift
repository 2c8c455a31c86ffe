import Foundation
import GRDB
import GRDBSQLite
import LiveResults

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

    /// Steps through a statement of (rowid, value) rows, handing over each value's bytes as
    /// SQLite gives them as text (nil for NULL), without making a `String`.
    private static func forEachText(_ db: Database, _ statement: Statement,
                                    _ body: (RecordID, UnsafeRawBufferPointer?) throws -> Void) throws {
        try statement.forEachRawRow(db) { row in
            let id = sqlite3_column_int64(row, 0)
            guard sqlite3_column_type(row, 1) != SQLITE_NULL, let text = sqlite3_column_text(row, 1) else { return try body(id, nil) }
            try body(id, UnsafeRawBufferPointer(start: text, count: Int(sqlite3_column_bytes(row, 1))))
        }
    }
}
