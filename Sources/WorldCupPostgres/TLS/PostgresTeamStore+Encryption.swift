import PostgresNIO
import PostgresURLs
import WorldCup

extension PostgresTeamStore {
    /// Whether a connection is encrypted, as the server sees it (`pg_stat_ssl`: postgres-nio
    /// does not tell which TLS version it negotiated), and what the client verified.
    public struct Encryption: Equatable, Sendable {
        /// The TLS version (`TLSv1.3`); nil when the connection is in clear.
        public var version: String?
        public var cipher: String?
        /// The TLS settings the connection was made with.
        public var tls: PostgresTLS
        /// The certificate's name that matched the host, for `sslmode=verify-full`.
        public var matchedName: String?

        /// One sentence on it, for `worldcup check`: `server` is `host:port`.
        public func sentence(server: String) -> String {
            guard let version else {
                let why = tls.mode == .disable ? "sslmode=disable" : "the server offers no TLS, and sslmode=\(tls.mode.rawValue) settles for that"
                return "The connection to \(server) is not encrypted (\(why)): use sslmode=verify-full with the server's CA file to make sure of it."
            }
            let cipher = cipher.map { " (\($0))" } ?? ""
            switch tls.verification {
            case .chainAndHostName:
                let name = matchedName.map { "“\(WorldCupError.quotable($0))” matched the host; " } ?? ""
                return "The connection to \(server) is encrypted with \(version)\(cipher), and the server's certificate was verified against \(tls.rootsShown), its name included (\(name)sslmode=verify-full)."
            case .chain:
                return "The connection to \(server) is encrypted with \(version)\(cipher), and the server's certificate was verified against \(tls.rootsShown), not its name (sslmode=\(tls.mode.rawValue))."
            case .none:
                return "The connection to \(server) is encrypted with \(version)\(cipher), but the server's certificate was not verified (sslmode=\(tls.mode.rawValue)): use sslmode=verify-full with the server's CA file to make sure of the server."
            }
        }
    }

    /// What `pg_stat_ssl` says of `connection`, one of this store's.
    func encryption(of connection: PostgresConnection) throws -> Encryption {
        let row = try Self.query(connection, "SELECT ssl, version, cipher FROM pg_stat_ssl WHERE pid = pg_backend_pid()").first
        guard let (ssl, version, cipher) = try row?.decode((Bool, String?, String?).self), ssl else {
            return Encryption(version: nil, cipher: nil, tls: place.tls)
        }
        return Encryption(version: version ?? "TLS", cipher: cipher, tls: place.tls, matchedName: matchedName.withLockedValue { $0 })
    }

    /// Whether the store's connections are encrypted: known from the mode, except for `prefer`
    /// (and `allow`), which asks the server once. Nil when that question failed.
    func isEncrypted() -> Bool? {
        if place.url.socketDirectory != nil || place.tls.mode == .disable { return false }
        if place.tls.mode.demandsTLS { return true }
        if let known = encrypted.withLock({ $0 }) { return known }
        guard case .success(let found) = attempt({ try encryption(of: $0) }) else { return nil }
        encrypted.withLock { $0 = found.version != nil }
        return found.version != nil
    }
}
