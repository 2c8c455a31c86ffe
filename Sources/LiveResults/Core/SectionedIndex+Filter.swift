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
    /// kept row, nothing copied.
    func view(keepingSlotsIn bits: [UInt64]) -> SectionedIndex {
        var view = self
        view.isView = true
        view.sections = []
        bits.withUnsafeBufferPointer { bits in
            for section in sections {
                var kept = section
                kept.slots = Self.slots(section.slots, keptBy: bits)
                if !kept.slots.isEmpty || isUnsectioned { view.sections.append(kept) }
            }
        }
        view.reindexSections()
        view.checkInvariantsInDebug()
        return view
    }

    /// The slots whose bit is set, in order, in an array of exactly their number: counted
    /// first, then copied without a branch a slot.
    private static func slots(_ slots: [Int32], keptBy bits: UnsafeBufferPointer<UInt64>) -> [Int32] {
        slots.withUnsafeBufferPointer { slots in
            @inline(__always) func kept(_ slot: Int32) -> Int {
                let word = Int(slot) >> 6
                return word < bits.count ? Int(truncatingIfNeeded: (bits[word] >> UInt64(slot & 63)) & 1) : 0
            }
            var count = 0
            for slot in slots { count &+= kept(slot) }
            guard count > 0 else { return [] }
            // One element more than kept: each slot is written, and the next overwrites it
            // unless it was kept.
            return [Int32](unsafeUninitializedCapacity: count + 1) { buffer, initialized in
                var written = 0
                for slot in slots {
                    buffer[written] = slot
                    written &+= kept(slot)
                }
                initialized = written
            }
        }
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
