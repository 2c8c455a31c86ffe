import Foundation

// The filter a controller applies in memory on top of its request (`ResultsFilter`): reading
// its column once (now, or on a thread of its own ahead of time), and the values of the rows
// each commit changed.

extension ResultsController {
    /// Filters the result in memory (nil: no filter), at once and without a query once the
    /// filter's column is in memory: the first filter on a column reads it for every row;
    /// removing the filter forgets it.
    ///
    /// Like `performFetch()`, it delivers no batch: reload what shows the result. Commits
    /// then arrive as exact events in the filtered result. A filter set before the first
    /// `performFetch()` is applied by it; the filter stays across fetches.
    ///
    /// While its column is being read in the background (`prepareFilter(inColumn:)`), it
    /// returns at once and the result stays as it was (`isFilterPending`); the filter is
    /// applied when the column has been read, at a `processPendingChanges()` (which
    /// `onChangesAvailable` calls for), and delivered as `controllerDidResetContent`.
    ///
    /// Choose this over a predicate in the request when the filter changes often (a filter
    /// typed one key at a time): each change of the request fetches the whole result again.
    /// When the column cannot be read (no such column, the database fails), it throws and
    /// leaves no filter.
    ///
    /// - Complexity: The first filter on a column reads it: a scan of the table, O(n) for n
    ///   rows. Then each text is found in memory: for each of its bytes, a pass over one byte
    ///   a row of the rows still in the running (none where every row, or none, holds the
    ///   byte there), values longer than 16 bytes searched byte for byte, and O(n / 64 + p) to
    ///   build the view of the p rows that pass. A text that extends the previous one looks
    ///   only at its new bytes, among the rows that passed.
    public func setFilter(_ filter: ResultsFilter?) throws {
        if fetchedRequest != nil { try applyFilter(filter) }
        self.filter = filter
    }

    /// Starts reading a filter's column on a thread of its own, so that the `setFilter(_:)`
    /// calls that follow do not wait for it: a screen opening a filter calls this, shows its
    /// prompt and goes on taking keys while the column's values are read.
    /// Nothing happens when the column is in memory or being read already, or before the
    /// first `performFetch()`. Commits applied meanwhile are taken into account: the rows they
    /// changed are read again when the column arrives. An error (no such column) is thrown
    /// by the `setFilter(_:)` or `processPendingChanges()` that would apply the filter.
    ///
    /// - Complexity: O(1) on this thread; the read, a scan of the table, runs on its own.
    public func prepareFilter(inColumn column: String) {
        guard fetchedRequest != nil, filterLoad?.column != column, !(result.filter != nil && filter?.column == column) else { return }
        startFilterLoad(column)
    }

    /// Whether the filter set waits for its column, being read in the background
    /// (`prepareFilter(inColumn:)`): until it arrives, the result is not filtered.
    public var isFilterPending: Bool {
        filter != nil && result.filter == nil && filterLoad != nil
    }

    /// Reads `column` in the background into the slots of the index as it is now.
    func startFilterLoad(_ column: String) {
        filterLoad?.cancel()
        let notify = onChangesAvailable
        filterLoad = FilterColumnLoad(column: column, table: tableName, store: store,
                                      slots: result.index.store.slotMapForReading(), notify: { notify?() })
    }

    /// Stops a background read of a filter column, if there is one.
    func dropFilterLoad() {
        filterLoad?.cancel()
        filterLoad = nil
    }

    /// Applies a filter that waited for its column once the column has been read, and tells
    /// the delegate that the result was replaced.
    func applyPreparedFilter() throws {
        guard isFilterPending, let filter, filterLoad?.result != nil else { return }
        try applyFilter(filter)
        deliverReset()
    }

    /// Filters the fetched result: reuses the column in memory when the filter reads the same
    /// one, and reads it otherwise (or waits for the background read of it: no filter yet).
    func applyFilter(_ new: ResultsFilter?) throws {
        guard let new else {
            dropFilterLoad()
            return result.removeFilter()
        }
        if result.filter != nil, filter?.column == new.column {
            return result.setFilter(needle: new.needle)
        }
        result.removeFilter() // forget the old column before reading the new one
        do {
            guard let column = try filterColumn(new.column) else { return } // being read
            result.setFilter(needle: new.needle, column: column)
        } catch {
            filter = nil // the result is not filtered: say so
            throw error
        }
    }

    /// The filter's column for every row of the index, by slot: read now, or taken from the
    /// background read of it (nil while that is not over).
    private func filterColumn(_ name: String) throws -> TextColumn? {
        guard let load = filterLoad, load.column == name else {
            dropFilterLoad()
            return try FilterColumnLoad.read(name, of: tableName, from: store, into: result.index.store.slotMapForReading())
        }
        guard let outcome = load.result else { return nil }
        filterLoad = nil
        var column = try outcome.get()
        // The rows changed during the read: their old slots may hold what the read saw, and
        // their slots now what it did not.
        for id in load.touched {
            if let slot = load.slots.slot(for: id) { try column.set(nil as [UInt8]?, at: slot) }
        }
        let index = result.index
        for (id, text) in try texts(inColumn: name, of: load.touched.filter { index.contains($0) }) {
            try column.set(text, at: index.store.slot(for: id)!)
        }
        return column
    }

    /// The rows of the index whose filter value is no longer the one in memory (when a
    /// filter is on): what a refetch must report besides the rows whose keys changed.
    func filterTextsChanged() throws -> Set<RecordID> {
        guard let filter, let column = result.filter?.column else { return [] }
        let store = result.index.store
        var changed = Set<RecordID>()
        try self.store.forEachText(inColumn: filter.column, table: tableName, ids: nil) { id, value in
            if let slot = store.slot(for: id), !column.hasValue(value, atSlot: slot) { changed.insert(id) }
        }
        return changed
    }

    /// The filter column's values of `ids` (absent: NULL or no such row); nothing without a
    /// filter. (It does not read `result`, which may be changing while it is called.)
    func filterTexts(of ids: [RecordID]) throws -> [RecordID: [UInt8]] {
        guard let filter else { return [:] }
        return try texts(inColumn: filter.column, of: ids)
    }

    /// `filterTexts(of:)`, taking the values of the rows a commit brought whole from them
    /// (a write's answer, a notification), so that only the others are read.
    func filterTexts(of ids: [RecordID], given records: [RecordID: RecordColumns]) throws -> [RecordID: [UInt8]] {
        guard let filter else { return [:] }
        guard !records.isEmpty else { return try texts(inColumn: filter.column, of: ids) }
        var found: [RecordID: [UInt8]] = [:]
        var unread: [RecordID] = []
        for id in ids {
            switch records[id]?[filter.column] {
            case .text(let text)?: found[id] = Array(text.utf8)
            case .null?: break
            default: unread.append(id)
            }
        }
        return found.merging(try texts(inColumn: filter.column, of: unread)) { _, read in read }
    }

    /// The values of `column` in the rows `ids` (absent: NULL or no such row).
    private func texts(inColumn column: String, of ids: some Collection<RecordID>) throws -> [RecordID: [UInt8]] {
        guard !ids.isEmpty else { return [:] }
        var texts: [RecordID: [UInt8]] = [:]
        try store.forEachText(inColumn: column, table: tableName, ids: Array(ids)) { id, value in
            if let value { texts[id] = Array(value) }
        }
        return texts
    }
}
