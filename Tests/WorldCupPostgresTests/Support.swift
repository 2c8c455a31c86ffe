import Foundation
import NIOPosix
import PostgresNIO
import PostgresSupport
import Synchronization
import Testing
import ThrowawayPostgres
import LiveResultsPostgres
import WorldCup
@testable import WorldCupPostgres

/// A fresh database of the test server, as worldcup names it, and a way to drop it.
struct FreshDatabase {
    let location: PostgresLocation
    let configuration: PostgresConnection.Configuration
    let drop: @Sendable () async -> Void

    /// A new empty database on the test server.
    static func make() async throws -> FreshDatabase {
        let (configuration, drop) = try await TestServer.freshDatabase()
        return FreshDatabase(location: PostgresLocation(url(of: configuration)), configuration: configuration, drop: drop)
    }

    /// The URL that reaches `configuration`'s database (a Unix socket's directory, or a host).
    static func url(of configuration: PostgresConnection.Configuration) -> PostgresURL {
        if let socket = configuration.unixSocketPath {
            let folder = URL(fileURLWithPath: socket).deletingLastPathComponent().path
            let port = Int(socket.split(separator: ".").last ?? "") ?? 5432
            return PostgresURL(user: configuration.username, password: configuration.password, socketDirectory: folder, port: port,
                               database: configuration.database ?? "postgres")
        }
        return PostgresURL(user: configuration.username, password: configuration.password, host: configuration.host ?? "localhost",
                           port: configuration.port ?? 5432, database: configuration.database ?? "postgres")
    }

    /// The URL as a command line gives it.
    var urlString: String { location.url.connectionString }

    /// Runs `sql` on a connection of its own (as the test server's user).
    @discardableResult
    func execute(_ sql: String) async throws -> [PostgresRow] {
        let connection = try await TestServer.connect(configuration)
        defer { Task { try? await connection.close() } }
        return try await connection.query(PostgresQuery(unsafeSQL: sql), logger: TestServer.logger).collect()
    }

    /// The first column of the first row of `sql`, as an integer.
    func integer(_ sql: String) async throws -> Int64? {
        try await execute(sql).first?.decode(Int64.self)
    }

    /// Makes the database as worldcup of schema `version` left it: its migrations up to it
    /// (the product's own steps), the change log, and the seed's teams in their text zones.
    func makeOlder(version: Int) async throws {
        for step in 1...version {
            for case .sql(let statement) in PostgresSchema.migrations[step] ?? [] { try await execute(statement) }
        }
        for statement in try PostgresChangeLog.installStatements(on: "team") { try await execute(statement) }
        try await execute("INSERT INTO \(PostgresSchema.versionTable) (version) VALUES (\(version))")
        for team in try Seed.bundled() {
            try await execute("""
                INSERT INTO team ("teamName", "qualifyingZone", "imageName", wins, "nameKey", "nameSortKey")
                VALUES ('\(team.teamName)', '\(team.qualifyingZone.replacingOccurrences(of: "'", with: "''"))', '\(team.imageName)', \(team.wins),
                        '\(Team.nameKey(team.teamName))', '\(Team.nameSortKey(team.teamName))')
                """)
        }
        try await execute(#"INSERT INTO "seedImport" (id) VALUES (1)"#)
    }

    /// The names of the tables in the database's schema.
    func tables() async throws -> [String] {
        try await execute("SELECT tablename::text FROM pg_tables WHERE schemaname = current_schema() ORDER BY 1").map { try $0.decode(String.self) }
    }
}

/// A socket on 127.0.0.1 that accepts connections (the kernel completes them) and never
/// answers: a server behind a frozen network.
final class SilentListener: @unchecked Sendable { // Only `close` touches the descriptor after init.
    let port: Int
    private let descriptor: Int32

    init() throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.descriptor = descriptor
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(descriptor, 16) == 0 else { throw TestServerError.make("The silent listener could not listen.") }
        port = Self.port(of: descriptor)
    }

    /// The listening descriptor, for a listener that answers connections itself.
    var descriptorForClosing: Int32 { descriptor }

    /// The port the kernel gave a bound socket.
    static func port(of descriptor: Int32) -> Int {
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// A port on 127.0.0.1 that was free a moment ago (nothing listens on it).
    static func freePort() throws -> Int {
        let listener = try SilentListener()
        listener.close()
        return listener.port
    }

    func close() {
        Glibc.close(descriptor)
    }
}

extension TestServerError {
    /// A test's own failure, in one sentence.
    static func make(_ sentence: String) -> any Error {
        struct Failure: Error, CustomStringConvertible { let description: String }
        return Failure(description: sentence)
    }
}

/// Runs `body` on `count` threads of their own at once (not Swift concurrency's few shared
/// threads, which blocking calls would take up and serialise), and waits for all of them
/// without holding a shared thread. Returns what each gave, in order.
func onThreads<T: Sendable>(_ count: Int, _ body: @escaping @Sendable (Int) throws -> T) async throws -> [T] {
    let results = ThreadResults<T>(count)
    let group = DispatchGroup()
    for index in 0..<count {
        group.enter()
        Thread {
            let result = Result { try body(index) }
            results.set(index, result)
            group.leave()
        }.start()
    }
    await withCheckedContinuation { done in group.notify(queue: .global()) { done.resume() } }
    return try results.values.map { try $0!.get() }
}

/// What each thread of `onThreads` gave; a lock guards the slots.
private final class ThreadResults<T>: @unchecked Sendable {
    private let lock = NSLock()
    private(set) var values: [Result<T, any Error>?]
    init(_ count: Int) { values = Array(repeating: nil, count: count) }
    func set(_ index: Int, _ result: Result<T, any Error>) {
        lock.lock()
        defer { lock.unlock() }
        values[index] = result
    }
}

/// Runs `write` while another transaction holds `teamID`'s row, kills the write's backend
/// once it waits for the row (its outcome unknown to the store), then lets the row go;
/// returns what the write returned after its retry.
func cutMidStatement<T: Sendable>(_ database: FreshDatabase, teamID: Int64, _ write: @escaping @Sendable () throws -> T) async throws -> T {
    let locker = try await TestServer.connect(database.configuration)
    try await locker.query("BEGIN", logger: TestServer.logger)
    try await locker.query("SELECT wins FROM team WHERE id = \(teamID) FOR UPDATE", logger: TestServer.logger)
    let writing = Task { try await onThreads(1) { _ in try write() }[0] }
    var killed: Int64 = 0
    for _ in 0..<200 where killed == 0 {
        try await Task.sleep(for: .milliseconds(25))
        killed = try await locker.query("""
            SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
            WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()
            """, logger: TestServer.logger).collect().first?.decode(Int64.self) ?? 0
    }
    #expect(killed == 1)
    // The resend (same write id, new connection) waits for the row too; let it go.
    try await Task.sleep(for: .milliseconds(300))
    try await locker.query("COMMIT", logger: TestServer.logger)
    try? await locker.close()
    return try await writing.value
}

/// Terminates about six in ten of the database's other client backends every tenth of a second until `stop`
/// says so; returns how many it terminated. Blocks its thread.
func terminateBackends(of database: FreshDatabase, until stop: @Sendable () -> Bool) throws -> Int {
    let connection = try PostgresConnection.connect(on: MultiThreadedEventLoopGroup.singleton.next(), configuration: database.configuration,
                                                    id: 77, logger: TestServer.logger).wait()
    defer { try? connection.close().wait() }
    var terminated = 0
    while !stop() {
        let result = try connection.query("""
            SELECT count(*) FILTER (WHERE pg_terminate_backend(pid)) FROM pg_stat_activity
            WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_type = 'client backend' AND random() < 0.6
            """, logger: TestServer.logger).wait()
        terminated += Int(try result.rows.first?.decode(Int64.self) ?? 0)
        Thread.sleep(forTimeInterval: 0.1)
    }
    return terminated
}

/// A flag one thread sets and others read.
final class StopFlag: Sendable {
    private let flag = Mutex(false)
    var isSet: Bool { flag.withLock { $0 } }
    func set() { flag.withLock { $0 = true } }
}
