import Foundation
import GRDB
import WorldCup

extension SQLiteTeamStore {
    /// Replaces the database at `url`, whatever it holds (even a damaged file or one that is
    /// not a database), with a fresh one seeded from `seedURL`. Returns the number of teams.
    ///
    /// The new database is built, closed and checked in full (`PRAGMA quick_check`) beside
    /// the old one, then renamed over it, so an
    /// interruption leaves either the old file or the new one, never a mix. The old file's
    /// -wal, -shm and -journal files are removed first: SQLite would otherwise replay them
    /// into the new file. Close other scoreboards on the same file before resetting it.
    @discardableResult
    public static func reset(databaseURL url: URL, seedURL: URL) throws -> Int {
        try reset(databaseURL: url, seed: Seed.load(from: seedURL))
    }

    /// Replaces the database at `url` with a fresh one holding `teams` (already checked, such
    /// as `Seed.bundled()`), as `reset(databaseURL:seedURL:)` does. Returns the number of teams.
    @discardableResult
    public static func reset(databaseURL url: URL, seed teams: [SeedTeam]) throws -> Int {
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
