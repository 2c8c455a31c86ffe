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
///    reported with the key read.
/// 3. A log read whose snapshot has not seen an early-applied write finish read keys older
///    than that write's: the rows that write wrote are skipped from the read (the newer keys
///    are applied already; any later change of them comes with entries of its own).
///
/// Two writes of this process that may have raced on a row (the second was sent before the
/// first was handed over) have no known order: the second is left to the log.
///
/// A write is forgotten once a read's snapshot has seen its transaction finish (the cursor
/// then never reads its entries again). Kept on the feed's event loop, so hand-overs and
/// reads are applied in one order.
struct EarlyWrites {
    private struct Written {
        var ids: Set<RecordID>
        /// Its place among the accepted hand-overs, counted from 1.
        var sequence: Int
    }

    /// The accepted writes whose transactions no read has seen finish, by transaction.
    private var written: [UInt64: Written] = [:]

    /// Whether the feed applies the rows `ids` of transaction `xid` now, recording them as
    /// applied if so. `sequence`: this hand-over's place if accepted; `sentAfter`: how many
    /// hand-overs had been accepted when the write was sent; `cursor`: the feed's cursor.
    mutating func accept(xid: UInt64, ids: Set<RecordID>, sequence: Int, sentAfter: Int, cursor: ChangeLogCursor) -> Bool {
        guard !cursor.hasRead(transaction: xid), written[xid] == nil else { return false }
        let raced = written.values.contains { $0.sequence > sentAfter && !$0.ids.isDisjoint(with: ids) }
        guard !raced else { return false }
        written[xid] = Written(ids: ids, sequence: sequence)
        return true
    }

    /// Whether the rows of transaction `xid` were applied from its write and no read has
    /// seen it finish since.
    func isApplied(_ xid: UInt64) -> Bool { written[xid] != nil }

    /// Whether any write is waiting for the log.
    var isEmpty: Bool { written.isEmpty }

    /// Of the rows one log read found (`transactions`: the transactions whose entries named
    /// each row), those the feed reports; forgets the writes `snapshot` (the read's) saw finish.
    mutating func filter(_ rows: [(id: RecordID, key: RowKey?)], transactions: [RecordID: [UInt64]],
                         snapshot: ChangeLogSnapshot) -> [(id: RecordID, key: RowKey?)] {
        guard !written.isEmpty else { return rows }
        let all = written
        forget(seenBy: snapshot)
        let unseen = written
        let kept = rows.filter { row in
            if unseen.values.contains(where: { $0.ids.contains(row.id) }) { return false }
            let namedBy = transactions[row.id] ?? []
            return namedBy.isEmpty || !namedBy.allSatisfy { all[$0]?.ids.contains(row.id) == true }
        }
        return kept
    }

    /// Forgets the writes a read's `snapshot` saw finish (a read that refetches instead).
    mutating func forget(seenBy snapshot: ChangeLogSnapshot) {
        written = written.filter { !snapshot.hasFinished($0.key) }
    }
}
