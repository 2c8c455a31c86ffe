import NIOCore

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
    package func waitWithin(_ deadline: StatementDeadline) throws -> Value {
        let bounded = eventLoop.makePromise(of: Value.self)
        let timer = eventLoop.scheduleTask(deadline: deadline.instant) { bounded.fail(deadline.error) }
        cascade(to: bounded)
        defer { timer.cancel() }
        return try bounded.futureResult.wait()
    }
}
