import Foundation
import GRDB
import WorldCup
import WorldCupSQLite

/// The floor of a cold `performFetch`: SQLite alone reading the board's index in its order,
/// `SELECT id FROM team ORDER BY zoneID, …` (no sort step: the index is in that order; each
/// zone's teams in the scoreboard's order), read into an array of ids by GRDB's fast path,
/// with no controller, no sort keys, no join and no sections.
enum BareSelect {
    /// The index's order: the zone's id (not its position, which is the zone table's), then
    /// the scoreboard's order inside a zone.
    static let sql = "SELECT id FROM team ORDER BY zoneID, \(Team.boardOrderSQL)"

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
