import Foundation
import PostgresNIO

/// A postgres:// URL as libpq reads its common parts: user, password, host or
/// `?host=/socket/dir` (a Unix socket's directory), port (5432), database (`postgres`).
///
/// `postgres://app:secret@db.example:5433/worldcup`, `postgresql://postgres@/bench?host=/tmp/pg`.
public struct PostgresURL: Equatable, Sendable, CustomStringConvertible {
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

    /// Nil when `text` is not a postgres:// or postgresql:// URL.
    public init?(string text: String) {
        guard let url = URLComponents(string: text), let scheme = url.scheme, ["postgres", "postgresql"].contains(scheme) else { return nil }
        self.init(user: url.user ?? "postgres", password: url.password,
                  host: url.host.flatMap { $0.isEmpty ? nil : $0 } ?? "localhost",
                  socketDirectory: url.queryItems?.first(where: { $0.name == "host" })?.value,
                  port: url.port ?? 5432,
                  database: url.path.count > 1 ? String(url.path.dropFirst()) : "postgres")
    }

    /// The connection's configuration (TLS off).
    public var configuration: PostgresConnection.Configuration {
        if let socketDirectory {
            return .init(unixSocketPath: "\(socketDirectory)/.s.PGSQL.\(port)", username: user, password: password, database: database)
        }
        return .init(host: host, port: port, username: user, password: password, database: database, tls: .disable)
    }

    /// The URL, which `init(string:)` reads back as this value.
    public var description: String {
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
