import Foundation
import GRDB
import SeededRandom
import WorldCup
import WorldCupSQLite

/// The folder of one run; each size gets a subfolder. A temporary one goes at the end; one
/// given with `--database-folder` stays, with its databases, for the next run to reuse, and
/// is held by one run at a time: two runs on one folder would tap the same databases and
/// replace each other's section caches, which spoils both runs' figures.
struct Workspace {
    let root: URL
    /// Whether the folder and the controller part's databases stay after the run.
    let keepsDatabases: Bool
    /// The lock that keeps other runs out of a kept folder, held until the workspace goes.
    private let lock: FolderLock?

    init(keeping folder: String? = nil) throws {
        keepsDatabases = folder != nil
        root = folder.map { URL(fileURLWithPath: $0, isDirectory: true) } ?? FileManager.default.temporaryDirectory
            .appendingPathComponent("worldcup-bench-\(getpid())-\(UUID().uuidString)", isDirectory: true)
        do {
            try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        } catch {
            throw BenchError("Cannot create the temporary folder \(root.path).")
        }
        lock = keepsDatabases ? try FolderLock(root) : nil
    }

    /// The folder for the database of one size.
    func folder(for rows: Int) -> URL {
        root.appendingPathComponent("rows-\(rows)", isDirectory: true)
    }

    func remove() {
        guard !keepsDatabases else { return }
        try? FileManager.default.removeItem(at: root)
    }
}

/// An exclusive lock on a folder (`flock` on its `.worldcup-bench.lock`), released when the
/// lock goes or the process ends, however it ends.
final class FolderLock {
    private let descriptor: Int32

    /// Takes the lock, or throws at once when another run holds it.
    init(_ folder: URL) throws {
        let path = folder.appendingPathComponent(".worldcup-bench.lock").path
        descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw BenchError("Cannot create the lock file \(path).") }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            close(descriptor)
            throw BenchError("Another worldcup-bench is using the database folder \(folder.path): wait for it to end, or give another --database-folder.")
        }
    }

    deinit { close(descriptor) }
}

/// Builds a scoreboard database of generated teams (`GeneratedTeams`).
enum BenchDatabase {
    /// Creates the database at `url` through the app's own migrations (WAL mode), then inserts
    /// `rows` teams in one transaction with one prepared statement. Team ids are 1...rows.
    static func build(rows: Int, at url: URL, seed: UInt64) throws -> SQLiteTeamStore {
        let scoreboard = try SQLiteTeamStore(databaseURL: url, seedURL: nil)
        try scoreboard.database.write { db in
            for (position, zone) in GeneratedTeams.zones.enumerated() {
                try db.execute(sql: "INSERT INTO zone (id, name, nameKey, position) VALUES (?, ?, ?, ?)",
                               arguments: [position + 1, zone, Team.nameKey(zone), position])
            }
            let columns = GeneratedTeams.columns
            let statement = try db.makeStatement(sql: """
                INSERT INTO team (\(columns.map(\.identifier).joined(separator: ", "))) \
                VALUES (\(columns.map { _ in "?" }.joined(separator: ", ")))
                """)
            for team in GeneratedTeams(rows: rows, seed: seed) {
                try statement.execute(arguments: StatementArguments(GeneratedTeams.values(of: team)))
            }
        }
        // Leave the database at rest, as an app finds it: everything in the main file.
        try scoreboard.database.writeWithoutTransaction { db in _ = try db.checkpoint(.truncate) }
        guard try holds(rows: rows, scoreboard) else {
            throw BenchError("The generated database does not hold teams with ids 1 to \(rows).")
        }
        return scoreboard
    }

    /// The database at `url` when an earlier run left one of `rows` teams there (its wins
    /// changed by that run's taps), or a new one built in its place.
    static func reuseOrBuild(rows: Int, at url: URL, seed: UInt64) throws -> (scoreboard: SQLiteTeamStore, reused: Bool) {
        if FileManager.default.fileExists(atPath: url.path) {
            let scoreboard = try SQLiteTeamStore(databaseURL: url, seedURL: nil)
            if try holds(rows: rows, scoreboard) { return (scoreboard, true) }
        }
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: url.path + suffix) }
        return (try build(rows: rows, at: url, seed: seed), false)
    }

    /// Whether the scoreboard holds exactly the teams with ids 1...rows.
    private static func holds(rows: Int, _ scoreboard: SQLiteTeamStore) throws -> Bool {
        let (count, maxID) = try scoreboard.database.read { db in
            let row = try Row.fetchOne(db, sql: "SELECT count(*), max(id) FROM team")
            return (row?[0] as Int? ?? 0, row?[1] as Int? ?? 0)
        }
        return count == rows && maxID == rows
    }

    /// Reads the pages the taps of `ids` will write: each team's row, its entry in the board's
    /// index, and the place in the index where one more win puts it. Every contender then finds
    /// them in the operating system's cache. Without it, the first to run (the controller)
    /// pays the disk reads of a database that was not in memory, and the floor, last, none.
    static func warmPages(for ids: [Int64], in scoreboard: SQLiteTeamStore) throws {
        try scoreboard.database.read { db in
            let row = try db.cachedStatement(sql: "SELECT zoneID, wins, nameSortKey FROM team WHERE id = ?")
            let entry = try db.cachedStatement(sql: "SELECT 1 FROM team WHERE zoneID = ? AND wins = ? AND nameSortKey >= ? LIMIT 1")
            for id in ids {
                guard let team = try Row.fetchOne(row, arguments: [id]) else { continue }
                let (zone, wins, name): (Int64, Int, String) = (team[0], team[1], team[2])
                for place in [wins, wins + 1] { _ = try Row.fetchOne(entry, arguments: [zone, place, name]) }
            }
        }
    }

    /// `count` random team ids in 1...rows, the same for every run with the same seed.
    static func tapPlan(rows: Int, count: Int, seed: UInt64) -> [Int64] {
        var random = SplitMix64(seed: seed)
        return (0..<count).map { _ in Int64.random(in: 1...Int64(rows), using: &random) }
    }
}
