import Foundation
import LiveResultsPostgres
import NIOCore
import NIOPosix
import PostgresNIO
import WorldCup

extension PostgresTeamStore {
    /// Why an attempt failed: one sentence, whether it got as far as a connection (`began`),
    /// and whether that connection died under it (`lost`: what it sent may or may not have
    /// been done).
    struct Failure: Error {
        var sentence: WorldCupError
        var began: Bool
        var lost: Bool
    }

    /// Runs `body` once with the store's connection (connecting when there is none, within
    /// the deadline); a failure comes back as a `Failure`.
    func attempt<T>(_ body: (PostgresConnection) throws -> T) -> Result<T, Failure> {
        var used: PostgresConnection?
        do {
            return .success(try database.withConnection { connection in
                used = connection
                return try body(connection)
            })
        } catch {
            let lost = used != nil && (error is LiveResultsPostgresError || used?.isClosed == true || PostgresErrors.endsConnection(error))
            return .failure(Failure(sentence: Self.sentence(for: error, at: place, connected: used != nil), began: used != nil, lost: lost))
        }
    }

    /// Runs `body`, which only reads or does nothing twice, once more when the connection
    /// died under it (a server restarted since the last statement). Throws one sentence.
    func run<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        switch attempt(body) {
        case .success(let value): return value
        case .failure(let failure) where failure.lost && failure.began:
            return try attempt(body).mapError(\.sentence).get()
        case .failure(let failure): throw failure.sentence
        }
    }

    /// Runs `body`, a change that must not be made twice: a connection that died under it
    /// is reported, not retried. Throws one sentence.
    func change<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        switch attempt(body) {
        case .success(let value): return value
        case .failure(let failure) where failure.lost:
            throw failure.sentence.appending("so the change may or may not have been saved")
        case .failure(let failure): throw failure.sentence
        }
    }

    /// Runs `attempt` (which returns nil when the team was changed by someone between its read
    /// and its write, or throws on a name taken in that moment) again, up to three times; a
    /// write `writeID` already recorded returns its change. Whether it was is asked before the
    /// first attempt only of a `resend` (an id made a moment ago cannot have been recorded):
    /// a first write costs no statement for it.
    func repeatWhileRaced(_ writeID: UUID, _ connection: PostgresConnection, resend: Bool,
                          _ attempt: () throws -> TeamChange?) throws -> TeamChange {
        for round in 0..<3 {
            if resend || round > 0, let done = try Self.recorded(writeID, connection) { return done }
            do {
                if let result = try attempt() { return result }
            } catch let error as PSQLError where ["23505", "23503", "40P01"].contains(error.serverInfo?[.sqlState]) {
                // A name taken in the moment (the next attempt reads it and says so), a zone
                // merged away in the moment (the next attempt finds the zone again), or a write
                // and a zone's merge that waited for each other (one is rolled back and made again).
                continue
            }
        }
        if let done = try Self.recorded(writeID, connection) { return done }
        throw WorldCupError("The team kept changing while this change was being made; try again.")
    }

    /// Runs `body`, a write whose id is recorded with it, until it gets an answer: when the
    /// connection dies during it (its outcome unknown), a new one is made and `body` sent
    /// again (its `resend` true), for up to `deadline`; `body` then finds its write id
    /// recorded if the first one committed. `orElse` ends the sentence when no answer comes.
    func exactlyOnce<T>(orElse clause: String, _ body: (_ connection: PostgresConnection, _ resend: Bool) throws -> T) throws -> T {
        let start = ContinuousClock.now
        var outcomeUnknown = false
        while true {
            let failure: Failure
            switch attempt({ try body($0, outcomeUnknown) }) {
            case .success(let value): return value
            case .failure(let failed): failure = failed
            }
            let retrying = failure.lost || (outcomeUnknown && !failure.began)
            outcomeUnknown = outcomeUnknown || (failure.lost && failure.began)
            guard retrying, ContinuousClock.now - start < deadline else {
                throw outcomeUnknown ? failure.sentence.appending(clause) : failure.sentence
            }
            if !failure.began { Thread.sleep(forTimeInterval: 0.2) }
        }
    }

    /// The change recorded for the write `writeID` (with its entry's id), if it was made.
    static func recorded(_ writeID: UUID, _ connection: PostgresConnection) throws -> TeamChange? {
        try query(connection, "SELECT \(unescaped: historyColumns) FROM history WHERE \"writeID\" = \(writeID)").map(entry).first?.change
    }

    /// Runs a query on this thread and waits for its rows, no later than the deadline of the
    /// attempt under way (`PostgresReader.withConnection`'s).
    @discardableResult
    static func query(_ connection: PostgresConnection, _ query: PostgresQuery) throws -> PostgresQueryResult {
        try connection.query(query, logger: logger).waitWithinDeadline()
    }

    /// Runs `body` in a transaction: committed when it returns, rolled back when it throws.
    static func transaction<T>(_ connection: PostgresConnection, _ body: () throws -> T) throws -> T {
        try query(connection, "BEGIN")
        do {
            let value = try body()
            try query(connection, "COMMIT")
            return value
        } catch {
            _ = try? query(connection, "ROLLBACK")
            throw error
        }
    }

    /// An error of postgres-nio (or ours) as one sentence for a person; never a password.
    /// `connected`: whether a connection was made; one that closes before it was could not
    /// reach the server (a firewall, a proxy with nothing behind it), it was not lost.
    static func sentence(for error: any Error, at location: PostgresLocation, connected: Bool = true) -> WorldCupError {
        if let error = error as? WorldCupError { return error }
        if let error = error as? Failure { return error.sentence }
        let server = location.server
        if let error = error as? LiveResultsPostgresError { return WorldCupError(error.description) }
        guard let error = error as? PSQLError else {
            // The channel of a verify-full connection is made here, its errors unwrapped.
            if let failure = tlsFailure(underlying: error, at: location) { return failure }
            if error is NIOConnectionError || error is IOError || error is ChannelError {
                return connectionFailure(error, location: location)
            }
            return WorldCupError("The PostgreSQL server at \(server) could not be used: \(error).")
        }
        if let failure = tlsFailure(error, at: location) { return failure }
        let user = "“\(WorldCupError.quotable(location.url.user))”"
        if let state = error.serverInfo?[.sqlState] {
            let message = WorldCupError.quotable(error.serverInfo?[.message] ?? "no reason given", limit: 200)
            switch state {
            case "28P01": return WorldCupError("The PostgreSQL server at \(server) refused the password of the user \(user).")
            case "28000": return WorldCupError("The PostgreSQL server at \(server) does not let the user \(user) in: \(message).")
            case "3D000": return location.missingDatabase
            case "53300": return WorldCupError("The PostgreSQL server at \(server) has too many connections open.")
            case "57P01", "57P02", "57P03": return WorldCupError("The PostgreSQL server at \(server) is shutting down or starting up.")
            case let state where state.hasPrefix("08"):
                return WorldCupError("The connection to the PostgreSQL server at \(server) was lost.")
            default: return WorldCupError("The PostgreSQL server at \(server) refused: \(message).")
            }
        }
        switch error.code {
        case .authMechanismRequiresPassword:
            return WorldCupError("The PostgreSQL server at \(server) asks the user \(user) for a password, and none was given (in the URL, PGPASSWORD or the password file).")
        case .serverClosedConnection, .clientClosedConnection, .uncleanShutdown:
            guard connected else {
                return WorldCupError("The PostgreSQL server at \(server) could not be reached: the connection closed before the server answered.")
            }
            return WorldCupError("The connection to the PostgreSQL server at \(server) was lost.")
        case .connectionError:
            return connectionFailure(error.underlying, location: location)
        default:
            return WorldCupError("The PostgreSQL server at \(server) could not be used: \(error.code).")
        }
    }

    /// Why connecting failed: an unknown host, nothing listening, or another network error.
    private static func connectionFailure(_ underlying: (any Error)?, location: PostgresLocation) -> WorldCupError {
        let server = location.server
        if let failure = underlying as? NIOConnectionError {
            if failure.connectionErrors.isEmpty, failure.dnsAError != nil || failure.dnsAAAAError != nil {
                return WorldCupError("The PostgreSQL server's host “\(WorldCupError.quotable(location.url.host))” is not known.")
            }
            if failure.connectionErrors.contains(where: { ($0.error as? IOError)?.errnoCode == ECONNREFUSED }) {
                return WorldCupError("The PostgreSQL server at \(server) is not running (connection refused).")
            }
        }
        if let failure = underlying as? IOError {
            switch failure.errnoCode {
            case ENOENT, ECONNREFUSED: return WorldCupError("There is no PostgreSQL server at \(server).")
            case EACCES: return WorldCupError("The PostgreSQL server's socket \(server) cannot be opened: permission denied.")
            default: break
            }
        }
        if underlying is ChannelError {
            return WorldCupError("The PostgreSQL server at \(server) is not answering.")
        }
        let reason = underlying.map { WorldCupError.quotable("\($0)", limit: 200) } ?? "the connection failed"
        return WorldCupError("The PostgreSQL server at \(server) could not be reached: \(reason).")
    }
}
