import Foundation

// The filter a controller applies in memory on top of its request (`ResultsFilter`): reading
// its column once, and the values of the rows each commit changed.

extension ResultsController {
    /// Filters the result in memory (nil: no filter), at once and without a query once the
    /// filter's column is in memory: the first filter on a column reads it for every row;
    /// removing the filter forgets it.
    ///
    /// Like `performFetch()`, it delivers no batch: reload what shows the result. Commits
    /// then arrive as exact events in the filtered result. A filter set before the first
    /// `performFetch()` is applied by it; the filter stays across fetches.
    ///
    /// Choose this over a predicate in the request when the filter changes often (a filter
    /// typed one key at a time): each change of the request fetches the whole result again.
    /// When the column cannot be read (no such column, the database fails), it throws and
    /// leaves no filter.
    public func setFilter(_ filter: ResultsFilter?) throws {
        if fetchedRequest != nil { try applyFilter(filter) }
        self.filter = filter
    }

    /// Filters the fetched result: reuses the column in memory when the filter reads the same
    /// one, and reads it otherwise.
    func applyFilter(_ new: ResultsFilter?) throws {
        guard let new else { return result.removeFilter() }
        if result.filter != nil, filter?.column == new.column {
            result.setFilter(needle: new.needle)
        } else {
            result.removeFilter() // forget the old column before reading the new one
            do {
                let column = try loadFilterColumn(new.column)
                result.setFilter(needle: new.needle, column: column)
            } catch {
                filter = nil // the result is not filtered: say so
                throw error
            }
        }
    }

    /// Reads the filter's column for every row of the index, by slot.
    private func loadFilterColumn(_ name: String) throws -> TextColumn {
        let store = result.index.store
        var column = TextColumn(slotCount: store.ids.count, expectedBytes: 16 * store.count)
        try self.store.forEachText(inColumn: name, table: fetchRequest.tableName, ids: nil) { id, value in
            guard let slot = store.slot(for: id) else { return } // a row outside the request
            try column.set(value, at: slot)
        }
        column.compact() // read in table order, matched in slot order
        return column
    }

    /// The rows of the index whose filter value is no longer the one in memory (when a
    /// filter is on): what a refetch must report besides the rows whose keys changed.
    func filterTextsChanged() throws -> Set<RecordID> {
        guard let filter, let column = result.filter?.column else { return [] }
        let store = result.index.store
        var changed = Set<RecordID>()
        try self.store.forEachText(inColumn: filter.column, table: fetchRequest.tableName, ids: nil) { id, value in
            if let slot = store.slot(for: id), !column.hasValue(value, atSlot: slot) { changed.insert(id) }
        }
        return changed
    }

    /// The filter column's values of `ids` (absent: NULL or no such row); nothing without a
    /// filter. (It does not read `result`, which may be changing while it is called.)
    func filterTexts(of ids: [RecordID]) throws -> [RecordID: [UInt8]] {
        guard let filter, !ids.isEmpty else { return [:] }
        var texts: [RecordID: [UInt8]] = [:]
        try store.forEachText(inColumn: filter.column, table: fetchRequest.tableName, ids: ids) { id, value in
            if let value { texts[id] = Array(value) }
        }
        return texts
    }
}
