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
        /// The hosts after the first of a URL that names several, in order (libpq's
        /// `postgres://h1:5432,h2:5433/db`, or `?host=h1,h2&port=5432,5433`); a host that is a
        /// path is a socket's directory; a port not given is the default one (libpq's rule), or
        /// the one `?port=` gives for every host.
        public var otherHosts: [HostAndPort] = []

        /// One host of several, and its port if given.
        public struct HostAndPort: Equatable, Sendable {
            public var host: String
            public var port: Int?

            public init(host: String, port: Int? = nil) {
                self.host = host
                self.port = port
            }
        }

        /// Nil when `text` is not a well-formed postgres:// or postgresql:// URL (a port that
        /// is not a number in 1...65535 included).
        public init?(string text: String) {
            // Several hosts in the authority: the first is read as the URL's, the others kept.
            var text = text
            if let scheme = text.range(of: "://") {
                let authority = text[scheme.upperBound...].prefix { $0 != "/" && $0 != "?" && $0 != "#" }
                let hostsStart = authority.lastIndex(of: "@").map { authority.index(after: $0) } ?? authority.startIndex
                let hosts = authority[hostsStart...].split(separator: ",", omittingEmptySubsequences: false)
                if hosts.count > 1 {
                    for entry in hosts.dropFirst() {
                        guard let other = Self.hostAndPort(String(entry)) else { return nil }
                        otherHosts.append(other)
                    }
                    text.replaceSubrange(hostsStart..<authority.endIndex, with: hosts[0])
                }
            }
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
            var ports: [Int]?
            var queryPort: Int?
            for item in url.queryItems ?? [] {
                var value = item.value ?? ""
                switch item.name {
                case "host" where value.contains(","):
                    let hosts = value.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
                    otherHosts = hosts.dropFirst().map { HostAndPort(host: $0) }
                    value = hosts[0]
                    if value.hasPrefix("/") { (socketDirectory, host) = (value, nil) } else { (host, socketDirectory) = (value, nil) }
                case "port" where value.contains(","):
                    let numbers = value.split(separator: ",", omittingEmptySubsequences: false).map { Int($0) }
                    guard numbers.allSatisfy({ $0 != nil }) else { return nil }
                    ports = numbers.compactMap { $0 }
                    port = ports?.first
                case "host" where value.hasPrefix("/"):
                    socketDirectory = value
                    host = nil
                case "host":
                    host = value
                    socketDirectory = nil
                case "port":
                    guard let number = Int(value) else { return nil }
                    port = number
                    queryPort = number
                case "user": user = value
                case "password": password = value
                case "dbname": database = value
                default: otherParameters[item.name] = value
                }
            }
            // A port list gives each host its own (libpq: as many as hosts, or one for all).
            if let queryPort, ports == nil {
                for index in otherHosts.indices { otherHosts[index].port = queryPort }
            }
            if let ports {
                guard ports.count == otherHosts.count + 1 else { return nil }
                for index in otherHosts.indices { otherHosts[index].port = ports[index + 1] }
            }
            if let port, !(1...65535).contains(port) { return nil }
            if otherHosts.contains(where: { $0.port.map { !(1...65535).contains($0) } ?? false }) { return nil }
        }

        /// `host[:port]` or `[v6]:port`, percent-encoding undone; nil when the port is not a number.
        private static func hostAndPort(_ entry: String) -> HostAndPort? {
            var host = entry
            var port: Int?
            let portStart = entry.hasPrefix("[") ? entry.range(of: "]:")?.upperBound : entry.range(of: ":")?.upperBound
            if let portStart {
                guard let number = Int(entry[portStart...]) else { return nil }
                port = number
                host = String(entry[..<entry.index(portStart, offsetBy: -1)])
            }
            if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
            return HostAndPort(host: host.removingPercentEncoding ?? host, port: port)
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
