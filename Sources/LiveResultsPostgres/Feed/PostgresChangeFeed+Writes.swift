import LiveResults
import NIOCore

// Writes of this process through `PostgresWriter.write`, which hand their rows over at once
// (`endWrite`); `EarlyWrites` keeps the log from undoing or repeating them. Their
// notifications (which name the writing transaction) then ask for no read at once: the log
// is read a little later, or with the next other notification, whichever comes first.
extension PostgresChangeFeed {
    /// The controller's key query: what a write returns for this feed.
    var keys: PostgresKeyQuery.Statements { read.keys }

    /// The related part of the key query when `table` is the related table of the feed's
    /// sections (`write` changes sections, not rows); nil otherwise.
    func relatedWritten(byTable table: String) -> PostgresRelatedQuery? {
        guard let related = keys.related, related.sections.table == table, table != self.table else { return nil }
        return related
    }

    func relatedWritten(by write: PostgresWrite) -> PostgresRelatedQuery? {
        relatedWritten(byTable: write.table)
    }

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
    func endWrite(_ written: (xid: UInt64, rows: [(id: RecordID, key: RowKey?)], sections: [(id: ColumnValue, row: SectionRow?)], records: [RecordID: RecordColumns], unchanged: Set<RecordID>)?,
                  sentAfter: Int) {
        let done = eventLoop.submit {
            let stillInFlight = self.writesInFlight.withLockedValue { count in
                count -= 1
                return count
            }
            if let written, self.mayHandOver(written), let cursor = self.cursor {
                let sequence = self.handOffs.withLockedValue { $0 } + 1
                if self.early.accept(xid: written.xid, ids: Set(written.rows.map(\.id)), sequence: sequence, sentAfter: sentAfter, cursor: cursor) {
                    self.handOffs.withLockedValue { $0 = sequence }
                    for case (let id, let row?) in written.sections {
                        if case .integer(let key) = id { self.relatedKeys.applied(key, row) }
                    }
                    var change = CommittedChange(rows: written.rows, sections: written.sections, origin: .ownWrites)
                    change.records = written.records
                    change.unchangedRows = written.unchanged
                    self.enqueue(.rows(change), wakes: self.notifiesOwnWrites())
                }
            }
            if stillInFlight == 0 {
                let held = self.heldNotifications
                self.heldNotifications = []
                for heard in held { self.notified(heard) }
            }
        }
        try? done.waitWithin(database.statementDeadline())
    }

    /// Whether a write's answer may be applied before the log brings it. Joined, its sections
    /// must be known at the cursor: a write of the related table must change related rows in
    /// place (one that appeared or went changes which rows the join keeps, which the log's read
    /// finds by foreign key), and a write of rows must find their sections as the result has
    /// them (else a commit the feed has not applied changed them, and the log brings both).
    private func mayHandOver(_ written: (xid: UInt64, rows: [(id: RecordID, key: RowKey?)], sections: [(id: ColumnValue, row: SectionRow?)], records: [RecordID: RecordColumns], unchanged: Set<RecordID>)) -> Bool {
        written.sections.allSatisfy { section in
            guard let row = section.row, case .integer(let key) = section.id, relatedKeys.known else { return false }
            return written.rows.isEmpty ? relatedKeys.keys.contains(key) : relatedKeys.knows(key, as: row)
        }
    }

    /// A notification of `transaction` (nil: it named none) that the feed cannot apply by
    /// itself. A write of this process whose rows were handed over needs no read now; the log
    /// is still read a little later (`settlingDelay`, two poll intervals), for rows of that
    /// transaction the write did not return (another statement of it, or a WITH that changed
    /// the table too) and so that the cursor moves on.
    func readAfter(notificationOf transaction: UInt64?) {
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
}
