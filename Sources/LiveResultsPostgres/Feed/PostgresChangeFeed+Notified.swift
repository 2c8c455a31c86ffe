import LiveResults
import NIOCore

/// What became of a feed's notifications, counted (for tests and the benchmark).
package struct NotifiedOutcomes: Equatable, Sendable, CustomStringConvertible {
    /// Applied from the notification, without a read.
    package var applied = 0
    /// Of a transaction the cursor had read already: nothing to do.
    package var alreadyRead = 0
    /// Read from the log: its positions did not follow the last one applied or read (a commit
    /// not heard of, a transaction that rolled back, one that was running at the last read).
    package var gap = 0
    /// Read from the log: the transaction wrote more than one notification holds.
    package var cut = 0
    /// Read from the log: no entries to apply (a bare transaction id: TRUNCATE, or a log
    /// installed by an older version), or entries this controller cannot use (a predicate,
    /// a key column the notification lacks or cannot state exactly).
    package var unusable = 0
    /// Joined, read from the log: a row's foreign key names a related row the feed did not know
    /// at its cursor (one the transaction may have made), or the feed knows none (the first
    /// read after a missed log brings them back).
    package var unknownRelated = 0
    /// Joined, read from the log: a notification of the related table (a section renamed,
    /// moved, made or gone), or of a transaction that wrote another table too (which may be
    /// the related one, changed after its rows).
    package var relatedChange = 0
    /// Read from the log: the connection's probe had not come back (notifications may not
    /// all arrive, as behind a pooler), or the connection was new (no read since it listens).
    package var notFollowing = 0
    /// Held while a read was owed, then taken as any other once it was done.
    package var waited = 0
    /// Not believed: its sender's role may not write the table, or was not known yet
    /// (`SenderTrust`). A hint to read the log, within `HintBudget`.
    package var untrusted = 0
    /// Of `untrusted`: read later than heard, the budget spent (`HintBudget`).
    package var deferred = 0
    /// Held until a question said whether its sender (one not known yet) is a writer, then
    /// taken as any other (with those that came after it, in order).
    package var asked = 0

    package init() {}

    /// The counts of `self` and `other` together.
    package func adding(_ other: NotifiedOutcomes) -> NotifiedOutcomes {
        var sum = self
        sum.applied += other.applied
        sum.alreadyRead += other.alreadyRead
        sum.gap += other.gap
        sum.cut += other.cut
        sum.unusable += other.unusable
        sum.unknownRelated += other.unknownRelated
        sum.relatedChange += other.relatedChange
        sum.notFollowing += other.notFollowing
        sum.waited += other.waited
        sum.untrusted += other.untrusted
        sum.deferred += other.deferred
        sum.asked += other.asked
        return sum
    }

    package var description: String {
        "applied \(applied), already read \(alreadyRead), gap \(gap), cut \(cut), unusable \(unusable), unknown related \(unknownRelated), related change \(relatedChange), not following \(notFollowing), waited \(waited), untrusted \(untrusted), deferred \(deferred), asked \(asked)"
    }
}

extension PostgresReader {
    /// What became of the notifications of this reader's feeds over `table`, together.
    package func notifiedOutcomes(under table: String) -> NotifiedOutcomes {
        ownWrites.listeners(under: table).reduce(NotifiedOutcomes()) { $0.adding($1.notifiedOutcomes.withLockedValue { $0 }) }
    }

    /// How many log reads the feeds of this reader over `table` began.
    package func logReadsBegun(under table: String) -> Int {
        ownWrites.listeners(under: table).reduce(0) { $0 + $1.logReadsBegun }
    }
}

// Notifications that carry their commit (`NotifiedCommit`), applied without reading the log.
//
// Why a notification that follows the cursor can be applied as it is: PostgreSQL queues a
// transaction's notifications at its commit, under a lock that makes every notifying
// transaction queue them in commit order, and only after its commit is visible to new
// snapshots; a listener receives the queue in that order. Every transaction that writes the
// table notifies its channel (the log's deferred trigger; TRUNCATE's own). So once a read's
// snapshot was taken, the transactions it did not see finish (the cursor's `hasRead` says
// which) arrive one by one in commit order on the connection that listened before that read,
// each with every entry it wrote, and applying each in turn leaves each row as the last
// commit that wrote it left it (a row's writers commit in the order they wrote, since each
// waits for the previous one's row lock).
//
// What the feed checks before applying one: its connection listens and its probe came back,
// no read is owed (notifications that come meanwhile wait for it, since the read may or may
// not see them), the cursor has not read the transaction, the notification is whole and the
// controller can use it, and its positions are the next ones after the last position read
// or applied (a gap is a transaction still running at the last read, one that rolled back, a
// notification lost, another table's entries: the log then says which). Anything else
// becomes a log read, exactly as before notifications carried anything. A commit applied
// this way is kept in `EarlyWrites`, so that the next read does not deliver it again.
extension PostgresChangeFeed {
    /// How many commits may be applied from notifications before a read moves the cursor past
    /// them: the log keeps far more entries than that (pruning would otherwise overtake a
    /// cursor that is not read for long), and what is kept stays small. Drawn for each feed
    /// from a range, so that a thousand viewers of one server do not all read at the same tap.
    static func notifiedBeforeRead() -> Int { Int.random(in: 192...320) }

    /// A notification on the table's channel (or the related table's). Only a writer's is
    /// taken at its word (`SenderTrust`); one of a sender not known yet waits for the question
    /// about it, with every notification after it; any other is a hint to read the log
    /// (`+Trust`). `unknownIsHint`: a sender still not known is not waited for again (its
    /// question failed).
    func notified(_ heard: HeardNotification, unknownIsHint: Bool = false) {
        let now = NIODeadline.now()
        // Any notification shows the connection alive, as a ping's answer would: the
        // heartbeat pings only once they stop coming (`beat`).
        lastPing = now
        let sender = SenderTrust.Sender(pid: heard.sender, table: heard.table)
        let verdict = trust.verdict(of: sender, now: now)
        if !trust.toAsk.isEmpty { askAboutSenders() }
        if !awaitingVerdict.isEmpty || (verdict == .unknown && !unknownIsHint && !questionPutOff) { return awaitVerdict(heard) }
        guard verdict == .writer else { return hinted(heard.text) }
        guard writesInFlight.withLockedValue({ $0 }) == 0 else {
            heldNotifications.append(heard)
            return
        }
        let commit = NotifiedCommit(text: heard.text)
        let transaction = commit?.xid ?? UInt64(heard.text)
        guard let cursor else { return requestRead(now: false) }
        if let transaction, cursor.hasRead(transaction: transaction) {
            return count(\.alreadyRead)
        }
        if reading != nil || readRequested {
            count(\.waited)
            waitingNotifications.append(heard)
            return
        }
        let outcome = commit.map(apply) ?? \.unusable
        count(outcome)
        guard outcome != \.applied else { return }
        // Nothing after a commit the feed did not apply follows it: every notification waits
        // for the read.
        lastPosition = nil
        readAfter(notificationOf: transaction)
    }

    /// Takes the notifications that waited for a read, in order, now that none is owed.
    func takeWaitingNotifications() {
        let waiting = waitingNotifications
        waitingNotifications = []
        for heard in waiting { notified(heard) }
    }

    /// Applies `commit` when it follows what the feed has read; returns what became of it.
    private func apply(_ commit: NotifiedCommit) -> WritableKeyPath<NotifiedOutcomes, Int> {
        guard notificationsHeard.withLockedValue({ $0 }) == true, let last = lastPosition else { return \.notFollowing }
        if commit.isCut { return \.cut }
        if read.keys.related != nil, commit.table != table || commit.wroteOtherTables { return \.relatedChange }
        let places = notifiedPlaces(of: commit.columns)
        guard var rows = read.keys.rows(from: commit, places: places) else { return \.unusable }
        if read.keys.related != nil {
            guard let joined = joinedRows(rows) else { return \.unknownRelated }
            rows = joined
        }
        guard !commit.entries.isEmpty, commit.entries.indices.allSatisfy({ commit.entries[$0].position == last + 1 + Int64($0) }) else { return \.gap }
        lastPosition = commit.entries.last?.position
        let own = early.isHandedOver(commit.xid)
        let kept = early.applyNotified(xid: commit.xid, rows: rows)
        if !kept.isEmpty {
            var change = CommittedChange(rows: kept, origin: own ? .ownWrites : .elsewhere)
            change.records = read.keys.records(from: commit, ids: kept.map(\.id), places: places)
            change.notes = commit.note.map { [$0] }
            enqueue(.rows(change), wakes: !own || notifiesOwnWrites())
        }
        if early.count >= notifiedBeforeRead { requestRead(now: false) }
        return \.applied
    }

    /// Where notifications with `columns` hold the key and a record's cells, worked out again
    /// only when the columns differ from the last notification's (the log was installed again).
    private func notifiedPlaces(of columns: [String]) -> NotifiedColumns {
        if let known = notifiedColumns, known.columns == columns { return known }
        let places = read.keys.places(of: columns)
        notifiedColumns = places
        return places
    }

    /// Joined: the rows of a main-table notification that follows the cursor, each in the
    /// section of the related row its foreign key names (its key's section, a key the
    /// controller's index has the title and order of), or out of the result where it names
    /// none (NULL); nil when one names a related row not known at the cursor. Following the
    /// cursor, and writing no other table, the commit found the related table as the cursor
    /// knows it: a known key is a row of the join, an unknown one is not, unless the commit
    /// made it, which the log tells.
    private func joinedRows(_ rows: [(id: RecordID, key: RowKey?)]) -> [(id: RecordID, key: RowKey?)]? {
        guard relatedKeys.known else { return nil }
        var joined: [(id: RecordID, key: RowKey?)] = []
        joined.reserveCapacity(rows.count)
        for (id, key) in rows {
            guard let key else {
                joined.append((id, nil))
                continue
            }
            switch key.section {
            case .null: joined.append((id, nil))
            case .integer(let related) where relatedKeys.keys.contains(related): joined.append((id, key))
            default: return nil
            }
        }
        return joined
    }

    func count(_ outcome: WritableKeyPath<NotifiedOutcomes, Int>) {
        notifiedOutcomes.withLockedValue { $0[keyPath: outcome] += 1 }
    }
}
