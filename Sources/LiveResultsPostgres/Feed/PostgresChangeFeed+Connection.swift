import LiveResults
import NIOCore
import PostgresNIO

// Listening on the reader's connection, and listening again once it is lost.
extension PostgresChangeFeed {
    /// Listens on the reader's connection (connecting when there is none): adds the handlers
    /// and looks for the database's writers, then reads and sends the connection's probe; the
    /// future ends with the probe's verdict, so that a fetch after it never runs while the
    /// probe is out, nor takes an open board's first notification for a stranger's.
    ///
    /// Given up when it does not listen within the reader's deadlines (to connect, then to
    /// LISTEN): the connection is closed and the attempt's callbacks ignored, so that a LISTEN
    /// postgres-nio never answers cannot leave the feed waiting for good.
    func connect() -> EventLoopFuture<Void> {
        eventLoop.preconditionInEventLoop()
        generation += 1
        let generation = generation
        let connecting = database.sharedConnection()
        let bounded = eventLoop.makePromise(of: Void.self)
        let patience = database.connectingDeadline + database.deadline
        let timer = eventLoop.scheduleTask(in: patience) { [weak self] in
            guard let self, generation == self.generation, self.connection == nil else { return }
            self.generation += 1
            bounded.fail(self.database.notAnswering)
            connecting.whenSuccess { connection in
                let closed: EventLoopFuture<Void> = connection.close()
                _ = closed
            }
        }
        bounded.futureResult.whenComplete { _ in timer.cancel() }
        listen(on: connecting, generation: generation).cascade(to: bounded)
        return bounded.futureResult
    }

    /// Listens on the connection `connecting` makes, for the attempt `generation`.
    ///
    /// postgres-nio sends a channel's LISTEN as its first handler is added, queued behind the
    /// statements before it; the look for the writers, added next, is answered after them, so
    /// its answer says the connection listens (postgres-nio sends one statement at a time: a
    /// round trip each). The probe is sent only then, and from a connection made for it only
    /// then when there is none to send it from (`PostgresReader.sendProbes(through:)`): made
    /// before, every attempt to listen again through a frozen network would leave one waiting,
    /// and they would all reach the server at once.
    private func listen(on connecting: EventLoopFuture<PostgresConnection>, generation: Int) -> EventLoopFuture<Void> {
        connecting.hop(to: eventLoop).flatMap { connection -> EventLoopFuture<Void> in
            guard generation == self.generation else { return self.eventLoop.makeSucceededVoidFuture() }
            let probe = NotificationProbe(on: self.eventLoop)
            // Ends the attempt as soon as the connection closes before it listens: postgres-nio
            // may never answer a LISTEN sent as the server ends the connection.
            let listened = self.eventLoop.makePromise(of: Void.self)
            connection.closeFuture.whenComplete { [closed = self.database.connectionClosed] _ in listened.fail(closed) }
            // Added only between the controller's reads: a LISTEN inside a transaction that
            // rolled back would be undone with it.
            self.database.gate.whenOpen(on: self.eventLoop).flatMap { () -> EventLoopFuture<Void> in
                // postgres-nio traps on a handler added to a closed connection (its LISTEN is
                // never sent, and the handler goes unused); the connection's loop is this one.
                guard !connection.isClosed else { return self.eventLoop.makeFailedFuture(self.database.connectionClosed) }
                self.addListeners(on: connection, probe: probe, generation: generation)
                return self.lookForWriters(on: connection)
            }.cascade(to: listened)
            return listened.futureResult.flatMap { _ -> EventLoopFuture<Void> in
                guard generation == self.generation else { return self.eventLoop.makeFailedFuture(self.database.notAnswering) }
                guard !connection.isClosed else { return self.eventLoop.makeFailedFuture(self.database.connectionClosed) }
                // Only a connection that listens is watched: one that failed before is closed
                // here, and the caller tries again.
                connection.closeFuture.whenComplete { [weak self] _ in self?.lost(generation) }
                self.connection = connection
                self.probe = probe
                self.notificationsHeard.withLockedValue { $0 = nil }
                self.backoff = Self.firstBackoff
                self.live.withLockedValue { $0 = true }
                self.notify()
                // Listening again, the log is read from the cursor; listening first, the fetch
                // that follows reads what came before it (`start(at:)`).
                if self.cursor != nil { self.requestRead(now: true) }
                self.send(probe, generation: generation)
                return probe.verdict.futureResult
            }.flatMapError { error in
                probe.verdict.succeed()
                return connection.close().flatMapThrowing { throw error }
            }
        }
    }

    /// The handlers of the table's channel (and the related table's) and of the probe's, in
    /// place of any earlier connection's; postgres-nio sends their LISTENs.
    private func addListeners(on connection: PostgresConnection, probe: NotificationProbe, generation: Int) {
        for listener in listeners { listener.stop() }
        listeners = [
            connection.addListener(channel: channel) { [weak self, table] _, notification in
                self?.notified(HeardNotification(notification, table: table))
            },
            connection.addListener(channel: probe.channel) { [weak self] _, notification in
                self?.probeReturned(notification.payload, generation: generation)
            },
        ]
        // Joined: the related table's commits wake a read as the table's do.
        if let relatedChannel, let relatedTable = read.keys.related?.sections.table {
            listeners.append(connection.addListener(channel: relatedChannel) { [weak self] _, notification in
                self?.notified(HeardNotification(notification, table: relatedTable))
            })
        }
    }

    /// The connection closed: listen again after the backoff.
    func lost(_ generation: Int) {
        guard generation == self.generation else { return }
        connection = nil
        reading = nil
        unansweredSince = nil
        // The next connection reads the log from the cursor, which holds every commit these named.
        waitingNotifications = []
        awaitingVerdict = []
        lastPosition = nil
        probe?.verdict.succeed()
        probe = nil
        live.withLockedValue { $0 = false }
        notify()
        for waiter in waitingForThisRead + waitingForNextRead { waiter.succeed() }
        waitingForThisRead = []
        waitingForNextRead = []
        reconnect()
    }

    private func reconnect() {
        let delay = backoff
        backoff = min(backoff * 2, Self.longestBackoff)
        eventLoop.scheduleTask(in: delay) { [weak self] in
            guard let self, self.connection == nil else { return }
            self.connect().whenFailure { [weak self] _ in self?.reconnect() }
        }
    }

    /// A connection of a feed, with the log read's settings (what `PostgresReader` makes).
    static func connection(to database: PostgresReader, on eventLoop: any EventLoop) -> EventLoopFuture<PostgresConnection> {
        database.connect(on: eventLoop, settings: PreparedLogRead.connectionSettings)
    }
}
