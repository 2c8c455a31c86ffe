import GRDB
import LiveResults

// Through a relationship (`RelatedSections`), a change must be read as one state of the
// database: its related rows and the rows whose sections they are. Read apart, a related row
// read after a later commit (gone with it) would make a section delete while the rows that
// left it in that commit are still in it, unread: the index would hold a section without its
// related row. Two things break that, and are handled here:
//
// - Another connection's entries found before ours, in our commit: their commit cannot be
//   read any more (ours is over it), so they and ours are one change, read once.
// - A commit of another connection between the read's statements (the tracker reads outside
//   a transaction, after a commit or at a poll): the log's end is read again after the last
//   statement, and when it moved, the entries that came join the change, read again whole.

extension ChangeTracker {
    /// The rowids the log names after `position` through `end`, of the table and (when the
    /// log records it) of the related table; nil when entries were pruned without a summary.
    func loggedRowIDs(_ db: Database, after position: Int64, through end: Int64) throws -> (ids: Set<RecordID>, related: Set<Int64>)? {
        guard let ids = try ChangeLog.changedRowIDs(db, table: query.tableName, after: position, through: end) else { return nil }
        guard relatedIsLogged, let table = query.related?.table else { return (ids, []) }
        guard let related = try ChangeLog.changedRowIDs(db, table: table, after: position, through: end) else { return nil }
        return (ids, related)
    }

    /// The change of the rows `ids` and the related rows `relatedIDs` (nil: every related
    /// row) read as one state, through the log's position the names cover (`logPosition`):
    /// when a commit came meanwhile, its entries join and all is read again, as a change from
    /// elsewhere. Nil when there is nothing to deliver; a reset when the log was pruned or
    /// made again meanwhile. The known related rows change only when a read is kept.
    func readRelatedChange(_ db: Database, ids: Set<RecordID>, relatedIDs: Set<Int64>?, origin: ChangeOrigin,
                           countingMatches: Bool) throws -> TrackedChange? {
        guard relatedRows != nil else { return nil }
        var (ids, relatedIDs, origin) = (ids, relatedIDs, origin)
        // Each round that finds a later commit reads more; the writers would have to commit
        // faster than one read, every time, to exhaust it.
        for _ in 0..<16 {
            let related = relatedIDs?.isEmpty == true ? RelatedRows.Changes.none
                : try relatedRows!.changes(db, query: query, rowIDs: relatedIDs.map { $0.sorted() })
            let byForeignKey = try query.rowIDs(db, withForeignKeyIn: related.appearedOrGone)
            let all = ids.union(byForeignKey)
            let rows = all.isEmpty ? [] : try query.fetchKeys(db, ids: all.sorted())
            let count = countingMatches ? try query.fetchCount(db) : nil
            if let end = logPosition {
                let now = try ChangeLog.position(db)
                if now != end {
                    guard now > end, let later = try loggedRowIDs(db, after: end, through: now) else {
                        logPosition = now
                        resyncRelatedRows(db)
                        return .reset
                    }
                    ids.formUnion(later.ids)
                    relatedIDs?.formUnion(later.related)
                    logPosition = now
                    origin = .elsewhere
                    continue
                }
            }
            relatedRows?.take(related)
            guard !rows.isEmpty || !related.sections.isEmpty else { return nil }
            var change = CommittedChange(rows: rows, sections: related.sections, position: logPosition, origin: origin,
                                         check: count.map(MatchingRowCount.init))
            change.unchangedRows = Set(byForeignKey).subtracting(ids)
            return .rows(change)
        }
        resyncRelatedRows(db)
        return .refetch(touched: ids, origin: origin)
    }
}
