import Foundation
import GRDB
import WorldCup

/// What `DatabaseFile.inspect` found in a file it accepted.
public struct DatabaseInspection: Equatable, Sendable {
    /// Why the whole file was read by `PRAGMA quick_check`.
    public enum FullCheckReason: Equatable, Sendable {
        /// The caller asked for it (`worldcup check`, `worldcup reset`).
        case asked
        /// The last program to write the file ended without closing it (see `SideFiles`).
        case crash
        /// The header's page count cannot be trusted, or disagrees with the file's size
        /// in a way that is not plainly damage.
        case doubtfulSize
    }

    /// Whether there was no database yet: no file, or an empty one (SQLite makes a new
    /// database of it).
    public var isNew: Bool
    /// Why the whole file was checked; nil when the cheap checks were enough.
    public var fullCheck: FullCheckReason?
    /// The teams in the file, when asked for (nil for a file without the team table yet).
    public var teamCount: Int?
}

extension DatabaseFile {
    /// How a refused file is described after its reason.
    static let untouched = "so it was left untouched (worldcup reset replaces it)"

    /// Checks an existing database file without writing to it, and throws one sentence if it
    /// is damaged or not ours. A missing or empty file passes: SQLite makes a new database of it.
    ///
    /// Cheap by default, so that opening a million teams costs what opening 32 does: the
    /// 100-byte header (SQLite's magic, page size, format), the page count against the
    /// file's size, and the schema (the tables come from our migrations). The whole file is
    /// read (`PRAGMA quick_check`) only when it pays: when `thorough` (`worldcup check`,
    /// before `reset`), after a crash (SQLite's own evidence, see `SideFiles`), or when the
    /// header's page count is in doubt. Damage the cheap checks miss is caught where SQLite
    /// meets it, as SQLITE_CORRUPT or SQLITE_NOTADB (see `damage(in:)`).
    ///
    /// - Parameter countTeams: also count the teams (for `worldcup check`).
    /// - Parameter forWriting: whether the file must be writable too (not for a read-only board).
    @discardableResult
    static func inspect(_ url: URL, thorough: Bool = false, countTeams: Bool = false, forWriting: Bool = true) throws -> DatabaseInspection {
        let path = url.path
        let shown = WorldCupError.quotable(path)
        if FileManager.default.fileExists(atPath: path), access(path, forWriting ? R_OK | W_OK : R_OK) != 0 {
            let purpose = forWriting ? "reading and writing" : "reading"
            var error = WorldCupError("Cannot open the database \(shown) for \(purpose): \(WorldCupError.phrase(errno: errno)).")
            error.readableOnly = forWriting && access(path, R_OK) == 0
            throw error
        }
        let locks = FileLocks.current()
        var reason: DatabaseInspection.FullCheckReason? = thorough ? .asked : nil
        // This process has the file open already (a second store on it) and inspected it
        // then. Reading it again would mean closing a descriptor of it, which would drop the
        // locks SQLite holds on it for this process: only SQLite reads it now.
        if locks.isLocked(path, by: getpid()) {
            guard thorough || countTeams else { return DatabaseInspection(isNew: false) }
        } else {
            guard let (bytes, fileSize) = try start(of: path, count: DatabaseHeader.size), fileSize > 0 else {
                return DatabaseInspection(isNew: true)
            }
            reason = try cheapChecks(path: path, bytes: bytes, fileSize: fileSize, sideFiles: SideFiles.look(beside: path, locks: locks)) ?? reason
        }

        // Opening a WAL database makes its -wal and -shm files. When neither they nor a
        // journal are there, no program has the file open and there is nothing to recover:
        // the probe may then open it for writing (it only reads), so that closing it, as the
        // last connection, deletes the files it made, as SQLite does. Otherwise it opens it
        // read-only, and never recovers or rolls back anything into the file; what it made
        // is removed if the file is refused. For a read-only board it never opens it for writing.
        let sideFilePaths = ["-wal", "-shm"].map { path + $0 }.filter { !FileManager.default.fileExists(atPath: $0) }
        var configuration = Configuration()
        configuration.readonly = !forWriting || sideFilePaths.count < 2 || FileManager.default.fileExists(atPath: path + "-journal")
        configuration.busyMode = .timeout(10)
        do {
            let probe = try DatabaseQueue(path: path, configuration: configuration)
            defer { try? probe.close() }
            return try probe.read { db in
                if reason != nil {
                    let check = try String.fetchAll(db, sql: "PRAGMA quick_check")
                    guard check == ["ok"] else { throw damaged(path, "its quick check failed") }
                }
                guard try isOurs(db) else {
                    throw WorldCupError("The file \(shown) is a SQLite database of some other program, \(untouched).")
                }
                var teams: Int?
                if countTeams, try db.tableExists("team") { teams = try Int.fetchOne(db, sql: "SELECT count(*) FROM team") }
                return DatabaseInspection(isNew: false, fullCheck: reason, teamCount: teams)
            }
        } catch {
            sideFilePaths.forEach { try? FileManager.default.removeItem(atPath: $0) }
            throw damage(in: error, path: path) ?? ((error as? DatabaseError).map { describe($0, path: path) } ?? error)
        }
    }

    /// The sentence for a file found damaged before SQLite read it.
    private static func damaged(_ path: String, _ reason: String) -> WorldCupError {
        .damage("The database \(WorldCupError.quotable(path)) is damaged (\(reason)), \(untouched).")
    }

    /// The checks that read nothing but the header and the sizes of files: throws for a file
    /// that is not a database or is damaged, and returns why the whole file should be read,
    /// if it should.
    private static func cheapChecks(path: String, bytes: [UInt8], fileSize: Int, sideFiles: SideFiles) throws -> DatabaseInspection.FullCheckReason? {
        guard let header = DatabaseHeader(bytes) else {
            throw WorldCupError("The file \(WorldCupError.quotable(path)) is not a SQLite database, \(untouched).")
        }
        guard fileSize >= 512 else { throw damaged(path, "it is cut short, \(fileSize) bytes") }
        if let problem = header.problem { throw damaged(path, problem) }
        if sideFiles.showCrash { return .crash }
        // With a log, the file may lag behind it, or be half-way through a checkpoint: the
        // log, not the file, then says how long the database is. Without one, the file alone
        // is the database, and its size must hold every page the header counts.
        guard sideFiles.walBytes == 0 else { return nil }
        guard let pages = header.trustedPageCount else { return .doubtfulSize }
        let expected = pages * header.pageSize
        if fileSize < expected {
            throw damaged(path, "it is shorter than its header says, \(fileSize / header.pageSize) of \(pages) pages")
        }
        return fileSize == expected ? nil : .doubtfulSize
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

    /// Up to `count` bytes from the start of a file, and the file's size; nil if it does not exist.
    private static func start(of path: String, count: Int) throws -> (bytes: [UInt8], size: Int)? {
        let file = open(path, O_RDONLY | O_CLOEXEC)
        guard file >= 0 else {
            if errno == ENOENT { return nil }
            throw WorldCupError("Cannot read the database \(WorldCupError.quotable(path)): \(WorldCupError.phrase(errno: errno)).")
        }
        defer { close(file) }
        var status = stat()
        guard fstat(file, &status) == 0 else {
            throw WorldCupError("Cannot read the database \(WorldCupError.quotable(path)): \(WorldCupError.phrase(errno: errno)).")
        }
        var bytes = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let got = bytes.withUnsafeMutableBytes { read(file, $0.baseAddress! + filled, count - filled) }
            if got < 0, errno == EINTR { continue }
            guard got > 0 else { break }
            filled += got
        }
        return (Array(bytes[..<filled]), Int(status.st_size))
    }
}
