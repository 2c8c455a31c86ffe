import Foundation
import WorldCup
import WorldCupPostgres

/// Where a command's teams are: a SQLite file, or a database on a PostgreSQL server.
enum StoreLocation {
    case file(URL)
    case server(PostgresLocation)

    /// The place `--database` names (a path, or a postgres:// or postgresql:// URL), or
    /// `WORLDCUP_DATABASE` when it is not given, or the default file.
    init(database: String?, environment: [String: String] = ProcessInfo.processInfo.environment) throws {
        let chosen = database ?? environment["WORLDCUP_DATABASE"].flatMap { $0.isEmpty ? nil : $0 }
        guard let chosen else {
            self = .file(DatabaseFile.defaultDatabaseURL(environment: environment))
            return
        }
        guard PostgresLocation.isURL(chosen) else {
            self = .file(URL(fileURLWithPath: chosen))
            return
        }
        let location = try PostgresLocation(url: chosen, environment: environment)
        for warning in location.warnings { FileHandle.standardError.write(Data("Warning: \(warning)\n".utf8)) }
        self = .server(location)
    }

    /// Opens the store, importing `seed` on first use (already read and checked).
    func open(seed: [SeedTeam]) throws -> any TeamStore {
        switch self {
        case .file(let url): try SQLiteTeamStore(databaseURL: url, seed: seed)
        case .server(let location): try PostgresTeamStore(location: location, seed: seed)
        }
    }

    /// The place as messages show it, quoted (a server's password masked).
    var shown: String {
        switch self {
        case .file(let url): WorldCupError.quotable(url.path)
        case .server(let location): location.databaseAndServer
        }
    }
}

/// The help of every `--database` option.
let databaseHelp = "The SQLite database file, or a PostgreSQL database as a URL: postgres://user:password@host:port/database?sslmode=verify-full&sslrootcert=ca.crt (postgres:///db?host=/run/postgresql for a Unix socket). The query may also hold sslcert, sslkey, application_name, connect_timeout, channel_binding (not require) and service (a section of ~/.pg_service.conf). As in libpq, PGHOST, PGPORT, PGUSER, PGPASSWORD, PGDATABASE, PGSSLMODE, PGSSLROOTCERT, PGSSLCERT, PGSSLKEY, PGAPPNAME, PGCONNECT_TIMEOUT, PGCHANNELBINDING and PGSERVICE fill in what it leaves out, and a password is looked up in PGPASSFILE (default ~/.pgpass); sslmode is libpq's (prefer by default; allow acts as prefer), with ~/.postgresql's root.crt, postgresql.crt and postgresql.key. Default: $WORLDCUP_DATABASE, or the file in $XDG_DATA_HOME/worldcup."
