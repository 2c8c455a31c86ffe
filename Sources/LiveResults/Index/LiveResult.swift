import Foundation
import GRDB

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

    /// Applies the rows one commit changed (their new keys, nil for rows that left) and
    /// returns the batch. With a filter, `texts` holds the filter column's value of the rows
    /// that have a key (a missing one is NULL). On `sectionOutOfOrder` nothing changes.
    mutating func apply(_ rows: [(id: RecordID, key: RowKey?)], texts: [RecordID: [UInt8]] = [:]) throws -> ChangeBatch {
        let batch = filter == nil ? try index.apply(rows, sectionName: SectionedIndex.sectionName) : try applyFiltered(rows, texts: texts)
        return window == nil ? batch : try moveWindow(touched: rows.map(\.id))
    }

    /// Brings the result to `fresh`, a whole result in order, and returns the batch: the
    /// rows whose place changed, and the rows in `touched` whose other values may have.
    /// Throws `sectionOutOfOrder` (changing nothing) when `fresh` splits a section.
    /// With a filter, `texts` reads the filter column's values of the rows that change.
    mutating func catchUp(to fresh: [(id: RecordID, key: RowKey)], touched: Set<RecordID>,
                          texts: ([RecordID]) throws -> [RecordID: [UInt8]] = { _ in [:] }) throws -> ChangeBatch {
        _ = try SectionedIndex(ascending: index.ascending, unsectioned: index.isUnsectioned, sortedRows: fresh, sectionName: SectionedIndex.sectionName)
        var changes: [(id: RecordID, key: RowKey?)] = []
        var present = Set<RecordID>()
        for (id, key) in fresh {
            present.insert(id)
            if index.key(for: id) != key || touched.contains(id) { changes.append((id, key)) }
        }
        for id in index.allIDs where !present.contains(id) { changes.append((id, nil)) }
        return try apply(changes, texts: filter == nil ? [:] : texts(changes.filter { $0.key != nil }.map(\.id)))
    }

    /// Replaces the whole result with `fresh` (rows in order), when what changed cannot be
    /// known, without a filter. Throws `sectionOutOfOrder` (changing nothing) when `fresh`
    /// splits a section.
    mutating func replace(with fresh: [(id: RecordID, key: RowKey)]) throws {
        let index = try SectionedIndex(ascending: index.ascending, unsectioned: index.isUnsectioned, sortedRows: fresh, sectionName: SectionedIndex.sectionName)
        self = LiveResult(index: index, limit: limit)
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
    private mutating func moveWindow(touched: [RecordID]) throws -> ChangeBatch {
        guard var window else { return ChangeBatch() }
        let index = filtered
        var changes: [(id: RecordID, key: RowKey?)] = []
        var seen = Set<RecordID>()
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
