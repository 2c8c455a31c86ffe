/// libpq's settings of a connection: the parameters read besides the URL's parts, and where
/// each value came from.
public struct PostgresSettings: Sendable {
    /// One setting: its value and where it came from, for sentences (“sslmode” or “PGSSLMODE”).
    public struct Setting: Equatable, Sendable {
        public var value: String
        public var source: String

        public init(value: String, source: String) {
            self.value = value
            self.source = source
        }
    }

    /// The URL parameters read besides those `PostgresURL.Parts` reads, with their variables.
    public static let parameters = ["sslmode": "PGSSLMODE", "sslrootcert": "PGSSLROOTCERT", "sslcert": "PGSSLCERT", "sslkey": "PGSSLKEY",
                                    "application_name": "PGAPPNAME", "connect_timeout": "PGCONNECT_TIMEOUT",
                                    "channel_binding": "PGCHANNELBINDING", "service": "PGSERVICE", "passfile": "PGPASSFILE",
                                    "options": "PGOPTIONS", "target_session_attrs": "PGTARGETSESSIONATTRS", "sslnegotiation": "PGSSLNEGOTIATION"]
    /// What a service file may set: the URL's parts and `parameters` (but another service).
    static let keywords = Set(["host", "port", "user", "password", "dbname"] + parameters.keys).subtracting(["service"])

    /// The Unix socket directory libpq (as Debian builds it) uses when no host is given.
    public static let defaultSocketDirectory = "/run/postgresql"
}
