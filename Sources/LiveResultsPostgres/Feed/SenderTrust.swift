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
///
/// Asking again about a writer heard steadily is cheap: when the feed heard it across the
/// moment of its last answer with no gap of `heardWithin` or more, its backend is the one that
/// answer described (in so short a gap the kernel cannot have handed out every other id), so
/// the question only checks that the role it learned may still write, with no look at the
/// server's backends, which costs in proportion to them all (a thousand boards asking about
/// one busy writer each half minute).
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
    /// The longest gap between two notifications of a sender that leaves no room for its
    /// backend to have ended and its process id to have been given to another.
    static let heardWithin = TimeAmount.seconds(1)
    /// The most senders one question names: a flood from many new connections is asked about
    /// in parts, one a `HintBudget` interval.
    static let mostPerQuestion = 256

    /// When a sender was last heard, and since when without a gap of `heardWithin` or more.
    struct Hearing {
        var last: NIODeadline
        var steadySince: NIODeadline

        init(at now: NIODeadline) {
            (last, steadySince) = (now, now)
        }

        mutating func heard(at now: NIODeadline) {
            if now - last >= SenderTrust.heardWithin { steadySince = now }
            last = now
        }
    }

    /// What the feed knows of one sender: the last answer about it (whether its role, `role`,
    /// may write, and when the server said so) and when it was heard.
    private struct Knowledge {
        var writer = false
        /// When the server answered (nil: never, the sender was only heard).
        var at: NIODeadline?
        var role: Int64?
        var hearing: Hearing?
    }

    private var known: [Sender: Knowledge] = [:]
    /// The writer last believed, until it is due to be asked about again: a board hears one
    /// writer most often, and this spares each of its notifications the lookup in `known`.
    private var recent: (sender: Sender, until: NIODeadline, hearing: Hearing)?
    /// Senders to ask about at the next question, in the order they were heard.
    private(set) var toAsk: [Sender] = []
    private var toAskSet: Set<Sender> = []

    /// What is known of `sender` at `now`; a writer asked about long enough ago is queued to be
    /// asked again, an unknown sender to be asked.
    mutating func verdict(of sender: Sender, now: NIODeadline) -> Verdict {
        if let recent, recent.sender == sender, now < recent.until {
            self.recent?.hearing.heard(at: now)
            return .writer
        }
        forgetRecent()
        var entry = known[sender] ?? Knowledge()
        if entry.hearing == nil { entry.hearing = Hearing(at: now) } else { entry.hearing?.heard(at: now) }
        known[sender] = entry
        guard let at = entry.at, now - at < Self.trustedFor else {
            queue(sender)
            return .unknown
        }
        guard entry.writer, let hearing = entry.hearing else { return .notWriter }
        if now - at >= askAgain { queue(sender) } else { recent = (sender, at + askAgain, hearing) }
        return .writer
    }

    /// The role of `sender`, when the feed heard it steadily across its last answer up to its
    /// last notification, so that the backend is still the one answered about; nil otherwise.
    func steadyRole(of sender: Sender) -> Int64? {
        guard var entry = known[sender], entry.writer, let role = entry.role, let at = entry.at else { return nil }
        if let recent, recent.sender == sender { entry.hearing = recent.hearing }
        guard let hearing = entry.hearing, hearing.steadySince <= at else { return nil }
        return role
    }

    /// Keeps what the fast path heard of the writer last believed with the other verdicts.
    private mutating func forgetRecent() {
        guard let recent else { return }
        known[recent.sender]?.hearing = recent.hearing
        self.recent = nil
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

    /// The answer to a question about `asked`: `writers` are those whose role (the value) may
    /// write their table; the others may not, or had gone.
    mutating func learned(asked: [Sender], writers: [Sender: Int64], at now: NIODeadline) {
        forgetRecent()
        for sender in asked {
            known[sender, default: Knowledge()].writer = writers[sender] != nil
            known[sender]?.at = now
            known[sender]?.role = writers[sender]
        }
        if known.count > Self.mostPerQuestion * 16 {
            known = known.filter { entry in entry.value.at.map { now - $0 < Self.trustedFor } ?? false }
        }
    }

    /// What a look at every backend of the database taught: `writers` may write their tables
    /// (the others are asked about when heard).
    mutating func learned(writers: [Sender: Int64], at now: NIODeadline) {
        for (sender, role) in writers {
            known[sender, default: Knowledge()].writer = true
            known[sender]?.at = now
            known[sender]?.role = role
        }
    }

    /// The SQL of a look at every backend of the database whose role may write one of the
    /// tables named in `$1`: what a feed that begins to listen already believes.
    static let writersSQL = """
        SELECT backend.pid, tracked.name, backend.usesysid::int8 FROM pg_stat_activity AS backend CROSS JOIN unnest($1::text[]) AS tracked(name)
        WHERE backend.datname = current_database() AND \(writes("backend.usesysid", "tracked.name"))
        """

    /// The question's SQL: the senders among `$1` (process ids) whose role may write the table
    /// named at the same place in `$2`, with that role. Where `$3` gives a sender's role (not 0:
    /// a writer heard steadily, `steadyRole`), only that role's privileges are checked; the
    /// others' backends are each looked up by process id, not found among all of
    /// `pg_stat_activity`'s rows. Either look-up reads every backend's status, which costs in
    /// proportion to the server's connections, and a thousand boards ask at once: the look-up
    /// sits behind `coalesce`, which evaluates it only where no role is given (`OFFSET 0`
    /// keeps the planner from copying it into the condition).
    static let questionSQL = """
        SELECT asked.pid, asked.name, asked.role FROM (
            SELECT given.pid, given.name, coalesce(nullif(given.role, 0),
                (SELECT backend.usesysid::int8 FROM pg_catalog.pg_stat_get_activity(given.pid) AS backend)) AS role
            FROM unnest($1::int4[], $2::text[], $3::int8[]) AS given(pid, name, role) OFFSET 0
        ) AS asked
        WHERE \(writes("asked.role::oid", "asked.name"))
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
