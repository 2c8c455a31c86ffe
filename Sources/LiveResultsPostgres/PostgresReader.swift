import Foundation
import LiveResults
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import PostgresNIO

/// A PostgreSQL database as LiveResults reads it: how to reach it, and the connection a
/// controller reads keys and records with.
///
/// LiveResults' controller is synchronous (it is called from an app's own loop), and
/// postgres-nio is asynchronous: the database runs its queries on a SwiftNIO event loop and
/// waits for them on the calling thread, which must not be an event loop thread. A lost
/// connection is made again at the next query.
///
/// ```swift
/// let database = PostgresReader(configuration: .init(host: "db.example", username: "app",
///     password: secret, database: "worldcup", tls: .disable))
/// let controller = ResultsController<Team>(database: database, fetchRequest: request,
///     sectionNameKeyPath: "zone")
/// ```
public final class PostgresReader: Sendable {
    /// How to connect.
    public let configuration: PostgresConnection.Configuration
    /// The event loops the connections run on.
    let eventLoopGroup: any EventLoopGroup
    let logger: Logger
    /// The longest a connection attempt, or one `withConnection` body, may take before the
    /// connection is dropped and the call fails with "… is not answering."; nil: no limit.
    /// A dead network (a frozen relay) then fails in seconds instead of hanging.
    package let deadline: TimeAmount?
    /// The longest a connection attempt may take, when it differs from `deadline` (libpq's
    /// `connect_timeout`); nil: `deadline`.
    package let connectDeadline: TimeAmount?
    /// The change feeds of this reader's controllers, which `write(_:on:)` tells what it committed.
    let writeListeners = WriteListeners()
    /// The connection of the controller's reads; nil until the first query or after it closed.
    private let readConnection = NIOLockedValueBox<PostgresConnection?>(nil)
    private static let nextConnectionID = NIOLockedValueBox(0)

    /// A database reached with `configuration`. The default event loop group is SwiftNIO's
    /// shared one. `deadline`: how long connecting, or one read, may take (no limit by default);
    /// `connectDeadline`: how long connecting may take, when not `deadline`.
    public init(configuration: PostgresConnection.Configuration,
                eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
                logger: Logger = Logger(label: "LiveResultsPostgres"),
                deadline: TimeAmount? = nil, connectDeadline: TimeAmount? = nil) {
        self.configuration = configuration
        self.eventLoopGroup = eventLoopGroup
        self.logger = logger
        self.deadline = deadline
        self.connectDeadline = connectDeadline
    }

    /// The server as a person names it: `host:port`, or the Unix socket's path.
    package var serverName: String {
        configuration.unixSocketPath ?? "\(configuration.host ?? "localhost"):\(configuration.port ?? 5432)"
    }

    /// The error of a connection or read that outlived `deadline`.
    package var notAnswering: LiveResultsPostgresError {
        LiveResultsPostgresError("The PostgreSQL server at \(serverName) is not answering.")
    }

    deinit {
        if let connection = readConnection.withLockedValue({ $0 }) {
            // Kept until closed: postgres-nio asserts a connection is closed before it goes.
            connection.close().whenComplete { _ in _ = connection }
        }
    }

    /// Closes the read connection (a later query opens a new one).
    public func close() {
        let connection = readConnection.withLockedValue { connection in
            defer { connection = nil }
            return connection
        }
        _ = try? connection?.close().wait()
    }

    /// A new connection, on an event loop of the group, with the server `settings` (name,
    /// value) for its whole session, sent with the startup message. With a `deadline`, an
    /// attempt that outlives it fails with `notAnswering` (and a connection made after that is closed).
    func connect(on eventLoop: (any EventLoop)? = nil, settings: [(String, String)] = []) -> EventLoopFuture<PostgresConnection> {
        let id = Self.nextConnectionID.withLockedValue { id in
            id += 1
            return id
        }
        let eventLoop = eventLoop ?? eventLoopGroup.next()
        var configuration = configuration
        let deadline = connectDeadline ?? deadline
        if let deadline { configuration.options.connectTimeout = deadline }
        configuration.options.additionalStartupParameters += settings
        let connecting = PostgresConnection.connect(on: eventLoop, configuration: configuration, id: id, logger: logger)
        guard let deadline else { return connecting }
        let answered = eventLoop.makePromise(of: PostgresConnection.self)
        let timeout = eventLoop.scheduleTask(in: deadline) { [notAnswering] in answered.fail(notAnswering) }
        connecting.whenComplete { result in
            timeout.cancel()
            switch result {
            case .success(let connection):
                answered.futureResult.whenFailure { _ in connection.close().whenComplete { _ in } }
                answered.succeed(connection)
            case .failure(let error):
                answered.fail(error)
            }
        }
        return answered.futureResult
    }

    /// Sends a notification on `channel` from the read connection (a feed's probe), from any
    /// thread without waiting: with no read connection open, one is made on `eventLoop` and
    /// kept as the read connection, so that probing costs no connection of its own. A
    /// failure is not reported: the notification then never arrives, which is what a probe
    /// finds out anyway. (Inside a read's transaction it is sent at its commit.)
    func notify(channel: String, payload: String, on eventLoop: any EventLoop) {
        var bindings = PostgresBindings()
        bindings.append(channel)
        bindings.append(payload)
        let query = PostgresQuery(unsafeSQL: "SELECT pg_notify($1, $2)", binds: bindings)
        let logger = logger
        if let connection = readConnection.withLockedValue({ $0 }), !connection.isClosed {
            connection.query(query, logger: logger).whenComplete { _ in }
            return
        }
        connect(on: eventLoop).whenSuccess { [readConnection] connection in
            let kept = readConnection.withLockedValue { current in
                guard current?.isClosed ?? true else { return false }
                current = connection
                return true
            }
            connection.query(query, logger: logger).whenComplete { _ in
                // Kept until closed: postgres-nio asserts a connection is closed before it goes.
                if !kept { connection.close().whenComplete { _ in _ = connection } }
            }
        }
    }

    /// Runs `body` with the read connection, on the calling thread (not an event loop's): its
    /// queries wait for their answers. A connection that was lost is made again, and `body`
    /// runs once more when the connection closed under it. Errors come back as one sentence
    /// (`LiveResultsError`).
    func read<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        var attempt = 0
        while true {
            attempt += 1
            var used: PostgresConnection?
            do {
                return try withConnection { connection in
                    used = connection
                    return try body(connection)
                }
            } catch {
                if let used, used.isClosed, attempt == 1, !(error is LiveResultsPostgresError) { continue }
                throw PostgresErrors.readable(error)
            }
        }
    }

    /// Runs `body` with the read connection (connecting when there is none), on the calling
    /// thread (not an event loop's), and throws postgres-nio's errors as they are: for a
    /// caller that tells a lost connection (`isClosed` afterwards) from a refused statement
    /// itself. With a `deadline`, a body that outlives it has its connection closed and fails
    /// with `notAnswering`.
    package func withConnection<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        let connection = try currentConnection()
        guard let deadline else { return try body(connection) }
        let expired = NIOLockedValueBox(false)
        let watchdog = connection.eventLoop.scheduleTask(in: deadline) { [readConnection] in
            expired.withLockedValue { $0 = true }
            // Forgotten at once: the next call connects anew instead of finding it half closed.
            readConnection.withLockedValue { if $0 === connection { $0 = nil } }
            connection.close().whenComplete { _ in }
        }
        defer { watchdog.cancel() }
        do {
            return try body(connection)
        } catch {
            throw expired.withLockedValue { $0 } ? notAnswering : error
        }
    }

    /// The open read connection, connecting when there is none.
    private func currentConnection() throws -> PostgresConnection {
        if let connection = readConnection.withLockedValue({ $0 }), !connection.isClosed { return connection }
        let connection = try connect().wait()
        readConnection.withLockedValue { $0 = connection }
        return connection
    }
}

/// Turning postgres-nio's errors into LiveResults' one-sentence errors.
enum PostgresErrors {
    /// The error as a `LiveResultsError` (an unknown column keeps its kind, as on SQLite).
    static func readable(_ error: any Error) -> any Error {
        if error is LiveResultsError { return error }
        if let error = error as? LiveResultsPostgresError { return LiveResultsError(.database, error.description) }
        if let error = error as? PSQLError {
            if let message = error.serverInfo?[.message] {
                // 42703: undefined_column, `column "x" does not exist`.
                if error.serverInfo?[.sqlState] == "42703", let column = message.split(separator: "\"").dropFirst().first {
                    return LiveResultsError(.unknownColumn(String(column)), "The fetch request names a column that does not exist: “\(column)”.")
                }
                return LiveResultsError(.database, "The database could not run the fetch request: \(message).")
            }
            return LiveResultsError(.database, "The PostgreSQL server could not be reached: \(connectionProblem(error)).")
        }
        return LiveResultsError(.database, "The PostgreSQL server could not be reached: \(error).")
    }

    /// A few words on why a connection failed, without the query or the password.
    static func connectionProblem(_ error: PSQLError) -> String {
        if let underlying = error.underlying { return String(describing: underlying) }
        switch error.code {
        case .serverClosedConnection, .clientClosedConnection: return "the connection was closed"
        case .connectionError: return "the connection failed"
        default: return String(describing: error.code)
        }
    }
}
