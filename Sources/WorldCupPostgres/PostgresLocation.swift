import Foundation
import PostgresURLs
import WorldCup

/// A scoreboard on a PostgreSQL server, as `--database` names it: a `postgres://` or
/// `postgresql://` URL, with what it leaves out filled in from the environment as libpq does.
///
/// `postgres://app:secret@db.example:5433/worldcup`, `postgresql://db.example/worldcup`,
/// `postgres:///worldcup?host=/run/postgresql` (a Unix socket's directory). Missing parts come
/// from PGHOST (a path: a socket's directory), PGPORT, PGUSER, PGPASSWORD and PGDATABASE, then
/// libpq's defaults: the socket directory /run/postgresql, port 5432, the login name as the
/// user, the user's name as the database. TLS is not supported: `sslmode` may only be
/// `disable`, `allow` or `prefer`.
public struct PostgresLocation: Equatable, Sendable, CustomStringConvertible {
    /// Where to connect, with every part filled in.
    public let url: PostgresURL

    /// The Unix socket directory libpq (as Debian builds it) uses when no host is given.
    public static let defaultSocketDirectory = "/run/postgresql"

    /// Whether `text` (a `--database` value) names a PostgreSQL server rather than a file.
    public static func isURL(_ text: String) -> Bool {
        let lowered = text.lowercased()
        return lowered.hasPrefix("postgres://") || lowered.hasPrefix("postgresql://")
    }

    /// Reads a postgres:// URL, filling what it leaves out from `environment`. Throws one
    /// sentence, which never repeats the URL (it may hold a password), when it is malformed.
    public init(url text: String, environment: [String: String] = ProcessInfo.processInfo.environment) throws {
        guard let parts = PostgresURL.Parts(string: text) else {
            throw WorldCupError("The database URL is not a valid PostgreSQL URL (postgres://user:password@host:port/database).")
        }
        if let mode = parts.otherParameters["sslmode"], !["disable", "allow", "prefer"].contains(mode) {
            throw WorldCupError("Connecting to PostgreSQL over TLS is not supported yet: use sslmode=disable, or a Unix socket.")
        }
        if let unknown = parts.otherParameters.keys.sorted().first(where: { $0 != "sslmode" }) {
            throw WorldCupError("The database URL has a parameter worldcup does not know: “\(WorldCupError.quotable(unknown))”.")
        }
        func variable(_ name: String) -> String? { environment[name].flatMap { $0.isEmpty ? nil : $0 } }
        var socketDirectory = parts.socketDirectory
        var host = parts.host
        if host == nil, socketDirectory == nil {
            if let pgHost = variable("PGHOST") {
                if pgHost.hasPrefix("/") { socketDirectory = pgHost } else { host = pgHost }
            } else {
                socketDirectory = Self.defaultSocketDirectory
            }
        }
        var port = parts.port
        if port == nil, let pgPort = variable("PGPORT") {
            guard let number = Int(pgPort), (1...65535).contains(number) else {
                throw WorldCupError("PGPORT is not a port number: “\(WorldCupError.quotable(pgPort))”.")
            }
            port = number
        }
        let user = parts.user ?? variable("PGUSER") ?? Self.loginName()
        url = PostgresURL(user: user, password: parts.password ?? variable("PGPASSWORD"), host: host ?? "localhost",
                          socketDirectory: host == nil ? socketDirectory : nil, port: port ?? 5432,
                          database: parts.database ?? variable("PGDATABASE") ?? user)
    }

    /// A location already filled in.
    public init(_ url: PostgresURL) {
        self.url = url
    }

    /// The URL with its password masked (`postgres://app:***@db.example:5432/worldcup`): what
    /// messages and `TeamStore.location` show.
    public var description: String {
        var shown = url
        if shown.password != nil { shown.password = "***" }
        return shown.description
    }

    /// The database's name and its server, for sentences: `“worldcup” on db.example:5432`.
    public var databaseAndServer: String {
        "“\(WorldCupError.quotable(url.database))” on \(server)"
    }

    /// The server: `host:port`, or the Unix socket's path.
    public var server: String {
        url.socketDirectory.map { "\($0)/.s.PGSQL.\(url.port)" } ?? "\(url.host):\(url.port)"
    }

    /// The name this process runs as, libpq's default user.
    private static func loginName() -> String {
        guard let entry = getpwuid(geteuid()), let name = entry.pointee.pw_name else { return "postgres" }
        return String(cString: name)
    }
}
