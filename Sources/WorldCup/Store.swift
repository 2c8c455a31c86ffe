import Foundation
import GRDB

/// Where the database lives, how it is opened, and how its errors read.
public enum Store {
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
    /// concurrent writers wait for each other instead of failing.
    static func openPool(at url: URL) throws -> DatabasePool {
        let path = url.path
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
            throw WorldCupError("The database path \(path) is a folder, not a file.")
        }
        let folder = url.deletingLastPathComponent()
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw WorldCupError("Cannot create the folder \(folder.path) for the database.")
        }
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        // In WAL mode, NORMAL never corrupts and never loses a commit to a killed process;
        // only a power cut may undo the last commits. FULL would sync the WAL on every tap.
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
        }
        do {
            let pool = try DatabasePool(path: path, configuration: configuration)
            // Fail now, with a clear message, if the file is not a database.
            _ = try pool.read { try $0.tableExists("team") }
            return pool
        } catch let error as DatabaseError {
            throw describe(error, path: path)
        }
    }

    /// Brings the schema up to date. Processes that open a new file at the same moment may
    /// race to migrate it; the loser finds the work done when it tries again.
    static func migrate(_ database: DatabasePool) throws {
        var attempt = 0
        while true {
            do {
                try Schema.migrator.migrate(database)
                return
            } catch let error as DatabaseError where attempt < 5 {
                let raced = error.resultCode == .SQLITE_BUSY || error.resultCode == .SQLITE_LOCKED
                    || (error.message ?? "").contains("already exists")
                guard raced else { throw describe(error, path: database.path) }
                attempt += 1
                usleep(UInt32(20_000 * attempt))
            } catch let error as DatabaseError {
                throw describe(error, path: database.path)
            }
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
        let file = path.map { " \($0)" } ?? ""
        switch error.resultCode {
        case .SQLITE_NOTADB, .SQLITE_CORRUPT:
            return WorldCupError("The file\(file) is not a usable World Cup database (\(error.message ?? "corrupt")); it was left untouched.")
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
