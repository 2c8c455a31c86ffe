/// The result order of the stored rows: sort values under their directions, then the id;
/// through a relationship, rows of two sections compare as their sections do.
extension KeyStore {
    /// Compares two stored rows in result order (sort values under their directions, then id).
    /// `inSameSection`: the caller knows both rows are in one section, so a section key column
    /// is equal without reading the rows' sections (two cache misses a comparison, at ten
    /// million rows, of the searches that place a tapped row).
    /// Through a relationship, rows of two sections compare as their sections do.
    @inline(__always)
    func compare(_ a: Int, _ b: Int, inSameSection: Bool = false) -> Int {
        if !inSameSection, sectionOrder != nil {
            let result = compareSectionOrder(section(ofSlot: a), section(ofSlot: b))
            if result != 0 { return result }
        }
        for c in columns.indices {
            let result: Int
            if columns[c].isSectionKey {
                if inSameSection { continue }
                result = compareSections(a, b)
            } else {
                result = columns[c].compare(a, b)
            }
            if result != 0 { return ascending[c] ? result : -result }
        }
        let x = ids[a], y = ids[b]
        return x < y ? -1 : (x == y ? 0 : 1)
    }

    /// Compares the section values of two slots.
    private func compareSections(_ a: Int, _ b: Int) -> Int {
        let x = section(ofSlot: a), y = section(ofSlot: b)
        return x == y ? 0 : SQLiteOrdering.compare(sectionValues[Int(x)], sectionValues[Int(y)])
    }

    /// Compares two sections (by number) in result order through a relationship: their related
    /// rows' order values under their directions (an unknown row's values are NULL), then
    /// their section values (the related keys).
    func compareSectionOrder(_ x: Int32, _ y: Int32) -> Int {
        guard x != y else { return 0 }
        if let sectionOrder {
            let a = sectionRow(x)?.order, b = sectionRow(y)?.order
            for i in sectionOrder.indices {
                let result = SQLiteOrdering.compare(a.map { $0[i] } ?? .null, b.map { $0[i] } ?? .null)
                if result != 0 { return sectionOrder[i] ? result : -result }
            }
        }
        return SQLiteOrdering.compare(sectionValues[Int(x)], sectionValues[Int(y)])
    }

    func sortValues(at slot: Int) -> [ColumnValue] {
        columns.indices.map { value(column: $0, at: slot) }
    }
}
