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
        self = PostgresLocation.isURL(chosen) ? .server(try PostgresLocation(url: chosen, environment: environment))
            : .file(URL(fileURLWithPath: chosen))
    }

    /// Opens the store, importing `seed` on first use (already read and checked). A
    /// `readOnly` store writes nothing, not even on first use: a file is opened with
    /// SQLite's read-only connections, and a database not set up yet is refused.
    func open(seed: [SeedTeam], readOnly: Bool = false) throws -> any TeamStore {
        switch self {
        case .file(let url) where readOnly: try SQLiteTeamStore(readOnlyDatabaseURL: url)
        case .file(let url): try SQLiteTeamStore(databaseURL: url, seed: seed)
        case .server(let location): try PostgresTeamStore(location: location, seed: seed, readOnly: readOnly)
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
let databaseHelp = "The SQLite database file, or a PostgreSQL database as a URL: postgres://user:password@host:port/database (PGHOST, PGPORT, PGUSER, PGPASSWORD and PGDATABASE fill in what it leaves out; postgres:///db?host=/run/postgresql for a Unix socket). Default: $WORLDCUP_DATABASE, or the file in $XDG_DATA_HOME/worldcup."
