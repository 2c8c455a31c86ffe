import Foundation

/// libpq's settings of a connection, resolved as libpq resolves them: the URL's first, then
/// those of its service (`?service=` or PGSERVICE: a section of the service file,
/// `ServiceFile`), then the environment's (PGHOST, PGPORT, PGUSER, PGPASSWORD, PGDATABASE and
/// the variables of `parameters`), then libpq's defaults: the socket directory
/// `defaultSocketDirectory`, port 5432, the login name as the user, the user's name as the
/// database. A password not given is looked up in the password file (`passfile`,
/// PGPASSFILE, ~/.pgpass: `PasswordFile`).
///
/// TLS as libpq settles it (`PostgresTLS`: the sslmode, its files and those in ~/.postgresql).
/// What is wrong throws a `PostgresSettingsError` naming it, never a sentence: the program
/// words it.
public struct PostgresSettings: Sendable {
    /// One setting: its value and where it came from, for sentences (“sslmode” or “PGSSLMODE”).
    public struct Setting: Equatable, Sendable {
        public var value: String
        public var source: String
    }

    /// Where to connect, with every part filled in.
    public let url: PostgresURL
    /// The servers after `url`'s of a URL that names several hosts, in order (their port, when
    /// not given, is the default one).
    public let otherURLs: [PostgresURL]
    /// TLS on the connection (none on a Unix socket, as in libpq).
    public let tls: PostgresTLS
    /// What a server must be to be kept (`target_session_attrs`).
    public let targetSession: TargetSession
    /// How many seconds connecting may take (`connect_timeout`): nil when not given, 0 for no limit.
    public let connectTimeoutSeconds: Int?
    /// What the reading found worth a warning (a password file others may read).
    public let warnings: [PostgresSettingsWarning]
    /// The settings of `parameters` given, by parameter.
    private let given: [String: Setting]

    /// The URL parameters read besides those `PostgresURL.Parts` reads, with their variables.
    public static let parameters = ["sslmode": "PGSSLMODE", "sslrootcert": "PGSSLROOTCERT", "sslcert": "PGSSLCERT", "sslkey": "PGSSLKEY",
                                    "application_name": "PGAPPNAME", "connect_timeout": "PGCONNECT_TIMEOUT",
                                    "channel_binding": "PGCHANNELBINDING", "service": "PGSERVICE", "passfile": "PGPASSFILE",
                                    "options": "PGOPTIONS", "target_session_attrs": "PGTARGETSESSIONATTRS", "sslnegotiation": "PGSSLNEGOTIATION"]
    /// What a service file may set: the URL's parts and `parameters` (but another service).
    static let keywords = Set(["host", "port", "user", "password", "dbname"] + parameters.keys).subtracting(["service"])

    /// The Unix socket directory libpq (as Debian builds it) uses when no host is given.
    public static let defaultSocketDirectory = "/run/postgresql"

    /// The setting of `parameter` (one of `parameters`): the URL's, or else the service's, or
    /// else its variable's; nil when none gives it.
    public func setting(_ parameter: String) -> Setting? { given[parameter] }

    /// Reads a postgres:// URL, filling what it leaves out from `environment` (an empty
    /// variable counts as unset, as in libpq).
    public init(url text: String, environment: [String: String]) throws(PostgresSettingsError) {
        guard let parts = PostgresURL.Parts(string: text) else { throw .malformedURL }
        if let unknown = parts.otherParameters.keys.sorted().first(where: { Self.parameters[$0] == nil }) {
            throw .unknownParameter(unknown)
        }
        func variable(_ name: String) -> String? { environment[name].flatMap { $0.isEmpty ? nil : $0 } }
        let home = variable("HOME") ?? Self.homeDirectory()
        let serviceName = parts.otherParameters["service"] ?? variable("PGSERVICE")
        let service = try serviceName.map { name throws(PostgresSettingsError) in
            try ServiceFile.settings(of: name, environment: variable, home: home)
        } ?? [:]
        var given: [String: Setting] = [:]
        for (parameter, name) in Self.parameters {
            if let value = parts.otherParameters[parameter] ?? service[parameter] {
                given[parameter] = Setting(value: value, source: parameter)
            } else if let value = variable(name) {
                given[parameter] = Setting(value: value, source: name)
            }
        }
        try Self.checkChannelBinding(given["channel_binding"])
        try Self.checkNegotiation(given["sslnegotiation"])
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
            guard let number = Int(pgPort), (1...65535).contains(number) else { throw .notAPort(pgPort, fromService: service["port"] != nil) }
            defaultPort = number
        }
        let user = parts.user ?? service["user"] ?? variable("PGUSER") ?? Self.loginName()
        var url = PostgresURL(user: user, password: parts.password ?? service["password"] ?? variable("PGPASSWORD"), host: host ?? "localhost",
                              socketDirectory: host == nil ? socketDirectory : nil, port: parts.port ?? defaultPort,
                              database: parts.database ?? service["dbname"] ?? variable("PGDATABASE") ?? user)
        if url.socketDirectory == nil {
            tls = try PostgresTLS(setting: { given[$0] }, home: home)
        } else {
            // libpq uses no TLS on a Unix socket, and reads none of its files; a mode it does not know is still refused.
            _ = try given["sslmode"].map { mode throws(PostgresSettingsError) in try SSLMode(parsing: mode.value, from: mode.source) }
            tls = .disabled
        }
        targetSession = try given["target_session_attrs"].map(TargetSession.init(parsing:)) ?? .any
        connectTimeoutSeconds = try given["connect_timeout"].map(Self.connectTimeout)
        var warnings: [PostgresSettingsWarning] = []
        if url.password == nil, let passwordFile = given["passfile"]?.value ?? home.map({ "\($0)/.pgpass" }) {
            let found = PasswordFile(path: passwordFile).password(host: Self.passwordFileHost(of: url), port: url.port,
                                                                  database: url.database, user: url.user)
            url.password = found.password
            warnings += found.warning.map { [$0] } ?? []
        }
        self.url = url
        self.given = given
        self.warnings = warnings
        otherURLs = parts.otherHosts.map { other in
            var next = url
            if other.host.hasPrefix("/") { (next.socketDirectory, next.host) = (other.host, "localhost") } else { (next.host, next.socketDirectory) = (other.host, nil) }
            next.port = other.port ?? defaultPort
            return next
        }
    }
}
