import Foundation

// Applying a store's changes to the result: row by row when it can, by fetching again and
// comparing when it cannot, and catching up after a failure.

extension ResultsController {
    /// How the controller catches up after changes could not be applied row by row.
    struct Recovery {
        /// The next `processPendingChanges` refetches first.
        var needsRefetch = false
        /// That refetch cannot know what changed and ends in a reset.
        var needsReset = false
        /// Rows commits touched that were never reported; the refetch reports them.
        var unreportedIDs: Set<RecordID> = []
    }

    /// Applies one commit row by row, or refetches when the commit removed rows it does not
    /// name (its store's `check` fails) or split a section.
    func apply(_ commit: CommittedChange) throws {
        var commit = commit
        if !commit.unchangedRows.isEmpty {
            // A row whose values the commit did not change (read only for its related row, or
            // written as it was), with the key the result holds, has nothing to report (rule 6).
            // One whose key differs is applied: the result had not caught up with an earlier
            // commit of it, whose change the viewer has not seen.
            commit.rows.removeAll { row in commit.unchangedRows.contains(row.id) && row.key != nil && result.index.key(for: row.id) == row.key }
        }
        let ids = commit.rows.map(\.id)
        filterLoad?.touched.formUnion(ids) // a filter column being read reads these again
        if let check = commit.check, !check.holds(for: commit.rows, count: result.index.count, contains: { result.index.contains($0) }) {
            recovery.unreportedIDs.formUnion(ids)
            try refetch(origin: commit.origin)
            return
        }
        do {
            keepRecords(of: commit)
            let texts = result.filter == nil ? [:] : try filterTexts(of: commit.rows.filter { $0.key != nil }.map(\.id), given: commit.records)
            var batch = try result.apply(commit.rows, sections: commit.sections, texts: texts)
            batch.notes = commit.notes ?? []
            deliver(batch, from: commit.origin)
            if let position = commit.position { appliedPosition = max(appliedPosition ?? 0, position) }
        } catch let error as LiveResultsError where error.kind == .sectionOutOfOrder {
            // The commit split a section; the result is as it was. A refetch says whether
            // the database really is out of order (then the error stands) or not.
            recovery.unreportedIDs.formUnion(ids)
            try refetch(origin: commit.origin)
        }
    }

    /// Forgets the records the commit changed; a row it brought whole that was in memory (a
    /// row being drawn) stays, as the commit left it, so that drawing it reads nothing.
    private func keepRecords(of commit: CommittedChange) {
        for row in commit.rows {
            let wasLoaded = records.removeValue(forKey: row.id) != nil
            guard wasLoaded, row.key != nil, let decodeRecord, let columns = commit.records[row.id] else { continue }
            records[row.id] = try? decodeRecord(columns) // one it cannot decode is read when drawn
        }
    }

    /// The fallback when a commit cannot be applied row by row: fetches the whole result and
    /// reports the rows whose place changed and the rows commits touched (whose other values
    /// may have changed); or, when nothing is known of what changed, resets. Throws (and
    /// tries again at the next call) when the fresh result is itself invalid, such as a
    /// section out of order. The batch is delivered as `origin`'s: a refetch that catches up
    /// after a failure cannot tell whose commits it finds, and says `elsewhere`.
    func refetch(origin: ChangeOrigin = .elsewhere) throws {
        guard let request = fetchedRequest else { return }
        refetchCount += 1
        recovery.needsRefetch = true
        let fetched = try store.fetchAll(storeQuery(request))
        let (fresh, position) = (fetched.rows, fetched.position)
        records.removeAll()
        // A filter column being read cannot know what the refetch changes: it is read again.
        let loading = filterLoad?.column
        dropFilterLoad()
        defer { if let loading, filterLoad == nil, result.filter == nil { startFilterLoad(loading) } }
        if recovery.needsReset {
            try result.replace(with: fresh, sections: fetched.sections)
            if let loading { startFilterLoad(loading) } // into the new slots, before the filter asks for it
            try applyFilter(filter)
            recovery = Recovery()
            if let position { appliedPosition = position }
            deliverReset()
        } else {
            // A filter's values may have changed in rows whose keys did not: compare them too.
            let touched = recovery.unreportedIDs.union(try filterTextsChanged())
            let batch = try result.catchUp(to: fresh, sections: fetched.sections, touched: touched, texts: filterTexts(of:))
            recovery = Recovery()
            if let position { appliedPosition = max(appliedPosition ?? 0, position) }
            deliver(batch, from: origin)
        }
    }
}
