import Foundation
import PostgresNIO

/// A postgres:// URL as libpq reads its common parts: user, password, host or
/// `?host=/socket/dir` (a Unix socket's directory), port (5432), database (`postgres`).
///
/// `postgres://app:secret@db.example:5433/worldcup`, `postgresql://postgres@/bench?host=/tmp/pg`.
///
/// Its password is never printed: `description` (and what `print`, interpolation, `dump` and
/// the debugger show) masks it; only `connectionString`, asked for by name, spells it out.
public struct PostgresURL: Equatable, Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public var user: String
    public var password: String?
    /// The TCP host; ignored when `socketDirectory` is set.
    public var host: String
    /// The directory of the server's Unix socket, from `?host=`.
    public var socketDirectory: String?
    public var port: Int
    public var database: String

    public init(user: String = "postgres", password: String? = nil, host: String = "localhost", socketDirectory: String? = nil,
                port: Int = 5432, database: String = "postgres") {
        self.user = user
        self.password = password
        self.host = host
        self.socketDirectory = socketDirectory
        self.port = port
        self.database = database
    }

    /// Nil when `text` is not a postgres:// or postgresql:// URL. What it leaves out takes
    /// fixed defaults: user `postgres`, host `localhost`, port 5432, database `postgres`.
    public init?(string text: String) {
        guard let parts = Parts(string: text) else { return nil }
        self.init(user: parts.user ?? "postgres", password: parts.password, host: parts.host ?? "localhost",
                  socketDirectory: parts.socketDirectory, port: parts.port ?? 5432, database: parts.database ?? "postgres")
    }

    /// What a postgres:// or postgresql:// URL spells out, nil where it leaves a part to
    /// defaults (a caller fills them in, as libpq does from PGHOST, PGUSER and the like).
    ///
    /// Query parameters as libpq reads them: `host` (a path: a Unix socket's directory),
    /// `port`, `user`, `password`, `dbname`; any other is kept in `otherParameters`.
    public struct Parts: Equatable, Sendable {
        public var user: String?
        public var password: String?
        public var host: String?
        public var socketDirectory: String?
        public var port: Int?
        public var database: String?
        /// Query parameters not listed above, by name.
        public var otherParameters: [String: String] = [:]

        /// Nil when `text` is not a well-formed postgres:// or postgresql:// URL (a port that
        /// is not a number in 1...65535 included).
        public init?(string text: String) {
            guard let url = URLComponents(string: text), let scheme = url.scheme?.lowercased(),
                  ["postgres", "postgresql"].contains(scheme) else { return nil }
            user = url.user.flatMap { $0.isEmpty ? nil : $0 }
            password = url.password
            host = url.host.flatMap { $0.isEmpty ? nil : $0 }
            // libpq's spellings of a host: `[::1]` (an IPv6 address, brackets off) and
            // `%2Frun%2Fpostgresql` (a socket's directory, percent-encoded).
            if let bracketed = host, bracketed.hasPrefix("["), bracketed.hasSuffix("]") { host = String(bracketed.dropFirst().dropLast()) }
            if let path = host, path.hasPrefix("/") {
                socketDirectory = path
                host = nil
            }
            port = url.port
            database = url.path.count > 1 ? String(url.path.dropFirst()) : nil
            for item in url.queryItems ?? [] {
                let value = item.value ?? ""
                switch item.name {
                case "host" where value.hasPrefix("/"):
                    socketDirectory = value
                    host = nil
                case "host":
                    host = value
                    socketDirectory = nil
                case "port":
                    guard let number = Int(value) else { return nil }
                    port = number
                case "user": user = value
                case "password": password = value
                case "dbname": database = value
                default: otherParameters[item.name] = value
                }
            }
            if let port, !(1...65535).contains(port) { return nil }
        }
    }

    /// The connection's configuration (TLS off).
    public var configuration: PostgresConnection.Configuration {
        if let socketDirectory {
            return .init(unixSocketPath: "\(socketDirectory)/.s.PGSQL.\(port)", username: user, password: password, database: database)
        }
        return .init(host: host, port: port, username: user, password: password, database: database, tls: .disable)
    }

    /// The URL with its password masked (`postgres://app:***@db.example:5432/worldcup`).
    public var description: String {
        var shown = self
        if shown.password != nil { shown.password = "***" }
        return shown.connectionString
    }

    public var debugDescription: String { description }

    /// The parts, the password masked.
    public var customMirror: Mirror {
        Mirror(self, children: ["user": user, "password": password.map { _ in "***" } as Any, "host": host,
                                "socketDirectory": socketDirectory as Any, "port": port, "database": database])
    }

    /// The URL, password included, which `init(string:)` reads back as this value: for handing
    /// to another process (its arguments), never for printing.
    public var connectionString: String {
        func encoded(_ text: String, _ allowed: CharacterSet) -> String {
            text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
        }
        var user = encoded(self.user, .urlUserAllowed)
        if let password { user += ":" + encoded(password, .urlPasswordAllowed) }
        let host = socketDirectory != nil ? "" : host.contains(":") ? "[\(host)]" : encoded(host, .urlHostAllowed)
        var queryValue = CharacterSet.urlQueryAllowed
        queryValue.remove(charactersIn: "&=+#")
        let query = socketDirectory.map { "?host=" + encoded($0, queryValue) } ?? ""
        return "postgres://\(user)@\(host):\(port)/\(encoded(database, .urlPathAllowed.subtracting(CharacterSet(charactersIn: "/?#"))))\(query)"
    }
}
