import Foundation

/// The result a controller shows, kept in memory: where every matching row belongs (the
/// index), the first `limit` rows of a limited request (the window), and the batch each
/// change makes, in the index spaces of what is shown.
///
/// It knows no database: a store hands it keys (a commit's changed rows, or a whole fresh
/// result) and gets batches back. Both stores share it.
struct LiveResult {
    /// Every matching row. (Changed only here and in the filter's extension.)
    var index: SectionedIndex
    /// With a `limit`, the first `limit` rows of the filtered rows; nil without.
    private(set) var window: SectionedIndex?
    /// The in-memory filter (`ResultsFilter`) and the rows that pass it; nil without.
    var filter: RowFilter?
    /// The request's fetchLimit; 0 for none.
    let limit: Int

    /// The rows shown and reported: the window of a limited request, or every row that
    /// passes the filter.
    var shown: SectionedIndex { window ?? filtered }

    init(index: SectionedIndex, limit: Int) {
        self.index = index
        self.limit = limit
        window = limit > 0 ? index.prefix(limit, sectionName: SectionedIndex.sectionName) : nil
    }

    /// An empty result, before the first fetch: no sections at all.
    static var unfetched: LiveResult {
        LiveResult(index: SectionedIndex(ascending: [], unsectioned: false), limit: 0)
    }

    /// Applies the rows one commit changed (their new keys, nil for rows that left) and, through
    /// a relationship, the related rows it changed (`sections`; nil: deleted), and returns the
    /// batch. With a filter, `texts` holds the filter column's value of the rows that have a
    /// key (a missing one is NULL). On `sectionOutOfOrder` nothing changes.
    mutating func apply(_ rows: [(id: RecordID, key: RowKey?)], sections: [(id: ColumnValue, row: SectionRow?)] = [],
                        texts: [RecordID: [UInt8]] = [:]) throws -> ChangeBatch {
        let sections = index.isRelated ? sections : []
        let batch = filter == nil ? try index.apply(rows, sections: sections, sectionName: SectionedIndex.sectionName)
            : try applyFiltered(rows, sections: sections, texts: texts)
        return window == nil ? batch : try moveWindow(touched: rows.map(\.id), sections: sections)
    }

    /// Brings the result to `fresh`, a whole result in order, and returns the batch: the
    /// rows whose place changed, and the rows in `touched` whose other values may have.
    /// Throws `sectionOutOfOrder` (changing nothing) when `fresh` splits a section.
    /// With a filter, `texts` reads the filter column's values of the rows that change.
    /// Through a relationship, `sections` is every related row now.
    mutating func catchUp(to fresh: [(id: RecordID, key: RowKey)], sections: [(id: ColumnValue, row: SectionRow)] = [], touched: Set<RecordID>,
                          texts: ([RecordID]) throws -> [RecordID: [UInt8]] = { _ in [:] }) throws -> ChangeBatch {
        _ = try emptyIndex(sections: sections).appendingSorted(fresh)
        var changes: [(id: RecordID, key: RowKey?)] = []
        var present = Set<RecordID>()
        for (id, key) in fresh {
            present.insert(id)
            if index.key(for: id) != key || touched.contains(id) { changes.append((id, key)) }
        }
        for id in index.allIDs where !present.contains(id) { changes.append((id, nil)) }
        return try apply(changes, sections: index.store.sectionRowChanges(to: sections),
                         texts: filter == nil ? [:] : texts(changes.filter { $0.key != nil }.map(\.id)))
    }

    /// An empty index like this result's, holding `sections` (every related row, through a relationship).
    private func emptyIndex(sections: [(id: ColumnValue, row: SectionRow)]) -> SectionedIndex {
        var empty = SectionedIndex(ascending: index.ascending, unsectioned: index.isUnsectioned, sectionOrder: index.store.sectionOrder)
        for (value, row) in sections { empty.setSectionRow(row, for: value) }
        return empty
    }

    /// Replaces the whole result with `fresh` (rows in order), when what changed cannot be
    /// known, without a filter. Throws `sectionOutOfOrder` (changing nothing) when `fresh`
    /// splits a section.
    mutating func replace(with fresh: [(id: RecordID, key: RowKey)], sections: [(id: ColumnValue, row: SectionRow)] = []) throws {
        self = LiveResult(index: try emptyIndex(sections: sections).appendingSorted(fresh), limit: limit)
    }

    /// Makes the window again from the filtered rows, after the filter changed.
    mutating func refreshWindow() {
        window = limit > 0 ? filtered.prefix(limit, sectionName: SectionedIndex.sectionName) : nil
    }

    /// Brings the window up to date with the filtered rows after the rows in `touched`
    /// changed, and returns the batch in the window's index spaces.
    ///
    /// Besides the touched rows, only rows near the limit can enter or leave the window:
    /// k changes shift any other row by at most k places.
    ///
    /// Through a relationship, related rows that changed (`sections`) may move whole sections
    /// in or out of the window: the window is then compared with the first `limit` rows, row
    /// by row (O(limit)), and its moved sections are reported as moves.
    private mutating func moveWindow(touched: [RecordID], sections: [(id: ColumnValue, row: SectionRow?)]) throws -> ChangeBatch {
        guard var window else { return ChangeBatch() }
        let index = filtered
        var changes: [(id: RecordID, key: RowKey?)] = []
        var seen = Set<RecordID>()
        if !sections.isEmpty {
            let first = index.ids(inPositions: 0..<min(limit, index.count)).map(\.id)
            let touchedIDs = Set(touched)
            for id in first where touchedIDs.contains(id) || !window.contains(id) { changes.append((id, index.key(for: id))) }
            let kept = Set(first)
            for id in window.allIDs where !kept.contains(id) { changes.append((id, nil)) }
            let batch = try window.apply(changes, sections: sections, sectionName: SectionedIndex.sectionName)
            self.window = window
            return batch
        }
        for id in touched where seen.insert(id).inserted {
            if let position = index.position(of: id), position < limit {
                changes.append((id, index.key(for: id)))
            } else if window.contains(id) {
                changes.append((id, nil))
            }
        }
        let shift = seen.count
        let nearLimit = min(index.count, max(0, limit - shift - 1))..<min(index.count, limit + shift + 1)
        for (position, id) in index.ids(inPositions: nearLimit) where !seen.contains(id) {
            if position < limit, !window.contains(id) {
                changes.append((id, index.key(for: id)))
            } else if position >= limit, window.contains(id) {
                changes.append((id, nil))
            }
        }
        let batch = try window.apply(changes, sectionName: SectionedIndex.sectionName)
        self.window = window
        return batch
    }
}

extension SectionedIndex {
    /// This index with `rows` (in result order) appended; throws `sectionOutOfOrder` when a
    /// section comes back after another began.
    func appendingSorted(_ rows: [(id: RecordID, key: RowKey)]) throws -> SectionedIndex {
        var index = self
        for (id, key) in rows {
            try index.appendSorted(id: id, section: key.section, sectionName: SectionedIndex.sectionName) { key.sort[$0] }
        }
        index.checkInvariantsInDebug()
        return index
    }
}
