import Foundation

// Applying a commit's changed rows to the index, in named steps:
//   1. coalesce: the last word on each row wins; rows in neither result drop out;
//   2. remember where the changed rows were (`Before`);
//   3. place them at their new places, undoing it all when a section would split;
//   4. plan the sections: which survive in place, which are deleted and inserted (or, through
//      a relationship, moved and updated; in +Moves);
//   5. classify the rows: inserts, deletes, moves (by relative order) and updates;
//   6. assemble the batch in Core Data's order.

extension SectionedIndex {
    /// Moves the changed rows to their new places and returns the batch that describes it.
    ///
    /// `changes` gives, for every row a commit touched, its new key, or nil when it was deleted
    /// or no longer matches. Through a relationship, `related` gives the related rows the
    /// commit inserted or changed (nil: deleted), by section value: a section whose title
    /// changed is updated, one whose order among the others changed is moved, its rows with
    /// it. On `sectionOutOfOrder` the index is left as it was.
    mutating func apply(_ changes: [(id: RecordID, key: RowKey?)], sections related: [(id: ColumnValue, row: SectionRow?)] = [],
                        sectionName: (ColumnValue) -> String) throws -> ChangeBatch {
        precondition(!isView, "a view takes its changes through prepareViewChange and applyViewChange")
        defer { checkInvariantsInDebug() }
        let sectionsChange = isRelated && !related.isEmpty
        // One row changing within its section (a tap) needs no bookkeeping.
        if !sectionsChange, changes.count == 1, let key = changes[0].key, let batch = moveWithinSection(changes[0].id, to: key) {
            return batch
        }
        let changed = coalesce(changes)
        if !sectionsChange {
            guard let first = changed.first else { return ChangeBatch() }
            if changed.count == 1, let key = first.value, let batch = moveWithinSection(first.key, to: key) {
                return batch
            }
        }
        let before = Before(self, changed: changed)
        if sectionsChange {
            // The rows are placed first (a related row's insert comes before its rows arrive);
            // a deleted related row is forgotten once its rows have left.
            for (value, row) in related where row != nil { store.setSectionRow(row, for: value) }
        }
        try placeKeepingSectionOrder(changed, before: before, sectionName: sectionName)
        if sectionsChange {
            for (value, row) in related where row == nil { store.setSectionRow(nil, for: value) }
        }
        let plan = planSections(before: before, changed: changed)
        let rows = classifyRows(changed, before: before, plan: plan)
        return assemble(plan, rows: rows, before: before)
    }

    /// Where the changed rows were before the batch, and what the sections were.
    struct Before {
        /// Each section's number, value and name, and through a relationship its related row.
        var sections: [(number: Int32, value: ColumnValue, name: String, row: SectionRow?)]
        var paths: [RecordID: IndexPath] = [:]
        var keys: [RecordID: RowKey] = [:]

        init(_ index: SectionedIndex, changed: [RecordID: RowKey?]) {
            sections = index.sections.map { ($0.number, $0.value, $0.name, index.store.sectionRow($0.number)) }
            for id in changed.keys {
                if let path = index.indexPath(for: id) {
                    paths[id] = path
                    keys[id] = index.key(for: id)
                }
            }
        }
    }

    /// The row changes of a batch, by kind.
    struct RowChanges {
        var deletes: [RowChange] = []
        var inserts: [RowChange] = []
        var moves: [RowChange] = []
        var updates: [RowChange] = []

        /// In Core Data's order: deletes (last first), then inserts, moves and updates (in new order).
        var inBatchOrder: [RowChange] {
            Self.ordered(deletes, by: \.indexPath, descending: true) + Self.ordered(inserts, by: \.newIndexPath)
                + Self.ordered(moves, by: \.newIndexPath) + Self.ordered(updates, by: \.newIndexPath)
        }

        /// `changes` ordered by the index path at `path` (each change of a kind has one).
        private static func ordered(_ changes: [RowChange], by path: KeyPath<RowChange, IndexPath?>, descending: Bool = false) -> [RowChange] {
            changes.sorted { a, b in
                guard let a = a[keyPath: path], let b = b[keyPath: path] else { return false }
                return descending ? a > b : a < b
            }
        }
    }

    /// Step 1: the new key of each changed row (the last word on each row wins), without the
    /// rows that are in neither result.
    func coalesce(_ changes: [(id: RecordID, key: RowKey?)]) -> [RecordID: RowKey?] {
        var newKeys: [RecordID: RowKey?] = [:]
        for change in changes { newKeys[change.id] = change.key }
        return newKeys.filter { id, key in store.slot(for: id) != nil || key != nil }
    }

    /// Step 3: puts the changed rows at their new places; when a section would be split (its
    /// rows no longer contiguous), puts them back and throws `sectionOutOfOrder`.
    private mutating func placeKeepingSectionOrder(_ changed: [RecordID: RowKey?], before: Before, sectionName: (ColumnValue) -> String) throws {
        place(changed, oldPaths: before.paths, sectionName: sectionName)
        do {
            try checkSectionOrder()
        } catch {
            // Put every changed row back where it was; the old order was valid.
            let undo = Dictionary(uniqueKeysWithValues: changed.keys.map { ($0, before.keys[$0]) })
            let newPaths = Dictionary(uniqueKeysWithValues: changed.keys.compactMap { id in indexPath(for: id).map { (id, $0) } })
            place(undo, oldPaths: newPaths, sectionName: sectionName)
            throw error
        }
    }

    /// Step 5: the change of each changed row, plus the unchanged rows of sections deleted and
    /// inserted again.
    func classifyRows(_ changed: [RecordID: RowKey?], before: Before, plan: SectionPlan) -> RowChanges {
        var rows = RowChanges()
        // Rows that stay in a surviving section: moves or updates, decided by relative order.
        var staying: [(id: RecordID, old: IndexPath, new: IndexPath)] = []
        for id in changed.keys {
            switch (before.paths[id], indexPath(for: id)) {
            case let (old?, new?):
                if plan.deleted.contains(old.section) || plan.inserted.contains(new.section) {
                    // Never a move across a section insert or delete (rule 4).
                    rows.deletes.append(RowChange(kind: .delete, id: id, indexPath: old, newIndexPath: nil))
                    rows.inserts.append(RowChange(kind: .insert, id: id, indexPath: nil, newIndexPath: new))
                } else if SQLiteOrdering.compare(before.sections[old.section].value, sections[new.section].value) == 0 {
                    staying.append((id, old, new))
                } else {
                    rows.moves.append(RowChange(kind: .move, id: id, indexPath: old, newIndexPath: new))
                }
            case let (old?, nil):
                rows.deletes.append(RowChange(kind: .delete, id: id, indexPath: old, newIndexPath: nil))
            case let (nil, new?):
                rows.inserts.append(RowChange(kind: .insert, id: id, indexPath: nil, newIndexPath: new))
            case (nil, nil):
                break
            }
        }
        let mustMove = Self.rowsThatMustMove(staying, changedOld: Array(before.paths.values), changedNew: changed.keys.compactMap { indexPath(for: $0) })
        for row in staying {
            let kind: ChangeKind = mustMove.contains(row.id) ? .move : .update
            let change = RowChange(kind: kind, id: row.id, indexPath: row.old, newIndexPath: row.new)
            if kind == .move { rows.moves.append(change) } else { rows.updates.append(change) }
        }
        // Unchanged rows of a section deleted and inserted again go with it (a moved section's
        // travel with it unreported).
        for survivor in plan.survivors where !isRelated && !plan.stable.contains(survivor.old) {
            let oldOrder = oldOrder(ofSection: survivor.new, changed: changed, oldKeys: before.keys)
            for (row, id) in oldOrder.enumerated() where changed[id] == nil {
                rows.deletes.append(RowChange(kind: .delete, id: id, indexPath: IndexPath(row: row, section: survivor.old), newIndexPath: nil))
            }
            for (row, slot) in sections[survivor.new].slots.enumerated() where changed[store.ids[Int(slot)]] == nil {
                rows.inserts.append(RowChange(kind: .insert, id: store.ids[Int(slot)], indexPath: nil, newIndexPath: IndexPath(row: row, section: survivor.new)))
            }
        }
        return rows
    }

    /// Step 6: section deletes (last first), section inserts, section moves and updates (in
    /// new order), then row deletes (last first), inserts, moves and updates (in new order).
    func assemble(_ plan: SectionPlan, rows: RowChanges, before: Before) -> ChangeBatch {
        var batch = ChangeBatch()
        for index in plan.deleted.sorted(by: >) {
            batch.sectionChanges.append(SectionChange(kind: .delete, index: index, name: before.sections[index].name,
                                                      identifier: isRelated ? Self.sectionName(before.sections[index].value) : nil))
        }
        for index in plan.inserted.sorted() {
            batch.sectionChanges.append(SectionChange(kind: .insert, index: index, name: sections[index].name, identifier: identifier(ofSection: index)))
        }
        if isRelated {
            // A moved section redraws its header anyway; a kept one is updated when its related
            // row changed, its title or only its order (rule 11).
            for survivor in plan.survivors.sorted(by: { $0.new < $1.new }) {
                let moved = !plan.stable.contains(survivor.old)
                let rowChanged = before.sections[survivor.old].row != store.sectionRow(sections[survivor.new].number)
                guard moved || rowChanged || !before.sections[survivor.old].name.utf8.elementsEqual(sections[survivor.new].name.utf8) else { continue }
                batch.sectionChanges.append(SectionChange(kind: moved ? .move : .update, index: survivor.old, newIndex: survivor.new,
                                                          name: sections[survivor.new].name, identifier: identifier(ofSection: survivor.new)))
            }
        }
        batch.rowChanges = rows.inBatchOrder
        return batch
    }

    /// The common case, one row changing within its section (a tap): the row is moved past
    /// the rows it overtakes, and nothing else moves. Nil when the case does not apply.
    private mutating func moveWithinSection(_ id: RecordID, to key: RowKey) -> ChangeBatch? {
        guard let slot = store.slot(for: id) else { return nil }
        let number = store.section(ofSlot: slot)
        guard SQLiteOrdering.compare(sectionValues[Int(number)], key.section) == 0, let s = placeOfSectionNumber[number] else { return nil }
        let oldRow = insertionIndex(of: slot, in: sections[s].slots, near: sections[s].baseSlot.map { slot - Int($0) })
        let oldSort = store.sortValues(at: slot)
        store.store(id: id, section: number) { key.sort[$0] }
        let newRow = insertionIndex(of: slot, in: sections[s].slots, skipping: oldRow, near: oldRow)
        // The row must stay between the neighbouring sections; otherwise take the general path.
        let last = sections[s].slots.count - 1
        if (newRow == 0 && s > 0 && store.compare(Int(sections[s - 1].slots[sections[s - 1].slots.count - 1]), slot) > 0)
            || (newRow == last && s < sections.count - 1 && store.compare(slot, Int(sections[s + 1].slots[0])) > 0) {
            store.store(id: id, section: number) { oldSort[$0] }
            return nil
        }
        sections[s].slots.withUnsafeMutableBufferPointer { slots in
            if newRow < oldRow {
                for i in stride(from: oldRow, to: newRow, by: -1) { slots[i] = slots[i - 1] }
            } else if newRow > oldRow {
                for i in oldRow..<newRow { slots[i] = slots[i + 1] }
            }
            slots[newRow] = Int32(slot)
        }
        let old = IndexPath(row: oldRow, section: s)
        let new = IndexPath(row: newRow, section: s)
        return ChangeBatch(rowChanges: [RowChange(kind: oldRow == newRow ? .update : .move, id: id, indexPath: old, newIndexPath: new)])
    }

    /// Takes the changed rows out of their old places and puts those still in the result
    /// at their new places, creating and removing sections as needed.
    mutating func place(_ changed: [RecordID: RowKey?], oldPaths: [RecordID: IndexPath], sectionName: (ColumnValue) -> String) {
        for (s, rows) in Dictionary(grouping: oldPaths.values, by: \.section) {
            sections[s].slots.remove(rows: rows.map(\.row))
        }
        if !isUnsectioned { sections.removeAll { $0.slots.isEmpty } }
        if isRelated { followSectionRows() }
        reindexSections()
        arrive(changed, sectionName: sectionName)
    }

    /// Through a relationship, after related rows changed: each section takes its related
    /// row's title, and the sections their order (O(s) when it did not change). The caller
    /// reindexes them.
    private mutating func followSectionRows() {
        for s in sections.indices {
            if let row = store.sectionRow(sections[s].number), !row.title.utf8.elementsEqual(sections[s].name.utf8) { sections[s].name = row.title }
        }
        let store = self.store
        let inOrder = zip(sections, sections.dropFirst()).allSatisfy { store.compareSectionOrder($0.number, $1.number) < 0 }
        if !inOrder { sections.sort { store.compareSectionOrder($0.number, $1.number) < 0 } }
    }

    /// Puts the changed rows still in the result at their new places (once every changed row
    /// is out of its section), creating sections as needed; forgets the rows that left.
    mutating func arrive(_ changed: [RecordID: RowKey?], sectionName: (ColumnValue) -> String) {
        var arriving: [Int32: [Int32]] = [:] // new slots, by the number of their (existing) section
        for (id, key) in changed {
            guard let key else {
                if !isView { store.remove(id: id) }
                continue
            }
            let number: Int32
            let slot: Int
            if isView {
                // The store already holds the row's new key (`applyViewChange`).
                slot = store.slot(for: id)!
                number = store.section(ofSlot: slot)
            } else {
                number = self.sectionNumber(for: key.section)
                slot = store.store(id: id, section: number) { key.sort[$0] }
            }
            if placeOfSectionNumber[number] != nil {
                arriving[number, default: []].append(Int32(slot))
            } else {
                let s = sectionInsertionIndex(of: slot)
                sections.insert(Section(number: number, value: key.section, name: newSectionName(key.section, sectionName), slots: [Int32(slot)]), at: s)
                reindexSections()
            }
        }
        for (number, slots) in arriving {
            insert(slots, intoSection: placeOfSectionNumber[number]!)
        }
    }

    /// From how many rows a section's changes are made in one pass over its slots rather than
    /// one row at a time: each row's removal or insertion moves half the section on average,
    /// so that catching up ten thousand commits at a launch took longer than a fetch.
    static let onePassRows = 3

    /// Puts `slots` (rows whose keys the store holds) at their places in section `s`.
    private mutating func insert(_ slots: [Int32], intoSection s: Int) {
        guard slots.count >= Self.onePassRows else {
            for slot in slots {
                sections[s].slots.insert(slot, at: insertionIndex(of: Int(slot), in: sections[s].slots))
            }
            return
        }
        // In order, each with its place among the section's rows (a new row before an old
        // one at the same place), then merged in one pass. Each place is searched for while
        // that costs fewer comparisons than walking the section's rows (`k log n < n`).
        let sorted = slots.sorted { store.compare(Int($0), Int($1), inSameSection: true) < 0 }
        let old = sections[s].slots
        let searches = sorted.count * (Int.bitWidth - old.count.leadingZeroBitCount)
        var merged = FlatArray<Int32>()
        merged.reserveCapacity(old.count + sorted.count)
        var copied = 0
        for slot in sorted {
            var place = copied
            if searches < old.count {
                place = insertionIndex(of: Int(slot), in: old)
            } else {
                while place < old.count, store.compare(Int(old[place]), Int(slot), inSameSection: true) < 0 { place += 1 }
            }
            merged.append(contentsOf: old[copied..<place])
            merged.append(slot)
            copied = place
        }
        merged.append(contentsOf: old[copied...])
        sections[s].slots = merged
    }

    /// The ids a section held before a batch, in order: its rows now, less those that came
    /// in, plus those that left. Used only when a section changes place among the others.
    private func oldOrder(ofSection section: Int, changed: [RecordID: RowKey?], oldKeys: [RecordID: RowKey]) -> [RecordID] {
        let value = sections[section].value
        var rows: [(id: RecordID, sort: [ColumnValue])] = sections[section].slots.compactMap { slot in
            let id = store.ids[Int(slot)]
            return changed[id] == nil ? (id, store.sortValues(at: Int(slot))) : nil
        }
        for (id, key) in oldKeys where SQLiteOrdering.compare(key.section, value) == 0 {
            rows.append((id, key.sort))
        }
        let ascending = store.ascending
        func precedes(_ a: (id: RecordID, sort: [ColumnValue]), _ b: (id: RecordID, sort: [ColumnValue])) -> Bool {
            for i in ascending.indices {
                let c = SQLiteOrdering.compare(a.sort[i], b.sort[i])
                if c != 0 { return ascending[i] ? c < 0 : c > 0 }
            }
            return a.id < b.id
        }
        return rows.sorted(by: precedes).map(\.id)
    }
}

extension FlatArray where Element == Int32 {
    /// Removes the elements at `rows` (distinct, in any order): one at a time for a few, in one
    /// pass for more (`SectionedIndex.onePassRows`).
    mutating func remove(rows: [Int]) {
        guard rows.count >= SectionedIndex.onePassRows else {
            for row in rows.sorted(by: >) { remove(at: row) } // last first: earlier rows stay put
            return
        }
        var kept = FlatArray<Int32>()
        kept.reserveCapacity(count - rows.count)
        var copied = 0
        for row in rows.sorted() {
            kept.append(contentsOf: self[copied..<row])
            copied = row + 1
        }
        kept.append(contentsOf: self[copied...])
        self = kept
    }
}
