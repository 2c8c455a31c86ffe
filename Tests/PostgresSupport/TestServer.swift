import Foundation
import PostgresNIO
import ThrowawayPostgres

/// The PostgreSQL server of the tests: the one `PG_TEST_URL` names (a postgres:// URL), or a
/// throwaway cluster started at first use, shared by every suite of the test process, and
/// stopped (its folder removed) when the process exits.
///
/// The throwaway cluster (`ThrowawayPostgres`) is made with `initdb` (trust authentication,
/// UTF-8) whose default collation is a real locale (ICU's en-US), so that tests of ordering
/// show that a query's explicit `COLLATE "C"` matters. It listens on a Unix socket in its
/// folder only.
public enum TestServer {
    /// The server's configuration, for the database `postgres`. Fails with one sentence
    /// saying why when no server can be had.
    public static func configuration() throws -> PostgresConnection.Configuration {
        try shared.get()
    }

    /// A connection to a fresh database of its own (so suites and tests do not see each
    /// other's tables and log entries) and a way to drop it.
    public static func freshDatabase() async throws -> (configuration: PostgresConnection.Configuration, drop: @Sendable () async -> Void) {
        let base = try configuration()
        let name = "test_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        let admin: PostgresConnection
        do {
            admin = try await connect(base)
            try await admin.query(PostgresQuery(unsafeSQL: "CREATE DATABASE \(name)"), logger: logger)
        } catch {
            let reason = String(reflecting: error).split(whereSeparator: \.isNewline).joined(separator: " ")
            throw TestServerError("The PostgreSQL test server could not make a database: \(reason).")
        }
        try? await admin.close()
        var configuration = base
        configuration.database = name
        return (configuration, {
            guard let admin = try? await connect(base) else { return }
            _ = try? await admin.query(PostgresQuery(unsafeSQL: "DROP DATABASE IF EXISTS \(name) WITH (FORCE)"), logger: logger)
            try? await admin.close()
        })
    }

    /// The postgres:// URL that reaches `configuration`'s database (its Unix socket's folder,
    /// or its host), for the programs the tests run.
    public static func url(of configuration: PostgresConnection.Configuration) -> PostgresURL {
        if let socket = configuration.unixSocketPath {
            let path = URL(fileURLWithPath: socket)
            return PostgresURL(user: configuration.username, password: configuration.password, socketDirectory: path.deletingLastPathComponent().path,
                               port: Int(path.lastPathComponent.split(separator: ".").last ?? "") ?? 5432, database: configuration.database ?? "postgres")
        }
        return PostgresURL(user: configuration.username, password: configuration.password, host: configuration.host ?? "localhost",
                           port: configuration.port ?? 5432, database: configuration.database ?? "postgres")
    }

    /// A new connection.
    public static func connect(_ configuration: PostgresConnection.Configuration) async throws -> PostgresConnection {
        try await PostgresConnection.connect(configuration: configuration, id: nextID.add(1), logger: logger)
    }

    public static let logger = Logger(label: "PostgresSupport")
    private static let nextID = Counter()

    // MARK: - Starting and stopping

    /// Started once, at first use (Swift initialises a static lazily, exactly once).
    private static let shared: Result<PostgresConnection.Configuration, any Error> = Result {
        if let url = ProcessInfo.processInfo.environment["PG_TEST_URL"], !url.isEmpty {
            return try configuration(url: url)
        }
        return try startCluster()
    }

    /// A configuration from a postgres:// URL (user, password, host or `?host=/socket/dir`,
    /// port, database).
    static func configuration(url text: String) throws -> PostgresConnection.Configuration {
        guard let url = PostgresURL(string: text) else {
            throw TestServerError("PG_TEST_URL is not a postgres:// URL: “\(text)”.")
        }
        return url.configuration
    }

    /// Starts the throwaway cluster (`ThrowawayPostgres`), stopped when the process exits.
    private static func startCluster() throws -> PostgresConnection.Configuration {
        let cluster: ThrowawayPostgres
        do {
            cluster = try ThrowawayPostgres.start(maxConnections: 200)
        } catch let error as ThrowawayPostgresError {
            switch error.kind {
            case .notInstalled:
                throw TestServerError("\(error.reason): run `make test`, which installs it, or set PG_TEST_URL.")
            case .failed:
                throw TestServerError("The PostgreSQL test server could not start: \(error.reason).")
            }
        }
        FileHandle.standardError.write(Data(String(format: "PostgreSQL test server: initdb %.2f s, start %.2f s, in %@\n",
                                                   cluster.initSeconds, cluster.startSeconds, cluster.folder.path).utf8))
        return cluster.configuration()
    }
}

/// Why the test server could not be had, in one sentence.
public struct TestServerError: Error, CustomStringConvertible, Sendable {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// A thread-safe counter for connection ids.
final class Counter: @unchecked Sendable { // A lock guards `value`.
    private let lock = NSLock()
    private var value = 0
    func add(_ amount: Int) -> Int {
        lock.lock()
        defer { lock.unlock() }
        value += amount
        return value
    }
}
