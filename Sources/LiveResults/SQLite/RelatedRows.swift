import GRDB

/// The related rows a change tracker knows, through a relationship (`RelatedSections`): what
/// tells a related row changed in place (a section update or move, no row to read) from one
/// inserted or deleted (whose foreign key's rows come into the result or leave it, an inner
/// join), and from which rowid a deleted row's key is known.
///
/// Used on the writer's queue only, as the tracker's state is.
struct RelatedRows {
    private var byRowID: [Int64: (key: ColumnValue, row: SectionRow)] = [:]

    /// Every related row as `query` reads it now.
    init(_ db: Database, query: KeyQuery) throws {
        for (rowID, key, row) in try query.fetchSectionRows(db) { byRowID[rowID] = (key, row) }
    }

    /// What a commit did to the related rows of `rowIDs` (nil: every related row, when rowids
    /// may have changed), read now: each changed row's new title and order, or nil for a key
    /// no longer there, by key; and the keys that appeared or went, whose rows a caller reads.
    mutating func changes(_ db: Database, query: KeyQuery, rowIDs: [Int64]?) throws
        -> (sections: [(id: ColumnValue, row: SectionRow?)], appearedOrGone: [ColumnValue]) {
        let read = try query.fetchSectionRows(db, rowIDs: rowIDs)
        var now: [Int64: (key: ColumnValue, row: SectionRow)] = [:]
        for (rowID, key, row) in read { now[rowID] = (key, row) }
        let examined = rowIDs.map(Set.init) ?? Set(byRowID.keys).union(now.keys)
        // The last word on each key: a key that went from one rowid and came to another (a
        // REPLACE) is changed, not gone.
        var gone: [ColumnValue] = []
        var present: [(id: ColumnValue, row: SectionRow)] = []
        var appearedOrGone: [ColumnValue] = []
        for rowID in examined.sorted() {
            let old = byRowID[rowID], new = now[rowID]
            if let old, let new, SQLiteOrdering.compare(old.key, new.key) == 0 {
                if old.row != new.row { present.append((new.key, new.row)) }
                continue
            }
            if let old {
                gone.append(old.key)
                appearedOrGone.append(old.key)
            }
            if let new {
                present.append((new.key, new.row))
                appearedOrGone.append(new.key)
            }
            byRowID[rowID] = new
        }
        for (rowID, new) in now { byRowID[rowID] = new }
        let presentKeys = Set(present.map { $0.id })
        let sections = gone.filter { !presentKeys.contains($0) }.map { (id: $0, row: SectionRow?.none) }
            + present.map { (id: $0.id, row: Optional($0.row)) }
        return (sections, appearedOrGone)
    }
}
