import Foundation

// Reading an index: counts, ids and places of rows.

extension SectionedIndex {
    package var count: Int { isView ? sections.reduce(0) { $0 + $1.slots.count } : store.count }

    func rowCount(inSection section: Int) -> Int { sections[section].slots.count }

    func id(at indexPath: IndexPath) -> RecordID {
        store.ids[Int(sections[indexPath.section].slots[indexPath.row])]
    }

    /// The ids of a range of rows of a section.
    func ids(inSection section: Int, rows: Range<Int>) -> [RecordID] {
        sections[section].slots[rows].map { store.ids[Int($0)] }
    }

    /// Every id, in result order.
    package var allIDs: [RecordID] {
        sections.flatMap { $0.slots.map { store.ids[Int($0)] } }
    }

    func key(for id: RecordID) -> RowKey? {
        guard let slot = store.slot(for: id) else { return nil }
        return RowKey(section: sectionValues[Int(store.section(ofSlot: slot))], sort: store.sortValues(at: slot))
    }

    /// The place of a row, found by binary search on its sort key; nil when it is not in
    /// the index (in a view: also when the store holds it but the view does not).
    func indexPath(for id: RecordID) -> IndexPath? {
        guard let slot = store.slot(for: id), let section = placeOfSectionNumber[store.section(ofSlot: slot)] else { return nil }
        let slots = sections[section].slots
        let row = insertionIndex(of: slot, in: slots)
        guard !isView || (row < slots.count && slots[row] == Int32(slot)) else { return nil }
        return IndexPath(row: row, section: section)
    }

    func contains(_ id: RecordID) -> Bool {
        isView ? indexPath(for: id) != nil : store.slot(for: id) != nil
    }

    /// The place of a row in the whole result, counting from 0 across sections.
    func position(of id: RecordID) -> Int? {
        guard let path = indexPath(for: id) else { return nil }
        return sections[..<path.section].reduce(path.row) { $0 + $1.slots.count }
    }

    /// The ids at a range of places in the whole result, with their places.
    func ids(inPositions positions: Range<Int>) -> [(position: Int, id: RecordID)] {
        var result: [(position: Int, id: RecordID)] = []
        var start = 0
        for section in sections {
            let end = start + section.slots.count
            let overlap = max(start, positions.lowerBound)..<max(max(start, positions.lowerBound), min(end, positions.upperBound))
            for position in overlap { result.append((position, store.ids[Int(section.slots[position - start])])) }
            if end >= positions.upperBound { break }
            start = end
        }
        return result
    }

    /// A new index of the first `count` rows.
    func prefix(_ count: Int, sectionName: (ColumnValue) -> String) -> SectionedIndex {
        var result = SectionedIndex(ascending: ascending, unsectioned: isUnsectioned, sectionOrder: store.sectionOrder)
        result.store.copySectionRows(from: store)
        result.reserveCapacity(min(count, self.count))
        for (_, id) in ids(inPositions: 0..<min(count, self.count)) {
            let slot = store.slot(for: id)!
            // The rows come in order from a valid index: appending cannot fail.
            try! result.appendSorted(id: id, section: sectionValues[Int(store.section(ofSlot: slot))], sectionName: sectionName) {
                store.value(column: $0, at: slot)
            }
        }
        result.checkInvariantsInDebug()
        return result
    }
}
