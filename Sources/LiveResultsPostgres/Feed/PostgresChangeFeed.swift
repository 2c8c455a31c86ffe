import Foundation
import LiveResults
import NIOConcurrencyHelpers
import NIOCore
import PostgresNIO

/// The change feed of a PostgreSQL table: it LISTENs on the table's channel on its reader's
/// one connection; a notification that carries its commit and follows what the feed has
/// read is applied as it is, and any other wakes a read of the change log (`LogRead`), whose
/// rows become one change for the controller. The log is the truth.
///
/// Its jobs, each in a file of its own:
/// - reading the log from the cursor, no more often than `minimumLookInterval` for
///   notifications (here);
/// - listening, and making the connection again with backoff when it is lost; once it
///   LISTENs again, the log is read from the cursor: LISTEN first, read second, so a write
///   between the two cannot be missed (`+Connection`);
/// - the probe that tells a server that delivers notifications from a pooler in transaction
///   mode that does not (`+Probe`);
/// - the heartbeat: a ping that runs no plan every few beats where notifications arrive, a log
///   read every beat where they do not; a connection that leaves a statement unanswered too
///   long is closed and made again (`+Heartbeat`);
/// - writes of this process, whose rows a `PostgresWriter` hands over at once (`+Writes`);
/// - notifications that carry their commit (`NotifiedCommit`), applied without a read when
///   they follow the cursor, and the log read when they cannot be (`+Notified`).
///
/// A cursor behind the log's pruned mark, or a TRUNCATE, leads to a refetch that the
/// controller compares with its result.
///
/// All state but the queue of changes lives on the reader's event loop.
final class PostgresChangeFeed: ChangeFeed, @unchecked Sendable { // Mutable state is confined to `eventLoop`.
    let database: PostgresReader
    let eventLoop: any EventLoop
    let channel: String
    /// The related table's channel, when the controller's sections come through one.
    let relatedChannel: String?
    let read: LogRead
    let table: String
    let notify: @Sendable () -> Void
    /// Whether this process's own writes wake the controller's loop too (`notifiesOwnWrites`),
    /// asked at each: a consumer that shows its writes as soon as they return wants no second look.
    let notifiesOwnWrites: @Sendable () -> Bool
    /// The intervals of the controller's settings (`retune` changes them), read on any thread.
    private let intervals: NIOLockedValueBox<Intervals>
    var heartbeatInterval: TimeAmount? { intervals.withLockedValue { $0.heartbeat } }
    /// How long after a notification of this process's own write the log is read anyway (nil:
    /// at once, as for any notification).
    var settlingDelay: TimeAmount? { intervals.withLockedValue { $0.settling } }
    private var minimumLookInterval: TimeAmount { intervals.withLockedValue { $0.minimumLook } }
    /// Where the prepared log read's task runs: on `eventLoop`.
    private let taskExecutor: EventLoopTaskExecutor

    /// Changes read and not yet taken.
    private let pending = NIOLockedValueBox<[TrackedChange]>([])
    /// Whether the connection listens (read from any thread).
    let live = NIOLockedValueBox(false)
    /// How many writes' hand-overs were applied (read from any thread, written on the event loop).
    let handOffs = NIOLockedValueBox(0)
    /// Writes of this process sent and not yet ended (`beginWrite`, `endWrite`).
    let writesInFlight = NIOLockedValueBox(0)
    /// How many log reads began (for tests).
    private let readsBegun = NIOLockedValueBox(0)
    /// Whether the current connection's probe came back (nil: not yet known, or no connection).
    let notificationsHeard = NIOLockedValueBox<Bool?>(nil)

    // On the event loop only:
    /// The reader's connection, while this feed listens on it.
    var connection: PostgresConnection?
    /// Counts connections, so callbacks of an old one are ignored.
    var generation = 0
    /// This feed's handlers of the connection's notifications, removed when it goes.
    var listeners: [PostgresListenContext] = []
    var backoff = PostgresChangeFeed.firstBackoff
    /// The probe of the current connection, until its notification comes back or it is
    /// given up; reads wait meanwhile.
    var probe: NotificationProbe?
    var heartbeat: RepeatedTask?
    /// Since when the feed has waited for the server without an answer (a read, a ping, or a
    /// probe and the read it held back): a silent network cut shows as this growing.
    var unansweredSince: NIODeadline?
    var cursor: ChangeLogCursor?
    /// Joined: which related rows existed at the cursor.
    var relatedKeys = RelatedKeys()
    var early = EarlyWrites()
    /// The notifications that came while writes were in flight, in order.
    var heldNotifications: [HeardNotification] = []
    /// The notifications that came while a read was owed, in order: applied, or dropped as
    /// read, once it is done (`+Notified`).
    var waitingNotifications: [HeardNotification] = []
    /// Whose notifications are believed (`+Trust`).
    var trust = SenderTrust()
    /// The notifications of a sender being asked about, and every one after it, in order (`+Trust`).
    var awaitingVerdict: [HeardNotification] = []
    /// What questions about senders may cost: a few at once, then one an interval (`+Trust`).
    var questions = HintBudget()
    /// Whether the next question waits for the budget: nothing is held for it meanwhile.
    var questionPutOff = false
    /// What notifications that are not believed may cost in reads (`+Trust`).
    var hints = HintBudget()
    var hintedReadScheduled = false
    /// Whether a question about senders is out or due (`+Trust`).
    var asking = false
    /// The highest log position this feed has applied or read since its connection listens;
    /// nil: none yet (`+Notified`).
    var lastPosition: Int64?
    /// Where the last notification's columns hold the key and records (`+Notified`).
    var notifiedColumns: NotifiedColumns?
    /// What became of notifications (for tests and the benchmark).
    let notifiedOutcomes = NIOLockedValueBox(NotifiedOutcomes())
    /// How many commits this feed applies from notifications before a read passes them.
    let notifiedBeforeRead = PostgresChangeFeed.notifiedBeforeRead()
    var settlingScheduled = false
    /// When the running read began (nil: none runs).
    var reading: NIODeadline?
    var readRequested = false
    private var readScheduled = false
    var lastReadStart = NIODeadline.uptimeNanoseconds(0)
    /// When the heartbeat last pinged, or a notification last came (a sign of life as good).
    var lastPing = NIODeadline.uptimeNanoseconds(0)
    /// `lookNow` callers waiting for a read that starts after they asked, and for the read running.
    var waitingForNextRead: [EventLoopPromise<Void>] = []
    var waitingForThisRead: [EventLoopPromise<Void>] = []

    static let firstBackoff = TimeAmount.milliseconds(50)
    /// A board catches up within half a second of its server coming back; a refused
    /// connection costs the server next to nothing.
    static let longestBackoff = TimeAmount.milliseconds(500)

    /// LISTENs on the reader's connection (connecting when needed) and learns whether
    /// notifications arrive, waiting for both; reading starts at `start(at:)`.
    init(database: PostgresReader, read: LogRead, channel: String, tracking: Tracking) throws {
        self.database = database
        eventLoop = database.eventLoop
        taskExecutor = EventLoopTaskExecutor(eventLoop)
        self.channel = channel
        relatedChannel = try read.keys.related.map { try PostgresChangeLog.channel(for: $0.sections.table) }
        self.read = read
        self.table = read.keys.query.tableName
        notify = tracking.notify
        notifiesOwnWrites = tracking.notifiesOwnWrites
        intervals = NIOLockedValueBox(Intervals(pollInterval: tracking.pollInterval, minimumLookInterval: tracking.minimumLookInterval))
        do {
            try eventLoop.flatSubmit { self.connect() }.waitWithin(StatementDeadline(in: database.connectingDeadline + database.deadline, error: database.notAnswering))
        } catch {
            throw PostgresErrors.readable(error)
        }
    }

    deinit {
        let (listeners, heartbeat, probe) = (listeners, heartbeat, probe)
        eventLoop.execute {
            heartbeat?.cancel()
            probe?.verdict.succeed()
            // The connection is the reader's: only this feed's handlers go.
            for listener in listeners { listener.stop() }
        }
    }

    /// Starts reading the log after `cursor` (the cursor of the snapshot the result was
    /// fetched from), at every wake-up.
    ///
    /// The feed listened before that snapshot was taken, so every commit it did not see is
    /// notified after it: the log is read now only if a notification came before the cursor
    /// did (or the connection was lost meanwhile). Otherwise the snapshot is as good as a read
    /// that found nothing, and the next notification follows it; the controller's first
    /// records are read without a log read before them.
    func start(at cursor: ChangeLogCursor, related: RelatedKeys = RelatedKeys()) {
        database.ownWrites.add(self, under: table)
        // Joined: writes of the related table rename and reorder this feed's sections.
        if let related = read.keys.related { database.ownWrites.add(self, under: related.sections.table) }
        eventLoop.execute {
            self.cursor = cursor
            self.relatedKeys = related
            self.startHeartbeat()
            if self.readRequested || self.connection == nil {
                self.requestRead(now: true)
            } else {
                self.lastPosition = cursor.position
                self.lastReadStart = .now()
            }
        }
    }

    /// The heartbeat and the looks at these intervals from now on; the heartbeat starts again
    /// if it ran.
    func retune(pollInterval: Duration, minimumLookInterval: Duration) {
        intervals.withLockedValue { $0 = Intervals(pollInterval: pollInterval, minimumLookInterval: minimumLookInterval) }
        eventLoop.execute {
            guard self.heartbeat != nil || self.cursor != nil else { return }
            self.heartbeat?.cancel()
            self.heartbeat = nil
            self.startHeartbeat()
        }
    }

    /// The feed's intervals, from the controller's poll interval (the heartbeat beats every 20,
    /// a write of this process is confirmed by the log after 2) and its minimum look interval.
    struct Intervals {
        var heartbeat: TimeAmount?
        var settling: TimeAmount?
        var minimumLook: TimeAmount

        init(pollInterval: Duration, minimumLookInterval: Duration) {
            heartbeat = pollInterval > .zero ? PostgresChangeFeed.timeAmount(pollInterval * 20) : nil
            settling = pollInterval > .zero ? PostgresChangeFeed.timeAmount(pollInterval * 2) : nil
            minimumLook = PostgresChangeFeed.timeAmount(minimumLookInterval)
        }
    }

    /// How many reads of the log began so far (for tests).
    var logReadsBegun: Int { readsBegun.withLockedValue { $0 } }

    /// Whether the connection listens; false while it is being made again. The controller is
    /// woken when it changes.
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
        try? promise.futureResult.waitWithin(database.statementDeadline())
    }

    // MARK: - Reading

    /// Reads the log, at once or (for a notification) no sooner than `minimumLookInterval`
    /// after the last read began; a request during a read runs after it.
    func requestRead(now: Bool) {
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

    /// Sends the log read once the controller's reads leave the connection free (at once,
    /// mostly), and applies what it finds.
    private func performRead() {
        guard let connection, let cursor else { return }
        readRequested = false
        readsBegun.withLockedValue { $0 += 1 }
        let started = NIODeadline.now()
        reading = started
        lastReadStart = started
        waitingForThisRead = waitingForNextRead
        waitingForNextRead = []
        let generation = generation
        database.gate.whenOpen(on: eventLoop).flatMap { () -> EventLoopFuture<[PostgresRow]> in
            guard generation == self.generation, self.reading == started else {
                return self.eventLoop.makeFailedFuture(CancellationError())
            }
            self.awaitAnswer(since: .now())
            // Prepared only where notifications were heard: behind a transaction-mode pooler the
            // next statement may reach another server session, which never saw it prepared.
            let query = self.read.query(after: cursor, related: self.relatedKeys)
            return self.notificationsHeard.withLockedValue({ $0 }) == true
                ? PreparedLogRead.run(query, on: connection, executor: self.taskExecutor, logger: self.database.logger)
                : connection.query(query, logger: self.database.logger).map { Array($0) }
        }.whenComplete { [weak self] result in
            guard let self, generation == self.generation, self.reading == started else { return }
            self.reading = nil
            self.answered()
            switch result {
            case .success(let rows):
                self.received(rows)
            case .failure:
                self.lastPosition = nil
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
            if self.readRequested { self.requestRead(now: false) } else { self.takeWaitingNotifications() }
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
        if let last = found.lastPosition, last > cursor.position { hints.refund() }
        let next = cursor.after(found.lastPosition, snapshot: found.snapshot)
        let missed = found.pruned.map { cursor.mayHaveMissedEntries(prunedThrough: $0) } ?? false
        self.cursor = found.pruned.map { ChangeLogCursor(position: max(next.position, $0.position), inProgress: next.inProgress, unfinishedFrom: next.unfinishedFrom) } ?? next
        if read.keys.related != nil { relatedKeys.update(after: found, missed: missed || found.everyRow) }
        lastPosition = self.cursor?.position
        if missed || found.everyRow {
            early.forget(seenBy: found.snapshot)
            enqueue(.refetch(touched: Set(found.rows.map(\.id))))
        } else {
            let rows = early.filter(found.rows, transactions: found.transactions, rejoined: found.rejoined, snapshot: found.snapshot)
            guard !rows.isEmpty || !found.sections.isEmpty else { return }
            var change = CommittedChange(rows: rows, sections: found.sections)
            change.unchangedRows = found.readByForeignKey
            enqueue(.rows(change))
        }
    }

    /// Queues `change` for the controller and wakes its loop, unless `wakes` is false.
    func enqueue(_ change: TrackedChange, wakes: Bool = true) {
        pending.withLockedValue { $0.append(change) }
        if wakes { notify() }
    }

    static func timeAmount(_ duration: Duration) -> TimeAmount {
        let (seconds, attoseconds) = duration.components
        return .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}
