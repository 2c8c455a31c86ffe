import Dispatch
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import PostgresNIO

/// The deadline of the read or write under way on this thread (`PostgresReader.withConnection`
/// sets it), which every wait for the server's answer keeps to.
///
/// Closing a connection does not always end the statements sent on it: postgres-nio can leave
/// the future of a statement sent just as the server ends the connection (a backend
/// terminated, a failover) unanswered for good. So no wait relies on the connection failing
/// its statements: each one is given up at the deadline on its own (`waitWithinDeadline`).
package struct StatementDeadline: Sendable {
    /// When the wait is given up.
    package var instant: NIODeadline
    /// What the wait fails with then.
    package var error: LiveResultsPostgresError

    /// The deadline of the read or write under way, if any.
    @TaskLocal package static var current: StatementDeadline?

    /// The deadline `amount` from now, failing with `error`.
    package init(in amount: TimeAmount, error: LiveResultsPostgresError) {
        instant = .now() + amount
        self.error = error
    }

    /// A deadline `amount` from now for a tool's own long statements (a benchmark building
    /// millions of rows), which no reader's deadline fits.
    package static func long(_ amount: TimeAmount) -> StatementDeadline {
        StatementDeadline(in: amount, error: LiveResultsPostgresError("The PostgreSQL server did not answer within \(amount)."))
    }

    /// The deadline a wait outside any read or write keeps to.
    static func outside() -> StatementDeadline {
        StatementDeadline(in: PostgresReader.defaultDeadline,
                          error: LiveResultsPostgresError("The PostgreSQL server is not answering."))
    }
}

extension EventLoopFuture where Value: Sendable {
    /// The future's value, waited for on this (non-event-loop) thread no later than the deadline
    /// of the read or write under way (`StatementDeadline.current`), or the default deadline
    /// from now outside one; past it, fails with the deadline's error whether or not the future
    /// ever ends.
    package func waitWithinDeadline() throws -> Value {
        try waitWithin(StatementDeadline.current ?? .outside())
    }

    /// The future's value, waited for no later than `deadline`.
    ///
    /// The calling thread waits on a semaphore of its own, never with `EventLoopFuture.wait()`,
    /// and gives up at the deadline even if the future never ends. It must be a thread that may
    /// block: not an event loop's (whose work the future may need), nor one of Swift's
    /// cooperative pool (the library's async sequences run their reads on a thread of their own).
    package func waitWithin(_ deadline: StatementDeadline) throws -> Value {
        precondition(!eventLoop.inEventLoop, "A PostgreSQL statement was waited for on the event loop its answer needs.")
        assert(MultiThreadedEventLoopGroup.currentEventLoop == nil, "A PostgreSQL statement was waited for on an event loop's thread.")
        let answer = NIOLockedValueBox<Result<Value, any Error>?>(nil)
        let answered = DispatchSemaphore(value: 0)
        whenComplete { result in
            answer.withLockedValue { $0 = result }
            answered.signal()
        }
        let left = max(deadline.instant - .now(), .zero)
        let waited = answered.wait(timeout: .now() + .nanoseconds(Int(left.nanoseconds)))
        guard waited == .success, let result = answer.withLockedValue({ $0 }) else { throw deadline.error }
        return try result.get()
    }
}

extension PostgresConnection {
    /// The rows of `query`, through postgres-nio's async interface, for the synchronous reads
    /// of a store (a fetch, a log read): the query runs as a task on the connection's event
    /// loop, and this thread waits for it within the deadline of the read under way
    /// (`waitWithinDeadline`), so a statement the server never answers is given up at the deadline.
    package func rowsWithinDeadline(_ query: PostgresQuery, logger: Logger) throws -> [PostgresRow] {
        try runWithinDeadline { try await self.query(query, logger: logger).collect() }
    }

    /// Runs `body` (postgres-nio's async calls on this connection) as a task on the
    /// connection's event loop, waited for on this thread within the deadline of the read
    /// under way; the task is cancelled when the wait is given up.
    package func runWithinDeadline<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
        let promise = eventLoop.makePromise(of: T.self)
        let task = Task(executorPreference: EventLoopTaskExecutor(eventLoop)) {
            do { promise.succeed(try await body()) } catch { promise.fail(error) }
        }
        do {
            return try promise.futureResult.waitWithinDeadline()
        } catch {
            task.cancel()
            throw error
        }
    }
}
