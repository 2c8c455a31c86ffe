import Foundation

// Several commits as one: what an async sequence hands a consumer that was busy while they
// came. Exact events describe the result before and after; concatenating the batches of two
// commits would mix two index spaces. So the commits are merged before they are applied, and
// the one batch that comes out describes the result before the first and after the last.

extension Collection where Element == TrackedChange {
    /// The same changes as at most one change, applied as one batch.
    ///
    /// Commits described row by row merge into one commit: every row any of them touched,
    /// and every related row (sections through a relationship), with its latest key or row (a later commit's keys were read after an earlier one's). A reset
    /// among them makes the whole a reset (the consumer reloads the result as it is now); a
    /// refetch makes the whole a refetch that reports every row any of them touched. A commit
    /// with a check (rows `REPLACE` may have removed without naming them) can only end a
    /// merged commit: its check holds after it, not after later ones, so an earlier one makes
    /// the whole a refetch. The whole is of this controller's own writes when every part is, and
    /// has the notes of every part when every part has some.
    ///
    /// - Complexity: O(k log k) for k touched rows.
    func mergedIntoOne() -> [TrackedChange] {
        let changes = Array(self)
        guard changes.count > 1 else { return changes }
        var touched = Set<RecordID>()
        var latestKeys: [RecordID: RowKey?] = [:]
        var unchanged = Set<RecordID>()
        var written = Set<RecordID>()
        var latestRecords: [RecordID: RecordColumns] = [:] // a later commit without one makes it stale
        var latestSectionRows: [(id: ColumnValue, row: SectionRow?)] = []
        var sectionPlaces: [ColumnValue: Int] = [:] // in latestSectionRows, by key
        var position: Int64?
        var needsRefetch = false
        var origin = ChangeOrigin.ownWrites
        var notes: [String]? = []
        for (offset, change) in changes.enumerated() {
            switch change {
            case .reset:
                return [.reset]
            case .refetch(let ids, let from):
                touched.formUnion(ids)
                needsRefetch = true
                if from != .ownWrites { origin = .elsewhere }
            case .rows(let commit):
                for row in commit.rows {
                    touched.insert(row.id)
                    latestKeys[row.id] = row.key
                    latestRecords[row.id] = commit.records[row.id]
                    if !commit.unchangedRows.contains(row.id) { written.insert(row.id) }
                }
                unchanged.formUnion(commit.unchangedRows)
                for section in commit.sections {
                    if let place = sectionPlaces[section.id] {
                        latestSectionRows[place] = section
                    } else {
                        sectionPlaces[section.id] = latestSectionRows.count
                        latestSectionRows.append(section)
                    }
                }
                if let committed = commit.position { position = Swift.max(position ?? committed, committed) }
                if commit.check != nil && offset != changes.count - 1 { needsRefetch = true }
                if commit.origin != .ownWrites { origin = .elsewhere }
                notes = commit.notes.flatMap { own in notes.map { $0 + own } }
            }
        }
        guard !needsRefetch, case .rows(let last) = changes[changes.count - 1] else { return [.refetch(touched: touched, origin: origin)] }
        let rows = latestKeys.keys.sorted().map { (id: $0, key: latestKeys[$0]!) }
        var merged = CommittedChange(rows: rows, sections: latestSectionRows, position: position, origin: origin, check: last.check)
        merged.unchangedRows = unchanged.subtracting(written)
        merged.records = latestRecords
        merged.notes = notes
        return [.rows(merged)]
    }
}
