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
    /// The connection of the controller's reads; nil until the first query or after it closed.
    private let readConnection = NIOLockedValueBox<PostgresConnection?>(nil)
    private static let nextConnectionID = NIOLockedValueBox(0)

    /// A database reached with `configuration`. The default event loop group is SwiftNIO's
    /// shared one.
    public init(configuration: PostgresConnection.Configuration,
                eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
                logger: Logger = Logger(label: "LiveResultsPostgres")) {
        self.configuration = configuration
        self.eventLoopGroup = eventLoopGroup
        self.logger = logger
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

    /// A new connection, on an event loop of the group.
    func connect(on eventLoop: (any EventLoop)? = nil) -> EventLoopFuture<PostgresConnection> {
        let id = Self.nextConnectionID.withLockedValue { id in
            id += 1
            return id
        }
        return PostgresConnection.connect(on: eventLoop ?? eventLoopGroup.next(), configuration: configuration, id: id, logger: logger)
    }

    /// Runs `body` with the read connection, on the calling thread (not an event loop's): its
    /// queries wait for their answers. A connection that was lost is made again, and `body`
    /// runs once more when the connection closed under it. Errors come back as one sentence
    /// (`LiveResultsError`).
    func read<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        var attempt = 0
        while true {
            attempt += 1
            let connection = try currentConnection()
            do {
                return try body(connection)
            } catch {
                if connection.isClosed, attempt == 1 { continue }
                throw PostgresErrors.readable(error)
            }
        }
    }

    /// The open read connection, connecting when there is none.
    private func currentConnection() throws -> PostgresConnection {
        if let connection = readConnection.withLockedValue({ $0 }), !connection.isClosed { return connection }
        let connection: PostgresConnection
        do {
            connection = try connect().wait()
        } catch {
            throw PostgresErrors.readable(error)
        }
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
