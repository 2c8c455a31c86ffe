import NIOCore
import PostgresNIO

/// A notification as the feed's connection heard it: its text, the backend process that sent
/// it, and the table whose channel it came on (the channel, not the text, says which table:
/// the text is the sender's to choose).
struct HeardNotification: Sendable {
    var text: String
    var sender: Int32
    var table: String

    init(_ notification: PostgresMessage.NotificationResponse, table: String) {
        (text, sender, self.table) = (notification.payload, notification.backendPID, table)
    }

    init(text: String, sender: Int32, table: String) {
        (self.text, self.sender, self.table) = (text, sender, table)
    }
}

// Notifications the feed does not take at its word (see `SenderTrust`): one of a sender not
// known yet waits for the question about it (one round trip, far cheaper for the server than a
// read of the log, which a thousand boards would all make at once for a new writer's first
// commit); one of a sender that may not write is only a hint that the log may have changed,
// read within `HintBudget`. Questions are asked one at a time, a few at once and then one an
// interval, unless they find writers.
extension PostgresChangeFeed {
    /// The most notifications held for a question: past it, the others are hints (a flood).
    static let mostAwaitingVerdict = 64

    /// Holds `heard` until the question about its sender (or one before it) is answered.
    func awaitVerdict(_ heard: HeardNotification) {
        guard awaitingVerdict.count < Self.mostAwaitingVerdict else { return hinted(heard.text) }
        count(\.asked)
        awaitingVerdict.append(heard)
    }

    /// Takes the held notifications again, in order, once a question was answered; those of a
    /// sender still not known (a failed question) as hints.
    private func takeAwaitingVerdict(failed: Bool) {
        let held = awaitingVerdict
        awaitingVerdict = []
        for heard in held { notified(heard, unknownIsHint: failed) }
    }

    /// A notification whose sender is not known to be a writer: the log is read, as for a
    /// notification that says nothing, within the budget. Its text is not looked at.
    func hinted(_ text: String) {
        count(\.untrusted)
        readWithinBudget()
    }

    /// Reads the log for a hint, unless a read is owed already (which covers it); past the
    /// budget, once, when it allows.
    private func readWithinBudget() {
        guard !readRequested, !hintedReadScheduled else { return }
        if let later = hints.take(now: .now()) {
            count(\.deferred)
            hintedReadScheduled = true
            eventLoop.scheduleTask(deadline: later) { [weak self] in
                guard let self else { return }
                self.hintedReadScheduled = false
                self.readWithinBudget()
            }
            return
        }
        lastPosition = nil
        requestRead(now: false)
    }

    /// Asks the server which senders heard since the last question are writers, unless a
    /// question is out; within the questions' budget (an answer that finds a writer gives its
    /// question back, as a hint's read that finds the log moved does).
    ///
    /// A question put off to the budget holds nothing back: what waited for one is read at
    /// once instead, as hints, and so is every notification of an unknown sender until it goes
    /// (commands that connect, write and leave are gone before anyone asks, so no answer finds
    /// a writer to give a question back, and their taps would otherwise wait a second each).
    func askAboutSenders() {
        guard !asking, connection != nil else { return }
        asking = true
        if let later = questions.take(now: .now()) {
            questionPutOff = true
            if !awaitingVerdict.isEmpty { takeAwaitingVerdict(failed: true) }
            eventLoop.scheduleTask(deadline: later) { [weak self] in
                self?.questionPutOff = false
                self?.sendQuestion()
            }
            return
        }
        sendQuestion()
    }

    /// Learns which backends of the database are writers as the feed begins to listen on
    /// `connection`, so that the boards and programs already open are believed from their
    /// first notification. Succeeds once it knows, or once the server refused it (a failed
    /// look teaches nothing: its senders are asked about when heard); fails only when the
    /// connection closed first.
    func lookForWriters(on connection: PostgresConnection) -> EventLoopFuture<Void> {
        let tables = [table] + (read.keys.related.map { [$0.sections.table] } ?? [])
        var binds = PostgresBindings()
        binds.append(tables.map { PostgresSQL.identifier($0) })
        let asked = NIODeadline.now()
        return writers(SenderTrust.writersSQL, binds, among: tables, on: connection).map { [weak self] writers in
            self?.trust.learned(writers: writers, at: asked)
        }.flatMapError { [eventLoop] error in
            connection.isClosed ? eventLoop.makeFailedFuture(error) : eventLoop.makeSucceededVoidFuture()
        }
    }

    private func sendQuestion() {
        let question = trust.takeQuestion()
        guard let connection, !question.isEmpty else {
            asking = false
            // Nothing to ask (the senders held for were not queued: too many at once), or no
            // connection to ask on: what waited is a hint.
            if !awaitingVerdict.isEmpty { takeAwaitingVerdict(failed: true) }
            return
        }
        var binds = PostgresBindings()
        binds.append(question.map(\.pid))
        binds.append(question.map { PostgresSQL.identifier($0.table) })
        // 0 is no role's oid: the sender's backend is looked up.
        binds.append(question.map { trust.steadyRole(of: $0) ?? 0 })
        let tables = Array(Set(question.map(\.table)))
        writers(SenderTrust.questionSQL, binds, among: tables, on: connection).whenComplete { [weak self] result in
            guard let self else { return }
            self.asking = false
            // A failed question teaches nothing: its senders are asked about when next heard.
            if case .success(let writers) = result {
                self.trust.learned(asked: question, writers: writers, at: .now())
                if !writers.isEmpty { self.questions.refund() }
            }
            let failed = if case .failure = result { true } else { false }
            self.takeAwaitingVerdict(failed: failed)
            if !self.trust.toAsk.isEmpty { self.askAboutSenders() }
        }
    }

    /// The writers `sql` finds (rows of a backend's pid, a table's quoted name, one of
    /// `tables`, and the backend's role), once the controller's reads leave the connection
    /// free; on the feed's loop.
    private func writers(_ sql: String, _ binds: PostgresBindings, among tables: [String],
                         on connection: PostgresConnection) -> EventLoopFuture<[SenderTrust.Sender: Int64]> {
        let quoted = Dictionary(tables.map { (PostgresSQL.identifier($0), $0) }, uniquingKeysWith: { first, _ in first })
        let logger = database.logger
        return database.gate.whenOpen(on: eventLoop).flatMap {
            connection.query(PostgresQuery(unsafeSQL: sql, binds: binds), logger: logger)
        }.flatMapThrowing { result -> [SenderTrust.Sender: Int64] in
            var writers: [SenderTrust.Sender: Int64] = [:]
            for row in result {
                let (pid, name, role) = try row.decode((Int32, String, Int64).self)
                if let table = quoted[name] { writers[SenderTrust.Sender(pid: pid, table: table)] = role }
            }
            return writers
        }.hop(to: eventLoop)
    }
}
