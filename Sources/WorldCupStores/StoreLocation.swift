import Foundation
import WorldCup
import WorldCupPostgres
import WorldCupSQLite

/// Where a command's teams are: a SQLite file, or a database on a PostgreSQL server, as
/// `--database` names it; shared by worldcup and the programs that open the same boards
/// (Examples/LiveBoardServer).
public enum StoreLocation: Sendable {
    /// The default file, in worldcup's data folder (made when missing).
    case defaultFile(URL)
    /// A file given by `--database` or `WORLDCUP_DATABASE` (its folder must exist).
    case file(URL)
    case server(PostgresLocation)

    /// The place `--database` names (a path, or a postgres:// or postgresql:// URL), or
    /// `WORLDCUP_DATABASE` when it is not given, or the default file.
    ///
    /// A value that looks like a URL of another kind (`postgress://…`, `http://…`) is refused:
    /// taken as a path, a typo would make a private board nobody else sees.
    public init(database: String?, environment: [String: String] = ProcessInfo.processInfo.environment) throws {
        let chosen = database ?? environment["WORLDCUP_DATABASE"].flatMap { $0.isEmpty ? nil : $0 }
        guard let chosen else {
            self = .defaultFile(DatabaseFile.defaultDatabaseURL(environment: environment))
            return
        }
        if PostgresLocation.isURL(chosen) {
            let location = try PostgresLocation(url: chosen, environment: environment)
            for warning in location.warnings { FileHandle.standardError.write(Data("Warning: \(warning)\n".utf8)) }
            self = .server(location)
        } else if let scheme = Self.foreignScheme(of: chosen) {
            throw WorldCupError("The database URL starts with “\(WorldCupError.quotable(scheme))”, which worldcup does not read: give a file's path or a postgres:// URL (did you mean postgres://?).")
        } else {
            self = .file(URL(fileURLWithPath: chosen))
        }
    }

    /// The scheme of a value that looks like a URL (`name://`, or `postgres…:` without its
    /// slashes) but is not a postgres:// one; nil for a plain path. A file really named so is
    /// still reached as `./name://…`.
    public static func foreignScheme(of text: String) -> String? {
        guard let colon = text.firstIndex(of: ":") else { return nil }
        let scheme = text[..<colon]
        guard let first = scheme.first, first.isASCII, first.isLetter,
              scheme.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+.-".contains($0)) }) else { return nil }
        let rest = text[colon...]
        if rest.hasPrefix("://") { return scheme + "://" }
        return scheme.lowercased().hasPrefix("postgres") ? scheme + ":" : nil
    }

    /// Opens the store, importing `seed` on first use (already read and checked). A
    /// `readOnly` store writes nothing, not even on first use: a file is opened with
    /// SQLite's read-only connections, and a database not set up yet is refused.
    ///
    /// - Parameter creating: whether a file given by hand that does not exist yet is made (a
    ///   board's first run); when false it is refused, naming the command that makes one, so
    ///   that a mistyped path never becomes a new board.
    /// - Parameter live: a board will follow the store (on a server, its connection is made
    ///   while the store opens).
    public func open(seed: [SeedTeam], readOnly: Bool = false, author: String = Author.machineDefault(), creating: Bool = true,
                     live: Bool = false) throws -> any TeamStore {
        try checkFolder()
        if !creating { try refuseIfMissing() }
        return switch self {
        case .defaultFile(let url) where readOnly, .file(let url) where readOnly: try SQLiteTeamStore(readOnlyDatabaseURL: url)
        case .defaultFile(let url), .file(let url): try SQLiteTeamStore(databaseURL: url, seed: seed, author: author)
        case .server(let location): try PostgresTeamStore(location: location, seed: seed, readOnly: readOnly, author: author, live: live)
        }
    }

    /// Refuses a file given by hand whose folder does not exist, before anything is made:
    /// worldcup makes no folder but its own default one.
    public func checkFolder() throws {
        if case .file(let url) = self { try DatabaseFile.requireFolder(of: url) }
    }

    /// Refuses a file given by hand (`--database`, `WORLDCUP_DATABASE`) that does not exist,
    /// in one sentence naming the board command that makes it. The default file and a server
    /// pass: the default is made on first use, and a server's database is checked when opened.
    public func refuseIfMissing() throws {
        guard case .file(let url) = self, !FileManager.default.fileExists(atPath: url.path) else { return }
        throw WorldCupError("There is no database at “\(WorldCupError.quotable(url.path))”; \(WorldCupError.shellCommand("worldcup --database", url.path)) opens a new board there.")
    }

    /// The place as messages show it, quoted (a server's password masked).
    public var shown: String {
        switch self {
        case .defaultFile(let url), .file(let url): WorldCupError.quotable(url.path)
        case .server(let location): location.databaseAndServer
        }
    }
}

/// The help of every `--database` option.
public let databaseHelp = "The SQLite database file (its folder must exist), or a PostgreSQL database as a URL: postgres://user:password@host:port/database?sslmode=verify-full&sslrootcert=ca.crt (postgres:///db?host=/run/postgresql or postgres://user@%2Frun%2Fpostgresql/db for a Unix socket; [::1] for an IPv6 address; postgres://h1:5432,h2:5432/db?target_session_attrs=read-write tries the hosts in turn and keeps the primary). The query may also hold sslcert, sslkey, application_name, connect_timeout, channel_binding (not require), passfile, options (-c search_path=worldcup puts the board in a schema of its own) and service (a section of ~/.pg_service.conf). As in libpq, PGHOST, PGPORT, PGUSER, PGPASSWORD, PGDATABASE, PGSSLMODE, PGSSLROOTCERT, PGSSLCERT, PGSSLKEY, PGAPPNAME, PGCONNECT_TIMEOUT, PGCHANNELBINDING, PGOPTIONS, PGTARGETSESSIONATTRS and PGSERVICE fill in what it leaves out, and a password is looked up in PGPASSFILE (default ~/.pgpass); sslmode is libpq's (prefer by default; allow acts as prefer; verify-full checks the host as written against the certificate's names), with ~/.postgresql's root.crt, postgresql.crt and postgresql.key. No board is made in the server's own postgres and template databases, unless in a schema of its own; other URLs are refused. Default: $WORLDCUP_DATABASE, or the file in $XDG_DATA_HOME/worldcup (the one folder worldcup makes)."
