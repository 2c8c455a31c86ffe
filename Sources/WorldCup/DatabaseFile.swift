import Foundation
import GRDB

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

    /// The first bytes of every SQLite 3 database file.
    private static let sqliteHeader = Array("SQLite format 3\0".utf8)

    /// Checks an existing database file without writing to it: it must be a SQLite database
    /// that passes `PRAGMA quick_check` and holds either nothing or the World Cup tables.
    /// A missing or empty file passes: SQLite makes a new database of it.
    static func inspect(_ url: URL) throws {
        let path = url.path
        let shown = WorldCupError.quotable(path)
        let hint = "so it was left untouched (worldcup reset replaces it)"
        if FileManager.default.fileExists(atPath: path), access(path, R_OK | W_OK) != 0 {
            throw WorldCupError("Cannot open the database \(shown) for reading and writing: \(WorldCupError.phrase(errno: errno)).")
        }
        guard let header = try firstBytes(of: path, count: sqliteHeader.count), !header.isEmpty else { return }
        guard header == sqliteHeader else { throw WorldCupError("The file \(shown) is not a SQLite database, \(hint).") }
        var configuration = Configuration()
        configuration.readonly = true
        configuration.busyMode = .timeout(10)
        // Opening a WAL database makes its -wal and -shm files; a refused file keeps no new litter.
        let sideFiles = ["-wal", "-shm"].map { path + $0 }.filter { !FileManager.default.fileExists(atPath: $0) }
        do {
            let probe = try DatabaseQueue(path: path, configuration: configuration)
            defer { try? probe.close() }
            try probe.read { db in
                let check = try String.fetchAll(db, sql: "PRAGMA quick_check")
                guard check == ["ok"] else { throw WorldCupError("The database \(shown) is damaged (its quick check failed), \(hint).") }
                guard try isOurs(db) else {
                    throw WorldCupError("The file \(shown) is a SQLite database of some other program, \(hint).")
                }
            }
        } catch {
            sideFiles.forEach { try? FileManager.default.removeItem(atPath: $0) }
            if let error = error as? DatabaseError { throw describe(error, path: path) }
            throw error
        }
    }

    /// Whether a database is empty or ours: its tables came from our migrations. (Another
    /// process may be migrating it right now, so the test is on applied migrations, not tables.)
    private static func isOurs(_ db: Database) throws -> Bool {
        let tables = try Set(String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'"))
        guard !tables.isEmpty else { return true }
        guard tables.contains("grdb_migrations") else { return false }
        let applied = try Set(String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations"))
        return applied.isEmpty || !applied.isDisjoint(with: Schema.migrator.migrations)
    }

    /// Up to `count` bytes from the start of a file, or nil if it does not exist.
    private static func firstBytes(of path: String, count: Int) throws -> [UInt8]? {
        let file = open(path, O_RDONLY | O_CLOEXEC)
        guard file >= 0 else {
            if errno == ENOENT { return nil }
            throw WorldCupError("Cannot read the database \(WorldCupError.quotable(path)): \(WorldCupError.phrase(errno: errno)).")
        }
        defer { close(file) }
        var bytes = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let got = bytes.withUnsafeMutableBytes { read(file, $0.baseAddress! + filled, count - filled) }
            if got < 0, errno == EINTR { continue }
            guard got > 0 else { break }
            filled += got
        }
        return Array(bytes[..<filled])
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
        default: return message.contains("already exists")
        }
    }

    /// Runs `body`, turning database errors into sentences.
    static func readable<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as DatabaseError {
            throw describe(error, path: nil)
        }
    }

    static func describe(_ error: DatabaseError, path: String?) -> WorldCupError {
        let file = path.map { " " + WorldCupError.quotable($0) } ?? ""
        switch error.resultCode {
        case .SQLITE_NOTADB, .SQLITE_CORRUPT:
            return WorldCupError("The database\(file) is damaged (\(error.message ?? "corrupt")), so it was left untouched (worldcup reset replaces it).")
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
