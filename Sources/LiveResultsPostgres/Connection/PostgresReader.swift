import Foundation
import LiveResults
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import PostgresNIO

/// A PostgreSQL database as LiveResults reads it: how to reach it, and the one connection its
/// controllers read keys and records with and their change feeds LISTEN on.
///
/// LiveResults' controller is synchronous (it is called from an app's own loop), and
/// postgres-nio is asynchronous: the database runs its queries through postgres-nio's async
/// interface, as tasks on a SwiftNIO event loop, and waits for them on the calling thread,
/// which must be neither an event loop's thread nor one of Swift's cooperative pool (the
/// controller's async sequences call it from a thread of their own). A lost
/// connection is made again at the next query, or by a feed at once.
///
/// One connection a reader: a server counts its connections (a hosted one tightly), and
/// postgres-nio runs queries on a connection that listens. A feed sends its statements only
/// between the controller's reads (`ReadGate`), so no log read lands inside a fetch's
/// transaction.
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
    /// The event loop of the reader's connection, and of its feeds' state.
    let eventLoop: any EventLoop
    let logger: Logger
    /// The longest a connection attempt, or one `withConnection` body, may take before the
    /// connection is dropped and the call fails with "… is not answering." A dead network (a
    /// frozen relay), or a statement postgres-nio never answers, then fails instead of hanging.
    package let deadline: TimeAmount
    /// The longest a connection attempt may take, when it differs from `deadline` (libpq's
    /// `connect_timeout`); nil: `deadline`.
    package let connectDeadline: TimeAmount?
    /// Makes the channel a connection logs in on (a TLS channel whose host was checked), when
    /// postgres-nio is not to make it from `configuration`.
    package let makeChannel: ChannelMaker?
    /// The servers tried in turn when connecting to the one before fails or `checkSession`
    /// refuses it (libpq's several hosts), after `configuration`'s.
    package let otherServers: [Server]
    /// Accepts or refuses each new connection (nil: any is accepted).
    package let checkSession: SessionCheck?
    /// The change feeds of this reader's controllers, by table, which a `PostgresWriter` tells
    /// what it committed.
    let ownWrites = OwnWrites<String, PostgresChangeFeed>()
    /// Whether the controller's reads or its feeds' statements have the connection now.
    let gate = ReadGate()
    /// The connection, or the attempt to make it; neither until the first query or after it closed.
    private let shared = NIOLockedValueBox<SharedConnection>(SharedConnection())
    /// The reader whose connection sends this reader's feeds' probes (`sendProbes(through:)`);
    /// nil: a connection is made for each probe.
    private let probeSender = NIOLockedValueBox<PostgresReader?>(nil)
    static let nextConnectionID = NIOLockedValueBox(0)

    private struct SharedConnection {
        var connection: PostgresConnection?
        /// Ends the waits on `connection` when it closes.
        var closing: ClosedConnectionWaits?
        var connecting: EventLoopFuture<PostgresConnection>?
        /// Whether the server refused the log read's settings at startup (a pooler that knows
        /// only a few parameters): connections are then made without them.
        var settingsRefused = false
    }

    /// Makes a connection's channel on an event loop within a deadline.
    package typealias ChannelMaker = @Sendable (_ eventLoop: any EventLoop, _ deadline: TimeAmount) -> EventLoopFuture<any Channel>

    /// How long connecting, or one read, may take when the caller does not say.
    public static let defaultDeadline = TimeAmount.seconds(30)

    /// A database reached with `configuration`. The default event loop group is SwiftNIO's
    /// shared one. `deadline`: how long connecting, or one read, may take (nil:
    /// `defaultDeadline`; there is always one); `connectDeadline`: how long connecting may
    /// take, when not `deadline`.
    public convenience init(configuration: PostgresConnection.Configuration,
                            eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
                            logger: Logger = Logger(label: "LiveResultsPostgres"),
                            deadline: TimeAmount? = nil, connectDeadline: TimeAmount? = nil) {
        self.init(configuration: configuration, eventLoopGroup: eventLoopGroup, logger: logger, deadline: deadline,
                  connectDeadline: connectDeadline, makeChannel: nil, otherServers: [], checkSession: nil)
    }

    /// As the public initialiser, with the channel made by `makeChannel` (nil: by
    /// postgres-nio), `otherServers` tried in turn, and each connection `checkSession`'s to accept.
    package init(configuration: PostgresConnection.Configuration,
                 eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
                 logger: Logger = Logger(label: "LiveResultsPostgres"),
                 deadline: TimeAmount?, connectDeadline: TimeAmount?, makeChannel: ChannelMaker?,
                 otherServers: [Server] = [], checkSession: SessionCheck? = nil) {
        self.configuration = configuration
        self.eventLoopGroup = eventLoopGroup
        eventLoop = eventLoopGroup.next()
        self.logger = logger
        self.deadline = deadline ?? Self.defaultDeadline
        self.connectDeadline = connectDeadline
        self.makeChannel = makeChannel
        self.otherServers = otherServers
        self.checkSession = checkSession
    }

    /// The server as a person names it: `host:port`, or the Unix socket's path.
    package var serverName: String {
        Server(configuration: configuration, makeChannel: nil).name
    }

    /// The error of a connection or read that outlived `deadline`.
    package var notAnswering: LiveResultsPostgresError {
        LiveResultsPostgresError("The PostgreSQL server at \(serverName) is not answering.")
    }

    /// The error of a read or write whose connection closed before its answer came.
    package var connectionClosed: LiveResultsPostgresError {
        LiveResultsPostgresError("The PostgreSQL server at \(serverName) closed the connection.")
    }

    /// The longest connecting may take: the connect deadline for each server tried.
    package var connectingDeadline: TimeAmount {
        (connectDeadline ?? deadline) * Int64(otherServers.count + 1)
    }

    /// The deadline of one statement from now, failing with `notAnswering`.
    package func statementDeadline() -> StatementDeadline {
        StatementDeadline(in: deadline, error: notAnswering)
    }

    deinit {
        if let connection = shared.withLockedValue({ $0.connection }) {
            // Kept until closed: postgres-nio asserts a connection is closed before it goes.
            connection.close().whenComplete { _ in _ = connection }
        }
    }

    /// Closes the connection (a later query, or a feed still following changes, opens a new one).
    public func close() {
        let connection = shared.withLockedValue { shared in
            defer { shared.connection = nil }
            return shared.connection
        }
        _ = try? connection?.close().waitWithin(statementDeadline())
    }

    /// Starts making the reader's connection without waiting for it, so that it is ready when
    /// first used: a board's controller, whose connection is then made while the app opens
    /// its own (across a network, the round trips of both at once). One made after the
    /// reader went is closed.
    public func connectAhead() {
        sharedConnection().whenSuccess { [weak self] connection in
            guard self == nil else { return }
            // Kept until closed: postgres-nio asserts a connection is closed before it goes.
            connection.close().whenComplete { _ in _ = connection }
        }
    }

    /// The reader's connection (from any thread): the open one, the attempt under way, or a
    /// new attempt, on `eventLoop`, with the log read's settings unless the server refused
    /// them once.
    func sharedConnection() -> EventLoopFuture<PostgresConnection> {
        let (future, started) = shared.withLockedValue { shared -> (EventLoopFuture<PostgresConnection>, Bool) in
            if let connection = shared.connection, !connection.isClosed { return (eventLoop.makeSucceededFuture(connection), false) }
            if let connecting = shared.connecting { return (connecting, false) }
            let connecting = makeConnection(settingsRefused: shared.settingsRefused)
            shared.connecting = connecting
            return (connecting, true)
        }
        if started {
            future.whenComplete { [shared, connectionClosed] result in
                shared.withLockedValue { shared in
                    guard shared.connecting === future else { return }
                    shared.connecting = nil
                    if case .success(let connection) = result {
                        shared.connection = connection
                        shared.closing = ClosedConnectionWaits(of: connection, error: connectionClosed)
                    }
                }
            }
        }
        return future
    }

    /// A connection with the log read's settings, or without them when the server refuses them.
    private func makeConnection(settingsRefused: Bool) -> EventLoopFuture<PostgresConnection> {
        guard !settingsRefused else { return connect(on: eventLoop) }
        return connect(on: eventLoop, settings: PreparedLogRead.connectionSettings).flatMapError { [shared, eventLoop] error in
            guard NotificationProbe.refusesStartupParameter(error) else { return eventLoop.makeFailedFuture(error) }
            shared.withLockedValue { $0.settingsRefused = true }
            return self.connect(on: eventLoop)
        }
    }

    /// Forgets `connection` if it is the reader's (a read that outlived its deadline closes it).
    private func forget(_ connection: PostgresConnection) {
        shared.withLockedValue { if $0.connection === connection { $0.connection = nil } }
    }

    /// Sends this reader's feeds' probes from `other`'s connection, between its reads, instead of
    /// a connection made for each (across a network, a connection costs round trips before its
    /// first statement). `other` must be another reader on the same server and database, one
    /// whose connection is open or soon will be, such as an app's own.
    package func sendProbes(through other: PostgresReader) {
        precondition(other !== self, "A feed's probe must come from another connection than the one it tests.")
        probeSender.withLockedValue { $0 = other }
    }

    /// Sends a feed's probe, a notification on `channel`, from another connection than this
    /// reader's: `sendProbes(through:)`'s, unless `listeningAgain` (after a lost connection, a
    /// server restarted or a network cut, the other's is likely lost too), or one made for it
    /// and closed after, also when the other's failed. The future succeeds on `eventLoop` once
    /// the server answered the notification's statement (it is then on its way to every
    /// listener), and fails when the connection or the statement failed: the notification then
    /// never arrives.
    func sendProbe(channel: String, payload: String, listeningAgain: Bool, on eventLoop: any EventLoop) -> EventLoopFuture<Void> {
        var bindings = PostgresBindings()
        bindings.append(channel)
        bindings.append(payload)
        let query = PostgresQuery(unsafeSQL: "SELECT pg_notify($1, $2)", binds: bindings)
        let logger = logger
        let ownConnection = { [self] () -> EventLoopFuture<Void> in
            connect(on: eventLoop).flatMap { connection in
                let sent = connection.query(query, logger: logger).map { _ in }
                sent.whenComplete { _ in
                    // Kept until closed: postgres-nio asserts a connection is closed before it goes.
                    connection.close().whenComplete { _ in _ = connection }
                }
                return sent
            }
        }
        guard !listeningAgain, let other = probeSender.withLockedValue({ $0 }) else { return ownConnection() }
        // Between the other reader's own reads, as they are synchronous: one sent inside its
        // transaction would be held back to the commit, or lost with a rollback.
        let sent = eventLoop.makePromise(of: Void.self)
        DispatchQueue.global().async {
            sent.completeWith(Result {
                try other.withConnection { connection in
                    _ = try connection.query(query, logger: logger).waitWithinDeadline()
                }
            })
        }
        return sent.futureResult.flatMapError { _ in ownConnection() }
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
                let closedUnder = !(error is LiveResultsPostgresError) || error as? LiveResultsPostgresError == connectionClosed
                if let used, used.isClosed, attempt == 1, closedUnder { continue }
                throw PostgresErrors.readable(error)
            }
        }
    }

    /// Runs `body` with the read connection (connecting when there is none), on the calling
    /// thread (not an event loop's), and throws postgres-nio's errors as they are: for a
    /// caller that tells a lost connection (`isClosed` afterwards) from a refused statement
    /// itself. A body that outlives the deadline has its connection closed and fails with
    /// `notAnswering`, each of its waits (`waitWithinDeadline`) given up then. The feeds send
    /// nothing while it runs.
    package func withConnection<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        let connecting = StatementDeadline(in: connectingDeadline, error: notAnswering)
        return try gate.read(within: connecting) {
            let connection = try sharedConnection().waitWithin(connecting)
            var limit = StatementDeadline(in: deadline, error: notAnswering)
            limit.closing = shared.withLockedValue { $0.connection === connection ? $0.closing : nil }
            let watchdog = connection.eventLoop.scheduleTask(deadline: limit.instant) { [self] in abandon(connection) }
            defer { watchdog.cancel() }
            do {
                return try StatementDeadline.$current.withValue(limit) {
                    try forgettingEnded(connection) { try body(connection) }
                }
            } catch {
                guard NIODeadline.now() >= limit.instant || error as? LiveResultsPostgresError == notAnswering else { throw error }
                abandon(connection)
                throw notAnswering
            }
        }
    }

    /// Forgets `connection` and closes it: a statement on it outlived its deadline, and the
    /// next call connects anew instead of finding it half closed.
    private func abandon(_ connection: PostgresConnection) {
        forget(connection)
        // Kept until closed: postgres-nio asserts a connection is closed before it goes.
        connection.close().whenComplete { _ in _ = connection }
    }

    /// Runs `body`; when the server said its error ends `connection`, forgets the connection at
    /// once, before postgres-nio sees it closed: a statement sent on it in that moment would
    /// never be answered, so the next call must connect anew.
    private func forgettingEnded<T>(_ connection: PostgresConnection, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch {
            if PostgresErrors.endsConnection(error) { abandon(connection) }
            throw error
        }
    }
}
