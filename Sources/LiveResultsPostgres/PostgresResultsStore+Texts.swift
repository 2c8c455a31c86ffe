import Foundation
import LiveResults
import NIOCore
import PostgresNIO

// Reading a filter's column (`ResultsFilter`) on PostgreSQL: every row's value once, then the
// values of the rows a commit changed. Values are read as text (`::text`), whose UTF-8 bytes
// the filter matches as `strpos(column, text) > 0` would.

extension PostgresResultsStore {
    func forEachText(inColumn column: String, table: String, ids: [RecordID]?,
                     _ body: (RecordID, UnsafeRawBufferPointer?) throws -> Void) throws {
        var bindings = PostgresBindings()
        var sql = "SELECT " + PostgresSQL.identifier(idColumn) + ", " + PostgresSQL.identifier(column) + "::text FROM "
            + PostgresSQL.identifier(table)
        if let ids {
            guard !ids.isEmpty else { return }
            bindings.append(ids)
            sql += " WHERE " + PostgresSQL.identifier(idColumn) + " = ANY($1)"
        }
        let query = PostgresQuery(unsafeSQL: sql, binds: bindings)
        let rows = try database.read { connection in
            try PostgresKeyQuery.running { try connection.rowsWithinDeadline(query, logger: database.logger) }
        }
        for row in rows {
            var cells = row.makeIterator()
            guard let idCell = cells.next(), let textCell = cells.next() else { continue }
            let id = try idCell.decode(Int64.self)
            guard let bytes = textCell.bytes else {
                try body(id, nil)
                continue
            }
            try bytes.withUnsafeReadableBytes { try body(id, $0) }
        }
    }
}
