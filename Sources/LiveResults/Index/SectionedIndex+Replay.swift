// Changes applied without describing them: a section cache caught up with the change log at a
// launch, where no one is shown a batch. Finding where each changed row was and classifying
// it (`apply`) costs searches and moves a changed row, so that catching up tens of thousands
// of changes took longer than a fetch; here the rows leave their sections in one pass over
// each section and arrive in one merge a section.

extension SectionedIndex {
    /// From how many changed rows `replay` takes them out in one pass over their sections
    /// rather than through `apply`.
    static let replayPassRows = 64

    /// Applies a commit's (or many commits') changed rows as `apply` does, without working out
    /// the batch. On `sectionOutOfOrder` the index is left half changed: discard it.
    package mutating func replay(_ changes: [(id: RecordID, key: RowKey?)], sectionName: (ColumnValue) -> String) throws {
        precondition(!isView, "a view takes its changes through prepareViewChange and applyViewChange")
        let changed = coalesce(changes)
        guard changed.count >= Self.replayPassRows else {
            _ = try apply(changes, sectionName: sectionName)
            return
        }
        defer { checkInvariantsInDebug() }
        takeOut(changed.keys)
        arrive(changed, sectionName: sectionName)
        try checkSectionOrder()
    }

    /// Takes the rows of `ids` that the index holds out of their sections, in one pass over
    /// each section that holds one (a bit a slot says which leave), and drops the sections
    /// left empty.
    private mutating func takeOut(_ ids: some Collection<RecordID>) {
        var leaving = [UInt64](repeating: 0, count: (store.ids.count + 63) / 64)
        var holding = Set<Int>() // the places of the sections they are in
        for id in ids {
            guard let slot = store.slot(for: id) else { continue }
            leaving[slot >> 6] |= 1 << UInt64(slot & 63)
            if let place = placeOfSectionNumber[store.section(ofSlot: slot)] { holding.insert(place) }
        }
        for s in holding {
            sections[s].slots.removeAll { slot in leaving[Int(slot) >> 6] & (1 << UInt64(slot & 63)) != 0 }
        }
        if !isUnsectioned { sections.removeAll { $0.slots.isEmpty } }
        reindexSections()
    }
}
