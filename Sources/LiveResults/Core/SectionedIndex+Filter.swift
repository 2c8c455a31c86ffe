import GRDB

// The rows of an index that pass a test, as an index of their own.

extension SectionedIndex {
    /// A new index of the rows whose slot passes `keeps`, in the same order, with the
    /// sections that keep a row (an unsectioned index keeps its one section); nil when every
    /// row passes, so that the caller can go on using this index instead of a copy.
    ///
    /// It copies the kept rows' ids and keys column by column (no key is compared or
    /// decoded): about 10 ns a row.
    func keeping(_ keeps: (Int) -> Bool) -> SectionedIndex? {
        var kept: [Int32] = []
        var described: [(value: DatabaseValue, count: Int)] = []
        for section in sections {
            let before = kept.count
            for slot in section.slots where keeps(Int(slot)) { kept.append(slot) }
            if kept.count > before { described.append((section.value, kept.count - before)) }
        }
        guard kept.count < count else { return nil }
        // The kept rows come from a valid index, in its order: the arrays describe an index.
        return SectionedIndex(ascending: ascending, unsectioned: isUnsectioned, sections: described,
                              ids: store.ids.gather(kept), columns: store.columns.map { $0.gather(kept) },
                              sectionName: { value in sections.first { SQLiteOrdering.compare($0.value, value) == 0 }?.name ?? Self.sectionName(value) })!
    }

    /// The id stored in a slot.
    func id(ofSlot slot: Int) -> RecordID {
        store.ids[slot]
    }
}
