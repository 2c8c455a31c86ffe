import NIOConcurrencyHelpers
import NIOCore
import PostgresNIO

// Connecting: to the reader's server, or to the first of several that connects and is
// accepted (libpq's several hosts and target_session_attrs), each within the connect deadline.
extension PostgresReader {
    /// Accepts a new connection to the server named (`host:port`), or fails with why not
    /// (libpq's `target_session_attrs`: a standby when writes are wanted).
    package typealias SessionCheck = @Sendable (_ connection: PostgresConnection, _ server: String) -> EventLoopFuture<Void>

    /// A server to connect to, and how its channel is made (nil: by postgres-nio).
    package struct Server: Sendable {
        package var configuration: PostgresConnection.Configuration
        package var makeChannel: ChannelMaker?

        package init(configuration: PostgresConnection.Configuration, makeChannel: ChannelMaker?) {
            self.configuration = configuration
            self.makeChannel = makeChannel
        }

        /// The server as a person names it: `host:port`, or the Unix socket's path.
        var name: String {
            configuration.unixSocketPath ?? "\(configuration.host ?? "localhost"):\(configuration.port ?? 5432)"
        }
    }

    /// A new connection, on an event loop of the group, with the server `settings` (name,
    /// value) for its whole session, sent with the startup message. An attempt that outlives
    /// the deadline fails with `notAnswering` (and a connection made after that is closed).
    func connect(on eventLoop: (any EventLoop)? = nil, settings: [(String, String)] = []) -> EventLoopFuture<PostgresConnection> {
        let servers = [Server(configuration: configuration, makeChannel: makeChannel)] + otherServers
        return connect(to: servers[...], on: eventLoop ?? eventLoopGroup.next(), settings: settings)
    }

    /// The first of `servers` that connects and that `checkSession` accepts, in order, as
    /// libpq tries several hosts; the last one's error when none does.
    fileprivate func connect(to servers: ArraySlice<Server>, on eventLoop: any EventLoop, settings: [(String, String)]) -> EventLoopFuture<PostgresConnection> {
        let attempt = connect(to: servers.first!, on: eventLoop, settings: settings)
        guard servers.count > 1 else { return attempt }
        return attempt.flatMapError { _ in self.connect(to: servers.dropFirst(), on: eventLoop, settings: settings) }
    }

    /// A connection to `server`, checked by `checkSession`, within the connect deadline.
    fileprivate func connect(to server: Server, on eventLoop: any EventLoop, settings: [(String, String)]) -> EventLoopFuture<PostgresConnection> {
        let id = Self.nextConnectionID.withLockedValue { id in
            id += 1
            return id
        }
        var configuration = server.configuration
        let deadline = connectDeadline ?? deadline
        configuration.options.connectTimeout = deadline
        configuration.options.additionalStartupParameters += settings
        var connecting: EventLoopFuture<PostgresConnection>
        if let makeChannel = server.makeChannel {
            connecting = makeChannel(eventLoop, deadline).flatMap { [logger, configuration] channel in
                var established = PostgresConnection.Configuration(establishedChannel: channel, username: configuration.username,
                                                                   password: configuration.password, database: configuration.database)
                established.options = configuration.options
                return PostgresConnection.connect(on: eventLoop, configuration: established, id: id, logger: logger)
            }
        } else {
            connecting = PostgresConnection.connect(on: eventLoop, configuration: configuration, id: id, logger: logger)
        }
        if let checkSession {
            let name = server.name
            connecting = connecting.flatMap { connection in
                checkSession(connection, name).map { connection }.flatMapError { error in
                    connection.close().flatMapThrowing { throw error }
                }
            }
        }
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
}
