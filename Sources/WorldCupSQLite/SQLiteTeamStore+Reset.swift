import Foundation
import GRDB
import WorldCup

extension SQLiteTeamStore {
    /// Resets the database at `url` to the seed at `seedURL` (see `reset(databaseURL:seed:author:)`).
    /// Returns the number of teams.
    @discardableResult
    public static func reset(databaseURL url: URL, seedURL: URL, author: String = Author.machineDefault()) throws -> Int {
        try reset(databaseURL: url, seed: Seed.load(from: seedURL), author: author)
    }

    /// Resets the database at `url` to `teams` (already checked, such as `Seed.bundled()`).
    /// Returns the number of teams.
    ///
    /// A sound database is reset in place, in one transaction, as any change is: open
    /// scoreboards follow it through the change log at once, and their taps after it land in
    /// the file everyone reads (a file replaced under them would keep them writing to the
    /// old one, which nobody reads again). The history is kept, as on PostgreSQL, with an
    /// entry of the reset by `author` (boards name who reset the board); teams get
    /// new ids, so an undo of a change made before the reset is refused. Anything else (a
    /// damaged file, one that is not a database, none) is replaced whole by a fresh one.
    @discardableResult
    public static func reset(databaseURL url: URL, seed teams: [SeedTeam], author: String = Author.machineDefault()) throws -> Int {
        let sound = FileManager.default.fileExists(atPath: url.path) && (try? DatabaseFile.inspect(url, thorough: true).isNew == false) == true
        guard sound else { return try replace(databaseURL: url, seed: teams) }
        let scoreboard = try SQLiteTeamStore(databaseURL: url, seed: nil, author: author)
        defer { try? scoreboard.database.close() }
        return try DatabaseFile.readable {
            try scoreboard.database.write { db in
                // Teams first: each belongs to a zone. Every row's change is logged, as any change's.
                try db.execute(sql: "DELETE FROM team; DELETE FROM zone; DELETE FROM seedImport")
                try insertSeed(teams, db)
                // Who reset it, in the same transaction: open boards name the reset by its author.
                try scoreboard.record(.reset, db)
                return try Team.fetchCount(db)
            }
        }
    }

    /// Replaces the file at `url`, whatever it holds (even a damaged file or one that is not a
    /// database), with a fresh one seeded with `teams`. Returns the number of teams.
    ///
    /// The new database is built, closed and checked in full (`PRAGMA quick_check`) beside
    /// the old one, then renamed over it, so an
    /// interruption leaves either the old file or the new one, never a mix. The old file's
    /// -wal, -shm and -journal files are removed first: SQLite would otherwise replay them
    /// into the new file.
    private static func replace(databaseURL url: URL, seed teams: [SeedTeam]) throws -> Int {
        try DatabaseFile.prepareLocation(of: url)
        let fresh = url.deletingLastPathComponent()
            .appendingPathComponent(".\(url.lastPathComponent).reset-\(getpid())")
        let freshFiles = ["", "-wal", "-shm", "-journal"].map { fresh.path + $0 }
        let removeFresh = { freshFiles.forEach { unlink($0) } }
        removeFresh()
        do {
            let scoreboard = try SQLiteTeamStore(databaseURL: fresh, seedURL: nil)
            try scoreboard.importSeed(teams)
            let count = try scoreboard.teamCount()
            // Everything goes into the file itself, so that it can move without its -wal.
            try DatabaseFile.readable {
                try scoreboard.database.writeWithoutTransaction { _ = try $0.checkpoint(.truncate) }
                try scoreboard.database.close()
            }
            let walSize = (try? FileManager.default.attributesOfItem(atPath: fresh.path + "-wal")[.size] as? Int) ?? 0
            guard walSize == 0 else {
                throw WorldCupError("The new database \(WorldCupError.quotable(fresh.path)) could not be closed cleanly, so the old one was kept.")
            }
            // The whole new file is read once before it replaces anything (it is small).
            try DatabaseFile.inspect(fresh, thorough: true)
            unlink(fresh.path + "-wal")
            unlink(fresh.path + "-shm")
            for suffix in ["-wal", "-shm", "-journal"] where unlink(url.path + suffix) != 0 && errno != ENOENT {
                throw WorldCupError("Cannot remove \(WorldCupError.quotable(url.path + suffix)): \(WorldCupError.phrase(errno: errno)).")
            }
            guard rename(fresh.path, url.path) == 0 else {
                throw WorldCupError("Cannot replace the database \(WorldCupError.quotable(url.path)): \(WorldCupError.phrase(errno: errno)).")
            }
            syncFolder(of: url)
            return count
        } catch {
            removeFresh()
            throw error
        }
    }

    /// Makes a rename in the folder of `url` durable.
    private static func syncFolder(of url: URL) {
        let folder = open(url.deletingLastPathComponent().path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard folder >= 0 else { return }
        fsync(folder)
        close(folder)
    }
}
