import Foundation
import GRDB
import WorldCup
import WorldCupSQLite

/// The floor of a cold `performFetch`: SQLite alone running the board's order over its
/// index, `SELECT id FROM team ORDER BY …` (no sort step: the index is in that order), read
/// into an array of ids by GRDB's fast path, with no controller, no sort keys and no sections.
enum BareSelect {
    /// The same order as the scoreboard's request (and the peer's query).
    static let sql = RefetchDiffPeer.sql

    /// Milliseconds of one bare select per run, each on a statement prepared afresh.
    static func times(scoreboard: SQLiteTeamStore, rows: Int, runs: Int) throws -> [Double] {
        try (0..<runs).map { _ in
            let (ids, milliseconds) = try scoreboard.database.read { db in
                let start = Monotonic.now()
                let ids = try Int64.fetchAll(db, sql: sql)
                return (ids, Monotonic.milliseconds(from: start, to: Monotonic.now()))
            }
            guard ids.count == rows else { throw BenchError("The bare select read \(ids.count) ids instead of \(rows).") }
            return milliseconds
        }
    }
}
