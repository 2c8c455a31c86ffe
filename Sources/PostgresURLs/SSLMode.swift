/// libpq's `sslmode`: whether a connection uses TLS and what it verifies.
///
/// `allow` (libpq: try without TLS first) cannot be expressed with postgres-nio, which either
/// asks for TLS first or never: it is treated as `prefer`.
public enum SSLMode: String, CaseIterable, Equatable, Sendable {
    /// No TLS.
    case disable
    /// Treated as `prefer`.
    case allow
    /// TLS when the server offers it, nothing verified (libpq's default).
    case prefer
    /// TLS or no connection; the chain is verified only when a root certificate file is at hand.
    case require
    /// TLS, the server's chain leading to the root certificates.
    case verifyCA = "verify-ca"
    /// `verifyCA`, and the server's certificate names the host.
    case verifyFull = "verify-full"

    /// The mode `text` names (an `sslmode` parameter or PGSSLMODE, the `source`).
    public init(parsing text: String, from source: String) throws(PostgresSettingsError) {
        guard let mode = SSLMode(rawValue: text) else { throw .unknownSSLMode(text, source: source) }
        self = mode
    }

    /// Whether the mode wants TLS at all (`prefer` and `allow` settle for a connection in clear).
    public var demandsTLS: Bool { self == .require || self == .verifyCA || self == .verifyFull }

    /// Whether the mode refuses a server whose certificate is not vouched for.
    public var verifies: Bool { self == .verifyCA || self == .verifyFull }
}
