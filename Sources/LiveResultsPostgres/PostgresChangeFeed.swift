import Foundation
import LiveResults
import NIOConcurrencyHelpers
import NIOCore
import PostgresNIO

/// The change feed of a PostgreSQL table: a connection of its own LISTENs on the table's
/// channel, and each notification wakes a read of the change log (`LogRead`), whose rows
/// become one change for the controller. The log is the truth; a notification only says
/// "read now".
///
/// - A lost connection is made again with backoff (50 ms, doubling up to 0.5 s); once it
///   LISTENs again, the log is read from the cursor: LISTEN first, read second, so a write
///   between the two cannot be missed.
/// - A heartbeat reads the log every `heartbeatInterval` (the safety net, should a
///   notification be lost); a read (or a probe) not answered three intervals after it was
///   sent means a dead connection (a silent network cut sends nothing), which is closed and
///   made again.
/// - A cursor behind the log's pruned mark, or a TRUNCATE, leads to a refetch that the
///   controller compares with its result.
/// - Behind a pooler in transaction mode (PgBouncer's, a hosted `-pooler` host) LISTEN hears
///   nothing and a prepared statement may be gone at its next use. So each connection first
///   asks for a notification of its own (`NotificationProbe`) and sends nothing until it
///   arrives or a second has passed: a pooler hands a listening session's notifications to
///   whichever client its next statement serves, so a statement of the feed's own could
///   fetch the probe late and pass for a server that delivers. When the probe did not come,
///   the feed says so (`pollInterval`), reads unprepared, and lives on its heartbeat, which
///   then finds every commit.
///
/// Writes of this process through `PostgresReader.write` hand their rows over at once
/// (`endWrite`); `EarlyWrites` keeps the log from undoing or repeating them. Their
/// notifications (which name the writing transaction) then ask for no read at once: the
/// log is read a little later, or with the next other notification, whichever comes first.
///
/// All state but the queue of changes lives on one event loop.
final class PostgresChangeFeed: ChangeFeed, @unchecked Sendable { // Mutable state is confined to `eventLoop`.
    private let database: PostgresReader
    private let eventLoop: any EventLoop
    private let channel: String
    private let read: LogRead
    private let table: String
    private let notify: @Sendable () -> Void
    private let heartbeatInterval: TimeAmount?
    /// How long after a notification of this process's own write the log is read anyway (nil:
    /// at once, as for any notification).
    private let settlingDelay: TimeAmount?
    private let minimumLookInterval: TimeAmount
    /// Where the prepared log read's task runs: on `eventLoop`.
    private let taskExecutor: EventLoopTaskExecutor

    /// Changes read and not yet taken.
    private let pending = NIOLockedValueBox<[TrackedChange]>([])
    /// Whether the listening connection is up (read from any thread).
    private let live = NIOLockedValueBox(false)
    /// How many writes' hand-overs were applied (read from any thread, written on the event loop).
    private let handOffs = NIOLockedValueBox(0)
    /// Writes of this process sent and not yet ended (`beginWrite`, `endWrite`).
    private let writesInFlight = NIOLockedValueBox(0)
    /// How many log reads began (for tests).
    private let readsBegun = NIOLockedValueBox(0)
    /// Whether the current connection's probe came back (nil: not yet known, or no connection).
    private let notificationsHeard = NIOLockedValueBox<Bool?>(nil)

    // On the event loop only:
    private var connection: PostgresConnection?
    /// Counts connections, so callbacks of an old one are ignored.
    private var generation = 0
    private var cursor: ChangeLogCursor?
    private var early = EarlyWrites()
    /// The transactions of notifications that came while writes were in flight (nil: none named).
    private var heldNotifications: [UInt64?] = []
    private var settlingScheduled = false
    private var reading: NIODeadline?
    /// Since when the feed has waited for the server without an answer (a read running, or a
    /// probe out and the read it held back): a silent network cut shows as this growing.
    private var unansweredSince: NIODeadline?
    private var readRequested = false
    private var readScheduled = false
    private var lastReadStart = NIODeadline.uptimeNanoseconds(0)
    private var backoff = PostgresChangeFeed.firstBackoff
    /// The probe of the current connection, until its notification comes back or it is
    /// given up; reads wait meanwhile.
    private var probe: NotificationProbe?
    /// Whether the server refused the read's settings at startup (a pooler that knows only a
    /// few parameters): connections are then made without them.
    private var settingsRefused = false
    private var heartbeat: RepeatedTask?
    /// `lookNow` callers waiting for a read that starts after they asked, and for the read running.
    private var waitingForNextRead: [EventLoopPromise<Void>] = []
    private var waitingForThisRead: [EventLoopPromise<Void>] = []

    private static let firstBackoff = TimeAmount.milliseconds(50)
    /// A board catches up within half a second of its server coming back; a refused
    /// connection costs the server next to nothing.
    private static let longestBackoff = TimeAmount.milliseconds(500)

    /// Connects and LISTENs, waiting until the server confirms; reading starts at `start(at:)`.
    init(database: PostgresReader, read: LogRead, channel: String, tracking: Tracking) throws {
        self.database = database
        eventLoop = database.eventLoopGroup.next()
        taskExecutor = EventLoopTaskExecutor(eventLoop)
        self.channel = channel
        self.read = read
        self.table = read.keys.query.tableName
        notify = tracking.notify
        heartbeatInterval = tracking.pollInterval > .zero ? Self.timeAmount(tracking.pollInterval * 20) : nil
        settlingDelay = tracking.pollInterval > .zero ? Self.timeAmount(tracking.pollInterval * 2) : nil
        minimumLookInterval = Self.timeAmount(tracking.minimumLookInterval)
        do {
            try eventLoop.flatSubmit { self.connect() }.wait()
        } catch {
            throw PostgresErrors.readable(error)
        }
    }

    deinit {
        let (connection, heartbeat) = (connection, heartbeat)
        eventLoop.execute {
            heartbeat?.cancel()
            // Kept until closed: postgres-nio asserts a connection is closed before it goes.
            connection?.close().whenComplete { _ in _ = connection }
        }
    }

    /// Starts reading the log after `cursor` (the cursor of the snapshot the result was
    /// fetched from), now and at every wake-up.
    func start(at cursor: ChangeLogCursor) {
        database.writeListeners.add(self, table: table)
        eventLoop.execute {
            self.cursor = cursor
            if let interval = self.heartbeatInterval {
                self.heartbeat = self.eventLoop.scheduleRepeatedTask(initialDelay: interval, delay: interval) { [weak self] _ in
                    self?.beat()
                }
            }
            self.requestRead(now: true)
        }
    }

    /// How many reads of the log began so far (for tests).
    var logReadsBegun: Int { readsBegun.withLockedValue { $0 } }

    /// Whether the listening connection is up; false while it is being made again. The
    /// controller is woken when it changes.
    var isLive: Bool { live.withLockedValue { $0 } }

    /// The heartbeat's interval once the connection's own notification failed to come back
    /// (a transaction-mode pooler): commits are then found only by the heartbeat's reads.
    var pollInterval: Duration? {
        guard notificationsHeard.withLockedValue({ $0 }) == false, let heartbeatInterval else { return nil }
        return .nanoseconds(heartbeatInterval.nanoseconds)
    }

    // MARK: - ChangeFeed

    func takeChanges() -> [TrackedChange] {
        pending.withLockedValue { changes in
            defer { changes.removeAll() }
            return changes
        }
    }

    /// Reads the log now and waits for that read (not at all while disconnected).
    func lookNow() {
        let promise = eventLoop.makePromise(of: Void.self)
        eventLoop.execute {
            guard self.connection != nil, self.cursor != nil else { return promise.succeed() }
            self.waitingForNextRead.append(promise)
            self.requestRead(now: true)
        }
        try? promise.futureResult.wait()
    }

    // MARK: - Writes of this process

    /// The controller's key query: what a write returns for this feed.
    var keys: PostgresKeyQuery.Statements { read.keys }

    /// How many writes' hand-overs the feed has applied so far: a write notes it before it
    /// is sent, so its hand-over can tell which applied writes it may have raced.
    var handOffsAccepted: Int { handOffs.withLockedValue { $0 } }

    /// Notes a write of this process about to be sent; returns `handOffsAccepted` for its
    /// `endWrite`. Until the write ends, notifications wait, so that the feed can tell whether
    /// they are of this write (whose rows the write hands over) or of another transaction.
    func beginWrite() -> Int {
        writesInFlight.withLockedValue { $0 += 1 }
        return handOffsAccepted
    }

    /// Ends a write `beginWrite` noted: applies the rows its transaction `xid` committed, as
    /// its answer gave them (nil: it failed, or there is nothing to hand over), unless
    /// `EarlyWrites` says the log has them already or they may be stale; returns once done
    /// (the change is then pending). `sentAfter`: what `beginWrite` returned.
    func endWrite(_ written: (xid: UInt64, rows: [(id: RecordID, key: RowKey?)])?, sentAfter: Int) {
        let done = eventLoop.submit {
            let stillInFlight = self.writesInFlight.withLockedValue { count in
                count -= 1
                return count
            }
            if let written, let cursor = self.cursor {
                let sequence = self.handOffs.withLockedValue { $0 } + 1
                if self.early.accept(xid: written.xid, ids: Set(written.rows.map(\.id)), sequence: sequence, sentAfter: sentAfter, cursor: cursor) {
                    self.handOffs.withLockedValue { $0 = sequence }
                    self.enqueue(.rows(CommittedChange(rows: written.rows, origin: .ownWrites)))
                }
            }
            if stillInFlight == 0 {
                let held = self.heldNotifications
                self.heldNotifications = []
                for transaction in held { self.notified(by: transaction) }
            }
        }
        try? done.wait()
    }

    // MARK: - Notifications

    /// A notification of `transaction` (nil: it named none). A write of this process whose
    /// rows were handed over needs no read now; the log is still read a little later
    /// (`settlingDelay`, two poll intervals), for rows of that transaction the write did not
    /// return (another statement of it, or a WITH that changed the table too) and so that the
    /// cursor moves on.
    private func notified(by transaction: UInt64?) {
        guard writesInFlight.withLockedValue({ $0 }) == 0 else {
            heldNotifications.append(transaction)
            return
        }
        if let transaction, let settlingDelay, early.isApplied(transaction) {
            settleLater(in: settlingDelay)
        } else {
            requestRead(now: false)
        }
    }

    /// Reads the log `delay` from now, unless a read begins before then.
    private func settleLater(in delay: TimeAmount) {
        guard !settlingScheduled else { return }
        settlingScheduled = true
        let asked = NIODeadline.now()
        eventLoop.scheduleTask(in: delay) { [weak self] in
            guard let self else { return }
            self.settlingScheduled = false
            if self.lastReadStart < asked { self.requestRead(now: false) }
        }
    }

    // MARK: - Connecting

    /// Makes the listening connection: connect, add the listeners, LISTEN, then read, and
    /// send the connection's probe.
    private func connect() -> EventLoopFuture<Void> {
        eventLoop.preconditionInEventLoop()
        generation += 1
        let generation = generation
        return makeConnection().flatMap { connection -> EventLoopFuture<Void> in
            guard generation == self.generation else { return connection.close() }
            let probe = NotificationProbe()
            connection.addListener(channel: self.channel) { [weak self] _, notification in
                self?.notified(by: UInt64(notification.payload))
            }
            connection.addListener(channel: probe.channel) { [weak self] _, notification in
                self?.probeReturned(notification.payload, generation: generation)
            }
            let logger = self.database.logger
            return connection.query(PostgresQuery(unsafeSQL: "LISTEN " + PostgresSQL.identifier(self.channel)), logger: logger).flatMap { _ in
                connection.query(PostgresQuery(unsafeSQL: "LISTEN " + PostgresSQL.identifier(probe.channel)), logger: logger)
            }.map { _ in
                // Only a connection that listens is watched: one that failed before is closed
                // here, and the caller tries again.
                connection.closeFuture.whenComplete { [weak self] _ in self?.lost(generation) }
                self.connection = connection
                self.probe = probe
                self.notificationsHeard.withLockedValue { $0 = nil }
                self.backoff = Self.firstBackoff
                self.live.withLockedValue { $0 = true }
                self.notify()
                self.requestRead(now: true)
                self.send(probe, generation: generation)
            }.flatMapError { error in
                connection.close().flatMapThrowing { throw error }
            }
        }
    }

    /// A connection for LISTEN and the log read, with the read's settings unless the server
    /// refused them once (a pooler that accepts only a few startup parameters).
    private func makeConnection() -> EventLoopFuture<PostgresConnection> {
        guard !settingsRefused else { return database.connect(on: eventLoop) }
        return Self.connection(to: database, on: eventLoop).flatMapError { error in
            guard NotificationProbe.refusesStartupParameter(error) else {
                return self.eventLoop.makeFailedFuture(error)
            }
            self.settingsRefused = true
            return self.database.connect(on: self.eventLoop)
        }
    }

    /// A connection of a feed, for LISTEN and the prepared log read, with the read's settings.
    static func connection(to database: PostgresReader, on eventLoop: any EventLoop) -> EventLoopFuture<PostgresConnection> {
        database.connect(on: eventLoop, settings: PreparedLogRead.connectionSettings)
    }

    // MARK: - The probe

    /// Sends the probe from another connection (the reader's: through a pooler, a session of
    /// its own), and gives it `NotificationProbe.patience` to come back.
    private func send(_ probe: NotificationProbe, generation: Int) {
        awaitAnswer(since: .now())
        database.notify(channel: probe.channel, payload: probe.payload, on: eventLoop)
        eventLoop.scheduleTask(in: NotificationProbe.patience) { [weak self] in
            guard let self, generation == self.generation, self.probe === probe else { return }
            self.settle(probe: false)
        }
    }

    /// A notification on the probe's channel, in time: the connection hears notifications,
    /// and the log read may be prepared on it. (One that comes after the probe was given up
    /// is ignored: a pooler hands it over with the feed's next statement.)
    private func probeReturned(_ payload: String, generation: Int) {
        guard generation == self.generation, let probe, payload == probe.payload else { return }
        if reading == nil { unansweredSince = nil }
        settle(probe: true)
    }

    /// Ends the probe with its verdict, and lets the reads it held back run.
    private func settle(probe heard: Bool) {
        probe = nil
        let before = notificationsHeard.withLockedValue { known in
            defer { known = heard }
            return known
        }
        // The controller is woken when `pollInterval` may have changed (the title says it).
        if before != heard { notify() }
        // The read the probe held back carries the wait on; with none, nothing is awaited.
        if readRequested { requestRead(now: true) } else if reading == nil { unansweredSince = nil }
    }

    /// The connection closed: make it again after the backoff.
    private func lost(_ generation: Int) {
        guard generation == self.generation else { return }
        connection = nil
        reading = nil
        unansweredSince = nil
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

    /// Notes that the feed waits for the server from `start` (a read sent, or a probe), unless
    /// it waited already; and ends the connection if no answer came three beats later.
    private func awaitAnswer(since start: NIODeadline) {
        guard unansweredSince == nil else { return }
        unansweredSince = start
        guard let interval = heartbeatInterval else { return }
        eventLoop.scheduleTask(deadline: start + interval * 3) { [weak self] in
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

    /// The heartbeat: a read when none began within the last beat (notifications keep a busy
    /// feed reading: a thousand viewers of one table then add no reads of their own). A
    /// connection that stops answering is ended by `awaitAnswer`.
    private func beat() {
        guard connection != nil, let interval = heartbeatInterval else { return }
        guard NIODeadline.now() - lastReadStart >= interval else { return }
        requestRead(now: true)
    }

    // MARK: - Reading

    /// Reads the log, at once or (for a notification) no sooner than `minimumLookInterval`
    /// after the last read began; a request during a read runs after it.
    private func requestRead(now: Bool) {
        readRequested = true
        guard reading == nil, connection != nil, cursor != nil, probe == nil else { return }
        let due = lastReadStart + minimumLookInterval
        if !now, NIODeadline.now() < due {
            guard !readScheduled else { return }
            readScheduled = true
            eventLoop.scheduleTask(deadline: due) { [weak self] in
                self?.readScheduled = false
                self?.requestRead(now: true)
            }
            return
        }
        performRead()
    }

    private func performRead() {
        guard let connection, let cursor else { return }
        readRequested = false
        readsBegun.withLockedValue { $0 += 1 }
        let started = NIODeadline.now()
        reading = started
        awaitAnswer(since: started)
        lastReadStart = started
        waitingForThisRead = waitingForNextRead
        waitingForNextRead = []
        let generation = generation
        // Prepared only where notifications were heard: behind a transaction-mode pooler the
        // next statement may reach another server session, which never saw it prepared.
        let query = read.query(after: cursor)
        let rows = notificationsHeard.withLockedValue({ $0 }) == true
            ? PreparedLogRead.run(query, on: connection, executor: taskExecutor, logger: database.logger)
            : connection.query(query, logger: database.logger).map { Array($0) }
        rows.whenComplete { [weak self] result in
            guard let self, generation == self.generation, self.reading == started else { return }
            self.reading = nil
            self.unansweredSince = nil
            switch result {
            case .success(let rows):
                self.received(rows)
            case .failure:
                // A closed connection is made again (and the log read then); a failed query
                // (the table changed under us) becomes a refetch, which reports why, and the
                // connection is made again, so the read is prepared again for the table as it is.
                if !connection.isClosed {
                    self.enqueue(.refetch(touched: []))
                    let closed: EventLoopFuture<Void> = connection.close()
                    _ = closed
                }
            }
            for waiter in self.waitingForThisRead { waiter.succeed() }
            self.waitingForThisRead = []
            if self.readRequested { self.requestRead(now: false) }
        }
    }

    /// Turns one read's rows into a change and moves the cursor.
    private func received(_ rows: [PostgresRow]) {
        guard let cursor else { return }
        let found: LogRead.Found
        do {
            found = try read.decode(rows)
        } catch {
            return enqueue(.refetch(touched: []))
        }
        let next = cursor.after(found.lastPosition, snapshot: found.snapshot)
        let missed = found.pruned.map { cursor.mayHaveMissedEntries(prunedThrough: $0) } ?? false
        self.cursor = found.pruned.map { ChangeLogCursor(position: max(next.position, $0.position), inProgress: next.inProgress, unfinishedFrom: next.unfinishedFrom) } ?? next
        if missed || found.everyRow {
            early.forget(seenBy: found.snapshot)
            enqueue(.refetch(touched: Set(found.rows.map(\.id))))
        } else {
            let rows = early.filter(found.rows, transactions: found.transactions, snapshot: found.snapshot)
            if !rows.isEmpty { enqueue(.rows(CommittedChange(rows: rows))) }
        }
    }

    private func enqueue(_ change: TrackedChange) {
        pending.withLockedValue { $0.append(change) }
        notify()
    }

    private static func timeAmount(_ duration: Duration) -> TimeAmount {
        let (seconds, attoseconds) = duration.components
        return .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}

/// The log read as a statement prepared once per connection, by postgres-nio's
/// `PostgresPreparedStatement` path (its older `prepare(query:)` path labels binary rows as
/// text). Planning the read cost more than running it, and at each commit every controller
/// of the table reads: a thousand viewers made a thousand plans per tap.
///
/// postgres-nio names a prepared statement by its type and takes its SQL from the type, but a
/// feed's SQL depends on its request: the SQL is given as a task-local value while `run`
/// executes. That is sound because each feed has a connection of its own and reads only this
/// one statement on it, so the name means the same SQL on every connection it is prepared on.
struct PreparedLogRead: PostgresPreparedStatement {
    typealias Row = PostgresRow

    /// The settings of the feed's connection (which runs nothing but LISTEN and this read): the
    /// read is planned once, generically.
    ///
    /// Left to choose, the server planned the read again at every run: a generic plan cannot
    /// see that few entries follow the cursor, so it looks costlier than a custom one, and
    /// planning this statement costs more than running it (420 µs of server CPU a read
    /// against 60–100 µs with the generic plan, on a log of 10,000 entries; the read is on
    /// the path of every commit to every viewer). Not `enable_seqscan = off` as well: that
    /// made the generic plan take 0.5–0.9 s a read.
    static let connectionSettings = [("plan_cache_mode", "force_generic_plan")]

    @TaskLocal static var currentSQL = ""
    static var sql: String { currentSQL }
    static var name: String { "liveresults_log_read" }

    let bindings: PostgresBindings

    func makeBindings() -> PostgresBindings { bindings }
    func decodeRow(_ row: PostgresRow) -> PostgresRow { row }

    /// Executes `query` (prepared on `connection` at its first run) and collects its rows, in
    /// a task that runs on `executor` (the feed's event loop).
    static func run(_ query: PostgresQuery, on connection: PostgresConnection, executor: EventLoopTaskExecutor,
                    logger: Logger) -> EventLoopFuture<[PostgresRow]> {
        let promise = executor.eventLoop.makePromise(of: [PostgresRow].self)
        Task(executorPreference: executor) {
            do {
                let rows = try await $currentSQL.withValue(query.sql) {
                    var rows: [PostgresRow] = []
                    for try await row in try await connection.execute(PreparedLogRead(bindings: query.binds), logger: logger) {
                        rows.append(row)
                    }
                    return rows
                }
                promise.succeed(rows)
            } catch {
                promise.fail(error)
            }
        }
        return promise.futureResult
    }
}
