import GRDB

// Views: some of an index's rows, as an index that shares the index's key store instead of
// copying it. A filter's result is one.
//
// A view holds only its sections' slots (4 bytes a row). It reads ids and keys through the
// store of the index it was made from, which its owner lends it for each use (`lending`), and
// never writes to that store. Its changes come in two steps around the index's own apply:
// `prepareViewChange` while the store still holds the old keys (where the changed rows were),
// then `applyViewChange` once the index has stored the new ones.

extension SectionedIndex {
    /// A view of the rows whose slot's bit is set in `bits` (bit `slot % 64` of word
    /// `slot / 64`), in the same order, with the sections that keep a row (an unsectioned
    /// index keeps its one section). It shares this index's store: about 1 ns and 4 bytes a
    /// kept row, nothing copied. A section of `parallelFrom` rows or more is filtered on
    /// several threads at once.
    func view(keepingSlotsIn bits: [UInt64], parallelFrom: Int = ParallelChunks.parallelItems / 2) -> SectionedIndex {
        var view = self
        view.isView = true
        view.sections = []
        bits.withUnsafeBufferPointer { bits in
            for section in sections {
                var kept = section
                kept.slots = Self.slots(section.slots, keptBy: bits, parallel: section.slots.count >= parallelFrom)
                if !kept.slots.isEmpty || isUnsectioned { view.sections.append(kept) }
            }
        }
        view.reindexSections()
        view.checkInvariantsInDebug()
        return view
    }

    /// The slots whose bit is set, in order, in one pass without a branch a slot: each chunk
    /// of the slots (`ParallelChunks`, on several threads when `parallel`) writes the
    /// slots it keeps from where its part starts in the result, then the parts are moved
    /// together. When it keeps under a quarter of `slots`, the kept slots are copied into an
    /// array of their size, so that a narrow view does not hold the room of a wide one.
    private static func slots(_ slots: [Int32], keptBy bits: UnsafeBufferPointer<UInt64>, parallel: Bool) -> [Int32] {
        guard !slots.isEmpty else { return [] }
        let chunks = ParallelChunks.ranges(slots.count, parallel: parallel)
        let kept = slots.withUnsafeBufferPointer { slots in
            [Int32](unsafeUninitializedCapacity: slots.count) { buffer, initialized in
                let base = buffer.baseAddress!
                nonisolated(unsafe) let output = base
                let keptCounts = ParallelChunks.map(chunks) { range in
                    // Each slot is written; the next overwrites it unless it was kept. A chunk
                    // keeps at most the slots it read: it stays inside its part.
                    var written = range.lowerBound
                    for slot in slots[range] {
                        output[written] = slot
                        let word = Int(slot) >> 6
                        written &+= word < bits.count ? Int(truncatingIfNeeded: (bits[word] >> UInt64(slot & 63)) & 1) : 0
                    }
                    return written - range.lowerBound
                }
                var end = 0
                for (range, count) in zip(chunks, keptCounts) {
                    if range.lowerBound != end, count > 0 {
                        UnsafeMutableRawPointer(base + end).copyMemory(from: base + range.lowerBound, byteCount: count * MemoryLayout<Int32>.stride)
                    }
                    end += count
                }
                initialized = end
            }
        }
        guard kept.count < slots.count / 4 else { return kept }
        return kept.withUnsafeBufferPointer { Array($0) }
    }

    /// The view with `store` lent to it (the store of the index it was made from, as it is now).
    func lending(_ store: KeyStore) -> SectionedIndex {
        var view = self
        view.store = store
        return view
    }

    /// The view without its store, to be kept while the index changes: a view that kept a
    /// reference to the store would make the index copy the whole store at its next change.
    var parked: SectionedIndex {
        var view = self
        view.store = KeyStore(ascending: store.ascending)
        return view
    }

    /// What a commit changes in a view, read before the shared store changes: each changed
    /// row's new key in the view (nil: it leaves or stays out) and where the rows were.
    struct ViewChange {
        var changed: [RecordID: RowKey?]
        var before: Before
    }

    /// Step 1 and 2 of a view's change (see `apply`), while the store still holds the old
    /// keys: `changes` are the rows' keys in the view (nil for a row that is not in it).
    func prepareViewChange(_ changes: [(id: RecordID, key: RowKey?)]) -> ViewChange {
        var newKeys: [RecordID: RowKey?] = [:]
        for change in changes { newKeys[change.id] = change.key }
        let changed = newKeys.filter { id, key in key != nil || indexPath(for: id) != nil }
        return ViewChange(changed: changed, before: Before(self, changed: changed))
    }

    /// Steps 3 to 6 of a view's change, once the index applied the commit to the store: the
    /// rows leave their old places and take their new ones, and the batch says so in the
    /// view's index spaces. (A view of an index in order is in order: no section can split.)
    mutating func applyViewChange(_ change: ViewChange, sectionName: (DatabaseValue) -> String) -> ChangeBatch {
        precondition(isView, "only a view takes a prepared change")
        guard !change.changed.isEmpty else { return ChangeBatch() }
        defer { checkInvariantsInDebug() }
        place(change.changed, oldPaths: change.before.paths, sectionName: sectionName)
        let plan = planSections(before: change.before, changed: change.changed)
        let rows = classifyRows(change.changed, before: change.before, plan: plan)
        return assemble(plan, rows: rows, before: change.before)
    }
}
