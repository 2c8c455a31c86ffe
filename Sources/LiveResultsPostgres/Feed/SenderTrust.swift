import NIOCore

/// Which server processes a feed believes when their notifications say what a commit wrote.
///
/// PostgreSQL lets any role that can connect NOTIFY any channel, with any payload, so a payload
/// alone proves nothing: a role that may only read could send one that rearranges every
/// listener's result. What the server does prove is the sender: each notification carries the
/// process id of the backend that sent it, and every role may read another backend's role in
/// `pg_stat_activity`. A payload is applied only when its sender's role may write the channel's
/// table (`has_table_privilege`): such a role could have made the change itself, and the log's
/// triggers, which run as the writer, are what send payloads. Any other notification is a hint
/// that the log may have changed (`HintBudget` bounds what hints cost).
///
/// What is learned is kept for `trustedFor`, so that one writer costs one question, not one a
/// commit; a writer still heard after `askAgainAfter` (and a spread) is asked about again in the background.
/// The bound matters because a process id is reused once its backend ends: a verdict outlives
/// its backend by at most `trustedFor`, and another role would have to be given that very id
/// within it (the kernel hands ids out in turn, so that means cycling through all of them).
struct SenderTrust {
    /// What the feed knows of one sender on one table.
    enum Verdict: Equatable {
        /// Its role may write the table: its payloads are applied.
        case writer
        /// Its role may not write the table, or its backend had gone when asked.
        case notWriter
        /// Not asked yet, or asked too long ago.
        case unknown
    }

    /// A backend process and the table whose channel it notified.
    struct Sender: Hashable {
        var pid: Int32
        var table: String
    }

    static let trustedFor = TimeAmount.seconds(60)
    /// The least time after which a writer still heard is asked about again.
    static let askAgainAfter = TimeAmount.seconds(30)
    /// Up to how much later than `askAgainAfter` this feed asks again: boards that learned of
    /// a writer at the same commit would otherwise all ask about it at the same moment, and a
    /// thousand questions at once keep the server from the commits themselves.
    static let askAgainSpread = TimeAmount.seconds(20)

    /// When this feed asks about a writer again: `askAgainAfter`, and a share of the spread of its own.
    private let askAgain = SenderTrust.askAgainAfter + .nanoseconds(Int64.random(in: 0..<SenderTrust.askAgainSpread.nanoseconds))
    /// The most senders one question names: a flood from many new connections is asked about
    /// in parts, one a `HintBudget` interval.
    static let mostPerQuestion = 256

    private var known: [Sender: (writer: Bool, at: NIODeadline)] = [:]
    /// The writer last believed, until it is due to be asked about again: a board hears one
    /// writer most often, and this spares each of its notifications the lookup in `known`.
    private var recent: (sender: Sender, until: NIODeadline)?
    /// Senders to ask about at the next question, in the order they were heard.
    private(set) var toAsk: [Sender] = []
    private var toAskSet: Set<Sender> = []

    /// What is known of `sender` at `now`; a writer asked about long enough ago is queued to be
    /// asked again, an unknown sender to be asked.
    mutating func verdict(of sender: Sender, now: NIODeadline) -> Verdict {
        if let recent, recent.sender == sender, now < recent.until { return .writer }
        guard let entry = known[sender], now - entry.at < Self.trustedFor else {
            queue(sender)
            return .unknown
        }
        if entry.writer {
            if now - entry.at >= askAgain { queue(sender) } else { recent = (sender, entry.at + askAgain) }
        }
        return entry.writer ? .writer : .notWriter
    }

    private mutating func queue(_ sender: Sender) {
        guard toAskSet.count < Self.mostPerQuestion * 4, toAskSet.insert(sender).inserted else { return }
        toAsk.append(sender)
    }

    /// Takes the senders of the next question (at most `mostPerQuestion`).
    mutating func takeQuestion() -> [Sender] {
        let question = Array(toAsk.prefix(Self.mostPerQuestion))
        toAsk.removeFirst(question.count)
        for sender in question { toAskSet.remove(sender) }
        return question
    }

    /// The answer to a question about `asked`: `writers` are those whose role may write their
    /// table; the others may not, or had gone.
    mutating func learned(asked: [Sender], writers: Set<Sender>, at now: NIODeadline) {
        recent = nil
        for sender in asked { known[sender] = (writers.contains(sender), now) }
        if known.count > Self.mostPerQuestion * 16 {
            known = known.filter { now - $0.value.at < Self.trustedFor }
        }
    }

    /// What a look at every backend of the database taught: `writers` may write their tables
    /// (the others are asked about when heard).
    mutating func learned(writers: Set<Sender>, at now: NIODeadline) {
        for sender in writers { known[sender] = (true, now) }
    }

    /// The SQL of a look at every backend of the database whose role may write one of the
    /// tables named in `$1`: what a feed that begins to listen already believes.
    static let writersSQL = """
        SELECT backend.pid, tracked.name FROM pg_stat_activity AS backend CROSS JOIN unnest($1::text[]) AS tracked(name)
        WHERE backend.datname = current_database() AND \(writes("backend.usesysid", "tracked.name"))
        """

    /// The question's SQL: the senders among `$1` (process ids) whose role may write the table
    /// named at the same place in `$2`. Each asked backend is looked up by its id, not found
    /// among all of `pg_stat_activity`'s rows: a server with thousands of connections would
    /// make a row of each for every question, and a thousand boards ask at once.
    static let questionSQL = """
        SELECT asked.pid, asked.name FROM unnest($1::int4[], $2::text[]) AS asked(pid, name)
        CROSS JOIN LATERAL pg_catalog.pg_stat_get_activity(asked.pid) AS backend
        WHERE \(writes("backend.usesysid", "asked.name"))
        """

    /// SQL that says whether the role `role` may write the table `table` (a quoted name): any
    /// change of its rows, or of some of its columns.
    private static func writes(_ role: String, _ table: String) -> String {
        "(has_table_privilege(\(role), \(table), 'INSERT, UPDATE, DELETE, TRUNCATE') OR has_any_column_privilege(\(role), \(table), 'INSERT, UPDATE'))"
    }
}

/// How many log reads notifications the feed does not believe may cause: a few at once, then
/// one an `interval`, however many arrive. A read that finds the log moved gives its read back
/// (`refund()`): the hint was true, and a true hint costs what any commit cost before payloads
/// were believed. So a flood of forged notifications costs each listener at most one read an
/// interval beyond the commits it would read anyway, while writers the feed cannot know in
/// advance (commands that connect, write and leave, each a new backend) are read at once, one
/// after another.
struct HintBudget {
    static let interval = TimeAmount.seconds(1)
    static let burst = 3

    private var tokens = HintBudget.burst
    private var refilled: NIODeadline

    init(now: NIODeadline = .now()) {
        refilled = now
    }

    /// Takes a read at `now` when the budget has one; otherwise returns when it will.
    mutating func take(now: NIODeadline) -> NIODeadline? {
        let earned = Int((now - refilled).nanoseconds / Self.interval.nanoseconds)
        if earned > 0 {
            tokens = min(Self.burst, tokens + earned)
            refilled = tokens == Self.burst ? now : refilled + Self.interval * Int64(earned)
        }
        guard tokens == 0 else {
            tokens -= 1
            return nil
        }
        return refilled + Self.interval
    }

    /// Gives back a read: one the log proved worth making.
    mutating func refund() {
        tokens = min(Self.burst, tokens + 1)
    }
}
