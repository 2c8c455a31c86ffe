import Foundation
import GRDB
import WorldCup

extension SQLiteTeamStore {
    /// Copies the board, as it was at one moment, to a new SQLite file at `url` with SQLite's
    /// backup API, in one read transaction: every change committed before it, none after,
    /// however many programs are tapping. Never replaces an existing file (see `NewFile`).
    /// The copy is a worldcup database of its own, in rollback-journal mode (one file).
    /// Returns the number of teams copied.
    @discardableResult
    public func backup(to url: URL) throws -> Int {
        var count = 0
        try NewFile.create(at: url, what: "the backup") { temporary in
            count = try DatabaseFile.readable {
                let copy = try DatabaseQueue(path: temporary.path)
                try database.backup(to: copy)
                return try Self.settle(copy)
            }
        }
        return count
    }

    /// Makes a new SQLite board at `url` holding `teams` (a PostgreSQL board's, read in one
    /// statement, in its order), marked seeded so that it is never seeded again, its zones in
    /// the order the teams come in (a zone without teams is not copied). Never replaces an
    /// existing file. Returns the number of teams.
    @discardableResult
    public static func backup(_ teams: [Team], to url: URL) throws -> Int {
        var count = 0
        try NewFile.create(at: url, what: "the backup") { temporary in
            let store = try SQLiteTeamStore(databaseURL: temporary, seed: nil)
            try store.importSeed(teams.map { SeedTeam(teamName: $0.teamName, qualifyingZone: $0.qualifyingZone, imageName: $0.imageName, wins: $0.wins) })
            var keys: [String] = []
            for team in teams where keys.last != Zone.nameKey(team.qualifyingZone) { keys.append(Zone.nameKey(team.qualifyingZone)) }
            try DatabaseFile.readable {
                try store.database.write { db in
                    for (position, key) in keys.enumerated() {
                        try db.execute(sql: "UPDATE zone SET position = ? WHERE nameKey = ?", arguments: [position, key])
                    }
                }
            }
            try DatabaseFile.readable { try store.database.close() }
            count = try DatabaseFile.readable { try settle(DatabaseQueue(path: temporary.path)) }
        }
        return count
    }

    /// Leaves a copy as one self-contained file, checked in full, and closes it. Returns its
    /// number of teams.
    private static func settle(_ copy: DatabaseQueue) throws -> Int {
        let count = try copy.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA journal_mode = DELETE")
            guard try String.fetchOne(db, sql: "PRAGMA quick_check") == "ok" else {
                throw WorldCupError("The copy failed SQLite's quick check, so it was not kept.")
            }
            return try Team.fetchCount(db)
        }
        try copy.close()
        return count
    }
}
