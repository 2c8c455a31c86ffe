import Foundation
import PostgresNIO
import PostgresURLs
import WorldCup

/// A scoreboard on a PostgreSQL server, as `--database` names it: a `postgres://` or
/// `postgresql://` URL, with what it leaves out filled in from the environment as libpq does.
///
/// `postgres://app:secret@db.example:5433/worldcup`, `postgresql://db.example/worldcup`,
/// `postgres:///worldcup?host=/run/postgresql` (a Unix socket's directory). Missing parts come
/// from PGHOST (a path: a socket's directory), PGPORT, PGUSER, PGPASSWORD and PGDATABASE, then
/// libpq's defaults: the socket directory /run/postgresql, port 5432, the login name as the
/// user, the user's name as the database. A password not given is looked up in the password
/// file (PGPASSFILE, ~/.pgpass).
///
/// TLS as libpq means it (`PostgresTLS`): `sslmode`, `sslrootcert`, `sslcert`, `sslkey` or
/// PGSSLMODE, PGSSLROOTCERT, PGSSLCERT, PGSSLKEY. Also `passfile` (PGPASSFILE), `options`
/// (PGOPTIONS: the server settings sent at startup, such as `-c search_path=worldcup`, which
/// puts the board in a schema of its own), `application_name` (PGAPPNAME),
/// `connect_timeout` (PGCONNECT_TIMEOUT), `channel_binding` (PGCHANNELBINDING; `require`
/// is refused: postgres-nio has no SCRAM-SHA-256-PLUS) and `service` (PGSERVICE: a section of
/// the service file, `ServiceFile`, whose settings come before the environment's).
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
        do {
            self = try Self(reading: text, environment: environment)
        } catch let error as PostgresSettingsError {
            throw WorldCupError(error)
        }
    }

    private init(reading text: String, environment: [String: String]) throws {
        guard let parts = PostgresURL.Parts(string: text) else { throw PostgresSettingsError.malformedURL }
        if let unknown = parts.otherParameters.keys.sorted().first(where: { PostgresSettings.parameters[$0] == nil }) {
            throw PostgresSettingsError.unknownParameter(unknown)
        }
        func variable(_ name: String) -> String? { environment[name].flatMap { $0.isEmpty ? nil : $0 } }
        let home = variable("HOME") ?? Self.homeDirectory()
        let serviceName = parts.otherParameters["service"] ?? variable("PGSERVICE")
        let service = try serviceName.map { try ServiceFile.settings(of: $0, environment: variable, home: home) } ?? [:]
        /// A parameter of the URL, or else of the service, or else its variable.
        func setting(_ parameter: String) -> PostgresTLS.Setting? {
            if let value = parts.otherParameters[parameter] { return .init(value: value, source: parameter) }
            if let value = service[parameter] { return .init(value: value, source: parameter) }
            let name = PostgresSettings.parameters[parameter] ?? parameter
            return variable(name).map { .init(value: $0, source: name) }
        }
        try Self.checkChannelBinding(setting("channel_binding"))
        try Self.checkNegotiation(setting("sslnegotiation"))
        var socketDirectory = parts.socketDirectory
        var host = parts.host
        if host == nil, socketDirectory == nil {
            if let pgHost = service["host"] ?? variable("PGHOST") {
                if pgHost.hasPrefix("/") { socketDirectory = pgHost } else { host = pgHost }
            } else {
                socketDirectory = Self.defaultSocketDirectory
            }
        }
        // The port of a host that gives none: the service's, PGPORT, or 5432.
        var defaultPort = 5432
        let needsDefault = parts.port == nil || parts.otherHosts.contains { $0.port == nil }
        if needsDefault, let pgPort = service["port"] ?? variable("PGPORT") {
            guard let number = Int(pgPort), (1...65535).contains(number) else {
                throw PostgresSettingsError.notAPort(pgPort, fromService: service["port"] != nil)
            }
            defaultPort = number
        }
        let port = parts.port ?? defaultPort
        let user = parts.user ?? service["user"] ?? variable("PGUSER") ?? Self.loginName()
        var url = PostgresURL(user: user, password: parts.password ?? service["password"] ?? variable("PGPASSWORD"), host: host ?? "localhost",
                              socketDirectory: host == nil ? socketDirectory : nil, port: port,
                              database: parts.database ?? service["dbname"] ?? variable("PGDATABASE") ?? user)
        if url.socketDirectory == nil {
            tls = try PostgresTLS(setting: setting, home: home)
        } else {
            // libpq uses no TLS on a Unix socket, and reads none of its files; a mode it does not know is still refused.
            _ = try setting("sslmode").map { try SSLMode(parsing: $0.value, from: $0.source) }
            tls = .disabled
        }
        applicationName = setting("application_name")?.value
        options = setting("options")?.value
        targetSession = try setting("target_session_attrs").map(TargetSession.init(parsing:)) ?? .any
        connectTimeoutSeconds = try setting("connect_timeout").map(Self.connectTimeout)
        var warnings: [String] = []
        if url.password == nil, let passwordFile = setting("passfile")?.value ?? home.map({ "\($0)/.pgpass" }) {
            let found = PasswordFile(path: passwordFile).password(host: Self.passwordFileHost(of: url), port: url.port,
                                                                  database: url.database, user: url.user)
            url.password = found.password
            warnings += found.warning.map { [WorldCupError.sentence(for: $0)] } ?? []
        }
        self.url = url
        self.warnings = warnings
        otherURLs = parts.otherHosts.map { other in
            var next = url
            if other.host.hasPrefix("/") { (next.socketDirectory, next.host) = (other.host, "localhost") } else { (next.host, next.socketDirectory) = (other.host, nil) }
            next.port = other.port ?? defaultPort
            return next
        }
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

    /// Throws for a `channel_binding` postgres-nio cannot honour.
    private static func checkChannelBinding(_ setting: PostgresTLS.Setting?) throws(PostgresSettingsError) {
        guard let setting else { return }
        switch setting.value {
        case "disable", "prefer": return
        case "require": throw .channelBindingRequired(source: setting.source)
        default: throw .unknownChannelBinding(setting.value, source: setting.source)
        }
    }

    /// Throws for an `sslnegotiation` (libpq 17's) postgres-nio cannot honour:
    /// it asks the server for TLS first (`postgres`, libpq's default), never starts with the
    /// TLS handshake (`direct`, which needs PostgreSQL 17 on the server too).
    private static func checkNegotiation(_ setting: PostgresTLS.Setting?) throws(PostgresSettingsError) {
        guard let setting else { return }
        switch setting.value {
        case "postgres": return
        case "direct": throw .directNegotiation(source: setting.source)
        default: throw .unknownNegotiation(setting.value, source: setting.source)
        }
    }

    /// libpq's reading of `connect_timeout`: whole seconds, 0 or less for no limit, 1 read as 2.
    private static func connectTimeout(_ setting: PostgresTLS.Setting) throws(PostgresSettingsError) -> Int {
        guard let seconds = Int(setting.value.trimmingCharacters(in: .whitespaces)) else {
            throw .notSeconds(setting.value, source: setting.source)
        }
        return seconds <= 0 ? 0 : max(seconds, 2)
    }

    /// The host as the password file names it: libpq's `localhost` for the default socket
    /// directory, another socket's directory as it is.
    private static func passwordFileHost(of url: PostgresURL) -> String {
        guard let directory = url.socketDirectory else { return url.host }
        return [defaultSocketDirectory, "/var/run/postgresql"].contains(directory) ? "localhost" : directory
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

    /// The home directory of the user this process runs as (when HOME is not set).
    private static func homeDirectory() -> String? {
        guard let entry = getpwuid(geteuid()), let home = entry.pointee.pw_dir else { return nil }
        return String(cString: home)
    }

    /// The name this process runs as, libpq's default user.
    private static func loginName() -> String {
        guard let entry = getpwuid(geteuid()), let name = entry.pointee.pw_name else { return "postgres" }
        return String(cString: name)
    }
}
