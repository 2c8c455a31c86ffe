import Foundation
import PostgresNIO
import PostgresURLs
import WorldCup

/// A scoreboard on a PostgreSQL server, as `--database` names it: a `postgres://` or
/// `postgresql://` URL, with what it leaves out filled in as libpq does (`PostgresSettings`:
/// the service file, the environment, libpq's defaults, the password file).
///
/// `postgres://app:secret@db.example:5433/worldcup`, `postgresql://db.example/worldcup`,
/// `postgres:///worldcup?host=/run/postgresql` (a Unix socket's directory).
///
/// TLS as libpq means it (`PostgresTLS`): `sslmode`, `sslrootcert`, `sslcert`, `sslkey` or
/// PGSSLMODE, PGSSLROOTCERT, PGSSLCERT, PGSSLKEY. Also `options` (PGOPTIONS: the server
/// settings sent at startup, such as `-c search_path=worldcup`, which puts the board in a
/// schema of its own) and `application_name` (PGAPPNAME). What the reading finds wrong is
/// worded by `WorldCupError(_:)`, in PostgresSettings+Sentences.swift.
public struct PostgresLocation: Equatable, Sendable, CustomStringConvertible {
    /// Where to connect, with every part filled in.
    public let url: PostgresURL
    /// TLS on the connection (none on a Unix socket, as in libpq).
    public let tls: PostgresTLS
    /// The `application_name` the server shows for the connections, if any.
    public let applicationName: String?
    /// The servers after `url`'s of a URL that names several hosts, tried in turn (their
    /// port, when not given, is `url`'s).
    public let otherURLs: [PostgresURL]
    /// What a server must be to be kept (`target_session_attrs`).
    public let targetSession: TargetSession
    /// The server settings sent at startup (`options`), if any.
    public let options: String?
    /// The schema `options` puts first in the search path (`-c search_path=worldcup`), where
    /// the board then lives; nil: the default one.
    public var schema: String? { options.flatMap(Self.searchPathSchema) }
    /// How many seconds connecting may take (`connect_timeout`): nil when not given, 0 for no limit.
    public let connectTimeoutSeconds: Int?
    /// What the reading found worth a word on stderr (a password file others may read).
    public let warnings: [String]

    /// The Unix socket directory libpq (as Debian builds it) uses when no host is given.
    public static let defaultSocketDirectory = PostgresSettings.defaultSocketDirectory

    /// Whether `text` (a `--database` value) names a PostgreSQL server rather than a file.
    public static func isURL(_ text: String) -> Bool {
        let lowered = text.lowercased()
        return lowered.hasPrefix("postgres://") || lowered.hasPrefix("postgresql://")
    }

    /// Reads a postgres:// URL, filling what it leaves out from `environment`. Throws one
    /// sentence, which never repeats the URL (it may hold a password), when it is malformed.
    public init(url text: String, environment: [String: String] = ProcessInfo.processInfo.environment) throws {
        let settings: PostgresSettings
        do {
            settings = try PostgresSettings(url: text, environment: environment)
        } catch {
            throw WorldCupError(error)
        }
        url = settings.url
        otherURLs = settings.otherURLs
        tls = settings.tls
        applicationName = settings.setting("application_name")?.value
        options = settings.setting("options")?.value
        targetSession = settings.targetSession
        connectTimeoutSeconds = settings.connectTimeoutSeconds
        warnings = settings.warnings.map(WorldCupError.sentence(for:))
    }

    /// A location already filled in, without TLS.
    public init(_ url: PostgresURL) {
        self.url = url
        tls = .disabled
        applicationName = nil
        options = nil
        otherURLs = []
        targetSession = .any
        connectTimeoutSeconds = nil
        warnings = []
    }

    /// postgres-nio's configuration of a connection: the URL's, with TLS and the application's
    /// name. Throws one sentence when a certificate or key file cannot be used.
    public func connectionConfiguration() throws -> PostgresConnection.Configuration {
        try connectionConfiguration(for: url)
    }

    /// The configuration of a connection to `server` (`url` or one of `otherURLs`).
    func connectionConfiguration(for server: PostgresURL) throws -> PostgresConnection.Configuration {
        var configuration = server.configuration
        if server.socketDirectory == nil { configuration.tls = try tls.connectionTLS() }
        if let applicationName { configuration.options.additionalStartupParameters.append(("application_name", applicationName)) }
        if let options { configuration.options.additionalStartupParameters.append(("options", options)) }
        return configuration
    }

    /// The URL with its password masked (`postgres://app:***@db.example:5432/worldcup`): what
    /// messages and `TeamStore.location` show.
    public var description: String { url.description }

    /// The database's name and its server, for sentences: `“worldcup” on db.example:5432`.
    public var databaseAndServer: String {
        "“\(WorldCupError.quotable(url.database))” on \(server)"
    }

    /// The server: `host:port`, or the Unix socket's path.
    public var server: String {
        url.socketDirectory.map { "\($0)/.s.PGSQL.\(url.port)" } ?? (url.host.contains(":") ? "[\(url.host)]:\(url.port)" : "\(url.host):\(url.port)")
    }
}
