import NIOCore
import PostgresNIO

// The heartbeat, and noticing a connection that stopped answering.
extension PostgresChangeFeed {
    /// Beats every `heartbeatInterval` from now, if the feed has one.
    func startHeartbeat() {
        guard let interval = heartbeatInterval else { return }
        heartbeat = eventLoop.scheduleRepeatedTask(initialDelay: interval, delay: interval) { [weak self] _ in
            self?.beat()
        }
    }

    /// The heartbeat, when no read began within the last beat (notifications keep a busy feed
    /// reading). Where notifications arrive, a ping that runs no plan, `beatsBetweenPings`
    /// beats after the last ping, read or notification, given one beat to answer: a
    /// notification shows the connection alive as an answer does; the log is read when a
    /// notification comes, and a lost connection is made again and read from the cursor, so
    /// the beat need only find a connection that died in silence, which it does within four
    /// beats, as a read every beat with three to answer did. Where notifications do not
    /// arrive (a pooler), or until the probe says, a read of the log every beat, which then
    /// finds every commit.
    private func beat() {
        guard let connection, let interval = heartbeatInterval, reading == nil, probe == nil else { return }
        let now = NIODeadline.now()
        guard now - lastReadStart >= interval else { return }
        guard notificationsHeard.withLockedValue({ $0 }) == true else { return requestRead(now: true) }
        guard now - max(lastReadStart, lastPing) >= interval * Self.beatsBetweenPings, unansweredSince == nil else { return }
        lastPing = now
        let generation = generation
        database.gate.whenOpen(on: eventLoop).flatMap { () -> EventLoopFuture<PostgresQueryResult> in
            guard generation == self.generation else { return self.eventLoop.makeFailedFuture(CancellationError()) }
            self.awaitAnswer(since: .now(), beats: 1)
            // The empty statement: the server parses nothing and plans nothing, and answers.
            return connection.query(PostgresQuery(unsafeSQL: ""), logger: self.database.logger)
        }.whenComplete { [weak self] _ in
            // Any answer, an error too, shows the connection alive.
            guard let self, generation == self.generation else { return }
            self.answered()
        }
    }

    /// How many beats apart an idle feed pings: each ping wakes the server's backend.
    static let beatsBetweenPings: Int64 = 3

    /// Notes that the feed waits for the server from `start` (a statement sent, or a probe),
    /// unless it waited already; and ends the connection if no answer came `beats` beats later,
    /// or by the reader's deadline, whichever is sooner (a statement postgres-nio never
    /// answers, as one sent while the server ends the connection, is given up then).
    func awaitAnswer(since start: NIODeadline, beats: Int64 = 3) {
        guard unansweredSince == nil else { return }
        unansweredSince = start
        let patience = heartbeatInterval.map { min($0 * beats, database.deadline) } ?? database.deadline
        eventLoop.scheduleTask(deadline: start + patience) { [weak self] in
            guard let self, let connection = self.connection, self.unansweredSince == start else { return }
            // The read that never answered is abandoned, not reported as failed (which would
            // ask for a refetch over the same dead network): the connection is made again,
            // and the log read from the cursor then.
            self.reading = nil
            self.unansweredSince = nil
            let closed: EventLoopFuture<Void> = connection.close()
            _ = closed
        }
    }

    /// The server answered: nothing is awaited unless a read or the probe still is.
    func answered() {
        if reading == nil, probe == nil { unansweredSince = nil }
    }
}
