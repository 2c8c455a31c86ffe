import LiveResults

/// The commits of this process that a change feed applied from the writes' own answers
/// (`PostgresWriter.write`), before its log reads reached them, and the rules that keep the
/// log's later reports of them from undoing or repeating them.
///
/// A write hands over the rows it committed, with their keys as it wrote them, and its
/// transaction. Later, the log brings the same transaction's entries, and entries of other
/// transactions with the keys rows have at the read. Three rules keep every batch equal to a
/// fresh fetch after the last commit the feed has heard of:
///
/// 1. A write whose transaction the feed's cursor has already read is dropped: that read
///    found the rows' keys at or after the write, maybe newer.
/// 2. A log read skips a row that only entries of early-applied writes named (it was
///    reported already, with the key the read finds); a row another transaction named too is
///    reported with the key read, and so is a row a joined read read again by foreign key
///    (its related row appeared or went since: the key it was applied with may be stale).
/// 3. A log read whose snapshot has not seen an early-applied write finish read keys older
///    than that write's: the rows that write wrote are skipped from the read (the newer keys
///    are applied already; any later change of them comes with entries of its own).
///
/// Two writes of this process that may have raced on a row (the second was sent before the
/// first was handed over) have no known order: the second is left to the log.
///
/// Commits applied from their notifications (`NotifiedCommit`) are kept here too, by the same
/// rules: the log brings their entries again at the next read. Notifications come in commit
/// order, so one that comes while a write applied from its answer has not been notified yet
/// is of a transaction that committed before that write: the write's rows are skipped from it
/// (rule 3, for notifications).
///
/// A write is forgotten once a read's snapshot has seen its transaction finish (the cursor
/// then never reads its entries again). Kept on the feed's event loop, so hand-overs and
/// reads are applied in one order.
struct EarlyWrites {
    private struct Written {
        var ids: Set<RecordID>
        /// Its place among the accepted hand-overs, counted from 1 (0: applied from its notification).
        var sequence: Int
        /// Whether its notification was applied (so later notifications are of later commits).
        var notified = false
    }

    /// The accepted writes whose transactions no read has seen finish, by transaction.
    private var written: [UInt64: Written] = [:]
    /// How many of them were handed over and not notified yet (most often none: a
    /// notification then costs no walk over the others).
    private var handedOverWaiting = 0

    /// Whether the feed applies the rows `ids` of transaction `xid` now, recording them as
    /// applied if so. `sequence`: this hand-over's place if accepted; `sentAfter`: how many
    /// hand-overs had been accepted when the write was sent; `cursor`: the feed's cursor.
    mutating func accept(xid: UInt64, ids: Set<RecordID>, sequence: Int, sentAfter: Int, cursor: ChangeLogCursor) -> Bool {
        guard !cursor.hasRead(transaction: xid), written[xid] == nil else { return false }
        let raced = written.values.contains { $0.sequence > sentAfter && !$0.ids.isDisjoint(with: ids) }
        guard !raced else { return false }
        written[xid] = Written(ids: ids, sequence: sequence)
        handedOverWaiting += 1
        return true
    }

    /// Whether the rows of transaction `xid` were applied from its write and no read has
    /// seen it finish since.
    func isApplied(_ xid: UInt64) -> Bool { written[xid] != nil }

    /// Whether transaction `xid` is a write of this process whose rows were handed over.
    func isHandedOver(_ xid: UInt64) -> Bool { (written[xid]?.sequence ?? 0) > 0 }

    /// Whether any write is waiting for the log.
    var isEmpty: Bool { written.isEmpty }

    /// How many transactions wait for the log to pass them.
    var count: Int { written.count }

    /// Of the rows a notified commit of transaction `xid` left (`NotifiedCommit`), those the
    /// feed reports now, recording the commit as applied: not those its own write handed over
    /// already, nor those of writes handed over whose notifications have not come (they
    /// committed after it, with newer keys).
    mutating func applyNotified(xid: UInt64, rows: [(id: RecordID, key: RowKey?)]) -> [(id: RecordID, key: RowKey?)] {
        var newer = Set<RecordID>()
        if handedOverWaiting > 0 {
            for (other, write) in written where other != xid && !write.notified { newer.formUnion(write.ids) }
        }
        var commit = written[xid] ?? Written(ids: [], sequence: 0)
        if commit.sequence > 0 && !commit.notified { handedOverWaiting -= 1 }
        // A transaction notified before (its deferred trigger fired early, SET CONSTRAINTS
        // IMMEDIATE) left these rows since: all of them count.
        let handedOver = commit.notified ? [] : commit.ids
        // Most often no write of this process is waiting: every row is kept, as it is.
        let kept = handedOver.isEmpty && newer.isEmpty ? rows : rows.filter { !handedOver.contains($0.id) && !newer.contains($0.id) }
        for row in rows { commit.ids.insert(row.id) }
        commit.notified = true
        written[xid] = commit
        return kept
    }

    /// Of the rows one log read found (`transactions`: the transactions whose entries named
    /// each row; `rejoined`: the rows a joined read read by foreign key), those the feed
    /// reports; forgets the writes `snapshot` (the read's) saw finish.
    mutating func filter(_ rows: [(id: RecordID, key: RowKey?)], transactions: [RecordID: [UInt64]], rejoined: Set<RecordID> = [],
                         snapshot: ChangeLogSnapshot) -> [(id: RecordID, key: RowKey?)] {
        guard !written.isEmpty else { return rows }
        let all = written
        forget(seenBy: snapshot)
        let unseen = written
        let kept = rows.filter { row in
            if unseen.values.contains(where: { $0.ids.contains(row.id) }) { return false }
            if rejoined.contains(row.id) { return true }
            let namedBy = transactions[row.id] ?? []
            return namedBy.isEmpty || !namedBy.allSatisfy { all[$0]?.ids.contains(row.id) == true }
        }
        return kept
    }

    /// Forgets the writes a read's `snapshot` saw finish (a read that refetches instead).
    mutating func forget(seenBy snapshot: ChangeLogSnapshot) {
        written = written.filter { !snapshot.hasFinished($0.key) }
        handedOverWaiting = written.values.count { $0.sequence > 0 && !$0.notified }
    }
}
