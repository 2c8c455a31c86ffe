import GRDB

/// A filter a result applies in memory: the column it reads, kept by slot of the result's
/// index, the bytes a row's value must contain, the slots that do, and the rows that pass.
///
/// While every row of the index passes (a filter that keeps matching everything as it is
/// typed), `view` is nil and the index itself is the filtered result: nothing is copied.
/// Otherwise `view` is an index of its own holding the passing rows, and commits are applied
/// to it as to the index, so its batches are exact in its own index spaces.
struct RowFilter {
    /// The bytes a value must contain.
    var needle: [UInt8]
    /// The filter's column, by slot of the result's index.
    var column: TextColumn
    /// The slots of the index whose value contains the needle.
    var matches: Matches
    /// The rows that pass; nil while every row of the index does.
    var view: SectionedIndex?

    /// Records a slot's new value (nil: NULL, or the row left).
    mutating func set(_ value: [UInt8]?, at slot: Int) throws {
        try column.set(value, at: slot)
        if let found = column.firstOccurrence(of: needle, atSlot: slot, from: 0) {
            matches.insert(slot, offset: found)
        } else {
            matches.remove(slot)
        }
    }
}

extension LiveResult {
    /// The rows that pass the filter: the filter's view, or the whole index.
    var filtered: SectionedIndex { filter?.view ?? index }

    /// Filters the result in memory by the values of `column` (by slot of the index) that
    /// contain `needle`. The window follows.
    mutating func setFilter(needle: [UInt8], column: TextColumn) {
        filter = nil
        let matches = column.matches(needle)
        let view = matches.count == index.count ? nil : index.keeping { matches.contains($0) }
        filter = RowFilter(needle: needle, column: column, matches: matches, view: view)
        refreshWindow()
    }

    /// Changes the needle of the filter, over the column it has.
    ///
    /// When the new needle contains the old one (it only narrows), only the rows that passed
    /// are tested again, and a needle typed one key further is decided from where the old
    /// one was found; otherwise the whole column is read again (in memory).
    mutating func setFilter(needle: [UInt8]) {
        guard var filter else { return }
        self.filter = nil
        let narrows = Self.bytes(needle, contain: filter.needle)
        let matches = narrows
            ? filter.column.matches(needle, refining: filter.matches, previousNeedle: filter.needle)
            : filter.column.matches(needle)
        let index = self.index
        var view: SectionedIndex?
        if matches.count == index.count {
            view = nil
        } else if narrows, let previous = filter.view {
            // Fewer rows to walk through than the index holds.
            view = previous.keeping { matches.contains(index.store.slot(for: previous.id(ofSlot: $0))!) } ?? previous
        } else {
            view = index.keeping { matches.contains($0) }
        }
        filter.needle = needle
        filter.matches = matches
        filter.view = view
        self.filter = filter
        refreshWindow()
    }

    /// Removes the filter: the whole index is the result again.
    mutating func removeFilter() {
        guard filter != nil else { return }
        filter = nil
        refreshWindow()
    }

    /// Applies a commit's rows (their new keys, nil for rows that left) and their filter
    /// column values (`texts`, by id; a missing id is NULL) with the filter on, and returns
    /// the batch in the filtered result's index spaces. On `sectionOutOfOrder` nothing changes.
    mutating func applyFiltered(_ rows: [(id: RecordID, key: RowKey?)], texts: [RecordID: [UInt8]]) throws -> ChangeBatch {
        guard var filter else { return try index.apply(rows, sectionName: SectionedIndex.sectionName) }
        // Taken out while it changes, so that its arrays are not copied.
        self.filter = nil
        defer { self.filter = filter }
        let needle = filter.needle
        let passing: [(id: RecordID, key: RowKey?)] = rows.map { row in
            let passes = row.key != nil && texts[row.id].map { Self.bytes($0, contain: needle) } == true
            return (row.id, passes ? row.key : nil)
        }
        // A row that stays or comes in without passing ends "every row passes": the view is
        // made from the index as it was, before the commit.
        if filter.view == nil, zip(rows, passing).contains(where: { $0.key != nil && $1.key == nil }) {
            let matches = filter.matches
            filter.view = index.keeping { matches.contains($0) } ?? index
        }
        let leaving = rows.compactMap { $0.key == nil ? index.store.slot(for: $0.id) : nil }
        let batch = try index.apply(rows, sectionName: SectionedIndex.sectionName)
        for slot in leaving { try filter.set(nil, at: slot) }
        for row in rows where row.key != nil {
            guard let slot = index.store.slot(for: row.id) else { continue }
            try filter.set(texts[row.id], at: slot)
        }
        guard var view = filter.view else { return batch }
        filter.view = nil
        let viewBatch = try view.apply(passing, sectionName: SectionedIndex.sectionName)
        filter.view = view
        return viewBatch
    }

    /// Whether `text` contains `needle`, byte for byte (as SQL's `instr`).
    static func bytes(_ text: [UInt8], contain needle: [UInt8]) -> Bool {
        guard needle.count <= text.count else { return false }
        guard !needle.isEmpty else { return true }
        return (0...(text.count - needle.count)).contains { start in
            text[start..<start + needle.count].elementsEqual(needle)
        }
    }
}
