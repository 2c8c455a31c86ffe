import Foundation
import GRDB
import WorldCup
import WorldCupSQLite

/// The floor: what SQLite alone costs for a tap. The same commit as `SQLiteTeamStore.tap`
/// (the single-row `UPDATE … RETURNING` and the history entry that says who tapped), on the
/// same database file, with the same settings (WAL, `synchronous = NORMAL`), but with no
/// controller, no transaction observer and no change-log trigger. It drops the change log's triggers of the file while it runs (so no
/// controller may be open on the file meanwhile), and puts them back.
///
/// It first times the same taps with the change log's triggers in place (still no controller
/// and no observer): the difference between the two is what the log costs a commit.
enum FloorContender {
    /// Microseconds of each measured tap, from the start of its write to its commit: without
    /// the change log (`bare`, the floor) and with it (`withLog`).
    static func measure(databasePath: String, warmUp: [Int64], taps: [Int64]) throws -> (bare: [Double], withLog: [Double]) {
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = NORMAL") }
        let pool = try DatabasePool(path: databasePath, configuration: configuration)
        func tap(_ id: Int64) throws -> Double {
            let start = Monotonic.now()
            let wins = try pool.write { db -> Int? in
                let row = try Row.fetchOne(db.cachedStatement(sql: """
                    UPDATE team SET wins = wins + 1 WHERE id = ? RETURNING teamName, (SELECT name FROM zone WHERE zone.id = team.zoneID), imageName, wins
                    """), arguments: [id])
                guard let row else { return nil }
                try db.cachedStatement(sql: """
                    INSERT INTO history (author, action, teamID, teamName, oldName, oldZone, oldImage, oldWins, newName, newZone, newImage, newWins, undid)
                    VALUES (?, 'tap', ?, ?, NULL, NULL, NULL, NULL, ?, ?, ?, ?, NULL)
                    """).execute(arguments: ["floor@bench", id, row[0], row[0], row[1], row[2], row[3]])
                return row[3]
            }
            let end = Monotonic.now()
            guard wins != nil else { throw BenchError("The floor's tap found no team \(id).") }
            return Monotonic.microseconds(from: start, to: end)
        }
        for id in warmUp { _ = try tap(id) }
        let withLog = try taps.map(tap)
        let triggers = try pool.write { db in
            let triggers = try Row.fetchAll(db, sql: "SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'team'")
                .map { (name: $0["name"] as String, sql: $0["sql"] as String) }
            for trigger in triggers { try db.execute(sql: "DROP TRIGGER \(trigger.name.quotedDatabaseIdentifier)") }
            return triggers
        }
        // Put back as they were, so that a database kept for later runs (--database-folder)
        // still has its change log.
        defer { try? pool.write { db in for trigger in triggers { try db.execute(sql: trigger.sql) } } }
        for id in warmUp { _ = try tap(id) }
        return (try taps.map(tap), withLog)
    }
}
