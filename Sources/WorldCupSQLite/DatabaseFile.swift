import Foundation
import GRDB
import WorldCup

/// Where the database lives, how it is opened, and how its errors read.
public enum DatabaseFile {
    /// `$XDG_DATA_HOME/worldcup/WorldCup.sqlite`, or `~/.local/share/worldcup/WorldCup.sqlite`.
    public static func defaultDatabaseURL(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        let base: URL
        if let xdg = environment["XDG_DATA_HOME"], xdg.hasPrefix("/") {
            base = URL(fileURLWithPath: xdg, isDirectory: true)
        } else {
            let home = environment["HOME"] ?? NSHomeDirectory()
            base = URL(fileURLWithPath: home, isDirectory: true).appendingPathComponent(".local/share", isDirectory: true)
        }
        return base.appendingPathComponent("worldcup/WorldCup.sqlite")
    }

    /// Opens a WAL database at `url`, creating its folder, with a busy timeout so that
    /// concurrent writers wait for each other instead of failing. An existing file is checked
    /// first (see `inspect`), so one that is damaged or not ours is never written to.
    static func openPool(at url: URL) throws -> DatabasePool {
        try prepareLocation(of: url)
        try inspect(url)
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        // In WAL mode, NORMAL never corrupts and never loses a commit to a killed process;
        // only a power cut may undo the last commits. FULL would sync the WAL on every tap.
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
        }
        do {
            return try retryingRaces {
                let pool = try DatabasePool(path: url.path, configuration: configuration)
                // Fail now, with a clear message, if the file is not a database.
                _ = try pool.read { try $0.tableExists("team") }
                return pool
            }
        } catch let error as DatabaseError {
            throw describe(error, path: url.path)
        }
    }

    /// Opens the existing database at `url` read-only (SQLite's read-only connections), for a
    /// board that only watches: the file must exist, pass `inspect` (which needs it readable,
    /// not writable), and have every migration of this program. Nothing is created or written.
    static func openReadOnlyPool(at url: URL) throws -> DatabasePool {
        let shown = WorldCupError.quotable(url.path)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), !isDirectory.boolValue else {
            throw WorldCupError("There is no database \(shown) to watch: a read-only board opens only a board that exists.")
        }
        guard try !inspect(url, forWriting: false).isNew else {
            throw WorldCupError("The database \(shown) is empty, and a read-only board cannot set it up: open it once without --read-only.")
        }
        var configuration = Configuration()
        configuration.readonly = true
        configuration.busyMode = .timeout(10)
        do {
            let pool = try DatabasePool(path: url.path, configuration: configuration)
            guard try pool.read({ try Schema.migrator.hasCompletedMigrations($0) }) else {
                throw WorldCupError("The database \(shown) was made by an older worldcup, and a read-only board cannot bring it up to date: open it once without --read-only.")
            }
            return pool
        } catch let error as DatabaseError {
            throw describe(error, path: url.path)
        }
    }

    /// Makes sure a database can live at `url`: the path is not a folder, its folder exists
    /// (it is created when missing) and is writable, as WAL needs files beside the database.
    static func prepareLocation(of url: URL) throws {
        let path = url.path
        var isDirectory: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory)
        if exists, isDirectory.boolValue {
            throw WorldCupError("The database path \(WorldCupError.quotable(path)) is a folder, not a file.")
        }
        let folder = url.deletingLastPathComponent()
        let shownFolder = WorldCupError.quotable(folder.path)
        if let failure = makeFolder(folder) {
            let reason = failure == ENOENT ? "the system allows no folder there" : WorldCupError.phrase(errno: failure)
            throw WorldCupError("Cannot create the folder \(shownFolder) for the database: \(reason).")
        }
        guard access(folder.path, W_OK | X_OK) == 0 else {
            throw WorldCupError("Cannot save a database in the folder \(shownFolder): \(WorldCupError.phrase(errno: errno)).")
        }
    }

    /// Refuses a database whose folder does not exist (or is not a folder), in one sentence
    /// that gives the command to make it. worldcup makes no folder but its default data
    /// folder, so that a mistyped path is never quietly made into a board nobody else sees.
    /// `what` names the file in the sentence: "the database", "the backup".
    public static func requireFolder(of url: URL, for what: String = "the database") throws {
        let folder = url.deletingLastPathComponent().standardizedFileURL
        var status = stat()
        if stat(folder.path, &status) == 0 {
            guard status.st_mode & S_IFMT == S_IFDIR else {
                throw WorldCupError("Cannot save \(what) in \(WorldCupError.quotable(folder.path)): \(WorldCupError.phrase(errno: ENOTDIR)).")
            }
            return
        }
        let failure = errno
        guard failure == ENOENT else {
            throw WorldCupError("Cannot save \(what) in the folder \(WorldCupError.quotable(folder.path)): \(WorldCupError.phrase(errno: failure)).")
        }
        throw WorldCupError("The folder \(WorldCupError.quotable(folder.path)) does not exist, and worldcup makes no folder but its own: make it with \(WorldCupError.shellCommand("mkdir -p", folder.path)) if \(what) belongs there.")
    }

    /// Creates a folder and its missing parents, like `mkdir -p`; returns the `errno` of the
    /// step that failed, if one did.
    private static func makeFolder(_ folder: URL) -> Int32? {
        var path = ""
        for component in folder.standardizedFileURL.pathComponents where component != "/" {
            path += "/" + component
            if mkdir(path, 0o755) == 0 { continue }
            let failure = errno
            var status = stat()
            guard stat(path, &status) == 0 else { return failure }
            guard status.st_mode & S_IFMT == S_IFDIR else { return ENOTDIR }
        }
        return nil
    }

    /// Brings the schema up to date.
    static func migrate(_ database: DatabasePool) throws {
        do {
            try retryingRaces { try Schema.migrator.migrate(database) }
        } catch let error as DatabaseError {
            throw describe(error, path: database.path)
        }
    }

    /// Runs `body` again (up to eight times, after a short random pause) when it lost a race
    /// that only processes opening a new file at the same moment run: SQLite answers busy at
    /// once, without waiting, to the one that would deadlock switching the file to WAL, and
    /// GRDB's migrator, whose transactions are deferred, may find a migration created or
    /// recorded by another process since it looked. The loser finds the work done next time.
    static func retryingRaces<T>(_ body: () throws -> T) throws -> T {
        var attempt = 0
        while true {
            do {
                return try body()
            } catch let error as DatabaseError where attempt < 8 && isRace(error) {
                attempt += 1
                usleep(UInt32.random(in: 5_000...20_000) * UInt32(attempt))
            }
        }
    }

    private static func isRace(_ error: DatabaseError) -> Bool {
        let message = error.message ?? ""
        switch error.resultCode {
        case .SQLITE_BUSY, .SQLITE_LOCKED: return true
        case .SQLITE_CONSTRAINT: return message.contains("grdb_migrations")
        // A table, index or column (v6's ALTER TABLE) another process made first.
        default: return message.contains("already exists") || message.contains("duplicate column name")
        }
    }

    /// Runs `body`, turning database errors into sentences.
    static func readable<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as DatabaseError {
            throw describe(error, path: nil)
        } catch let error as RowDecodingError {
            throw damage(in: error) ?? error
        }
    }

    /// The sentence for a damaged database file, with SQLite's reason.
    private static func damaged(file: String, reason: String) -> WorldCupError {
        .damage("The database\(file) is damaged (\(WorldCupError.quotable(reason))), \(untouched).")
    }

    /// The sentence for a row that does not decode. Every column of ours that is read as a
    /// value is NOT NULL and typed: such a row was damaged in a way SQLite's page checks did
    /// not notice.
    static func damagedRow(path: String?) -> WorldCupError {
        damaged(file: path.map { " " + WorldCupError.quotable($0) } ?? "", reason: "a row holds a value its table cannot hold")
    }

    /// SQLite's sentences for SQLITE_CORRUPT and SQLITE_NOTADB, as `LiveResultsError`
    /// passes them on (it keeps SQLite's message but not its result code).
    private static let damageMessages = ["database disk image is malformed", "file is not a database", "malformed database schema"]

    /// The one sentence for `error` if it says that the database file is damaged, wherever
    /// it came from: SQLite (SQLITE_CORRUPT, SQLITE_NOTADB), the results controller (which
    /// passes SQLite's message on), or a check. Nil for every other error.
    public static func damage(in error: any Error, path: String? = nil) -> WorldCupError? {
        switch error {
        case let error as WorldCupError:
            return error.isDamage ? error : nil
        case let error as DatabaseError:
            let described = describe(error, path: path)
            return described.isDamage ? described : nil
        case is RowDecodingError:
            return damagedRow(path: path)
        default:
            let text = "\(error)"
            guard let message = damageMessages.first(where: { text.contains($0) }) else { return nil }
            return damaged(file: path.map { " " + WorldCupError.quotable($0) } ?? "", reason: message)
        }
    }

    static func describe(_ error: DatabaseError, path: String?) -> WorldCupError {
        let file = path.map { " " + WorldCupError.quotable($0) } ?? ""
        switch error.resultCode {
        case .SQLITE_NOTADB, .SQLITE_CORRUPT:
            return damaged(file: file, reason: error.message ?? "corrupt")
        case .SQLITE_CANTOPEN, .SQLITE_PERM, .SQLITE_READONLY:
            return WorldCupError("Cannot open the database\(file) for writing: check that the location exists and is writable.")
        case .SQLITE_BUSY, .SQLITE_LOCKED:
            return WorldCupError("The database\(file) stayed busy for too long; try again.")
        case .SQLITE_FULL:
            return WorldCupError("The disk is full; nothing was saved.")
        case .SQLITE_CONSTRAINT:
            return WorldCupError("The change breaks a rule of the database (\(error.message ?? "constraint failed")); nothing was saved.")
        default:
            return WorldCupError("The database\(file) failed: \(error.message ?? "error \(error.resultCode.rawValue)").")
        }
    }
}
