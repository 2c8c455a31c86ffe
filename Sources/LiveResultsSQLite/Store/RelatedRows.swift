import GRDB
import LiveResults

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

    /// What a commit did to the related rows, read now, and what the known rows become once
    /// the change is taken (`take`): nothing is changed until then, so a read that must be done
    /// again (a commit came between its statements) starts from the same known rows.
    struct Changes {
        /// Each changed row's new title and order, or nil for a key no longer there, by key.
        var sections: [(id: ColumnValue, row: SectionRow?)]
        /// The keys that appeared or went, whose rows a caller reads.
        var appearedOrGone: [ColumnValue]
        fileprivate var updates: [(rowID: Int64, row: (key: ColumnValue, row: SectionRow)?)]

        /// No related row read.
        static let none = Changes(sections: [], appearedOrGone: [], updates: [])
    }

    /// What a commit did to the related rows of `rowIDs` (nil: every related row, when rowids
    /// may have changed), read now.
    func changes(_ db: Database, query: KeyQuery, rowIDs: [Int64]?) throws -> Changes {
        let read = try query.fetchSectionRows(db, rowIDs: rowIDs)
        var now: [Int64: (key: ColumnValue, row: SectionRow)] = [:]
        for (rowID, key, row) in read { now[rowID] = (key, row) }
        let examined = rowIDs.map(Set.init) ?? Set(byRowID.keys).union(now.keys)
        // The last word on each key: a key that went from one rowid and came to another (a
        // REPLACE) is changed, not gone.
        var gone: [ColumnValue] = []
        var present: [(id: ColumnValue, row: SectionRow)] = []
        var appearedOrGone: [ColumnValue] = []
        var updates: [(rowID: Int64, row: (key: ColumnValue, row: SectionRow)?)] = []
        for rowID in examined.sorted() {
            let old = byRowID[rowID], new = now[rowID]
            updates.append((rowID, new))
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
        }
        let presentKeys = Set(present.map { $0.id })
        let sections = gone.filter { !presentKeys.contains($0) }.map { (id: $0, row: SectionRow?.none) }
            + present.map { (id: $0.id, row: Optional($0.row)) }
        return Changes(sections: sections, appearedOrGone: appearedOrGone, updates: updates)
    }

    /// Takes a change read by `changes`: the known rows become what it read.
    mutating func take(_ changes: Changes) {
        for (rowID, row) in changes.updates { byRowID[rowID] = row }
    }
}
