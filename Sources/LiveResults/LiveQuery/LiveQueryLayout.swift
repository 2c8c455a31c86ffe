import Foundation

// The result a live query keeps for its subscribers, as plain arrays (one pair per section,
// shared copy-on-write between the versions subscribers still hold), and the two things done
// with it: applying a controller's batch (once per step, for every subscriber), and the one
// exact batch between two versions, for a subscriber that missed the steps between them.

/// Sections with their rows' ids and values.
struct LiveQueryLayout<Value: Sendable>: Sendable {
    var sections: [LiveQuerySection<Value>]

    /// Applies `batch` as a table view does: row deletes and the old places of row moves, then
    /// section deletes and the old places of section moves against the old result; section
    /// inserts and the new places of section moves (a moved section brings its remaining
    /// rows), then row inserts and the new places of row moves in ascending order; names of
    /// moved and updated sections and values of updated rows at their new places. `values`
    /// holds the value of every row the batch places: nil when one is missing (the caller
    /// reads the whole result instead).
    func applying(_ batch: ChangeBatch, values: [RecordID: Value]) -> LiveQueryLayout? {
        var placed: [(path: IndexPath, id: RecordID, value: Value)] = []
        for change in batch.rowChanges {
            guard let path = change.newIndexPath else { continue }
            guard let value = values[change.id] else { return nil }
            placed.append((path, change.id, value))
        }
        var next = self
        next.apply(batch, placed: placed)
        return next
    }

    /// `applying`'s work, with the new place and value of every row the batch places.
    private mutating func apply(_ batch: ChangeBatch, placed: [(path: IndexPath, id: RecordID, value: Value)]) {
        let removals = batch.rowChanges.filter { $0.kind == .delete || $0.kind == .move }.compactMap(\.indexPath)
        for path in removals.sorted(by: >) {
            sections[path.section].ids.remove(at: path.row)
            sections[path.section].values.remove(at: path.row)
        }
        var leaving: [(index: Int, newIndex: Int?)] = []
        for change in batch.sectionChanges {
            if change.kind == .delete { leaving.append((change.index, nil)) }
            if change.kind == .move, let newIndex = change.newIndex { leaving.append((change.index, newIndex)) }
        }
        var arriving: [(index: Int, section: LiveQuerySection<Value>)] = []
        for (index, newIndex) in leaving.sorted(by: { $0.index > $1.index }) {
            let section = sections.remove(at: index)
            if let newIndex { arriving.append((newIndex, section)) }
        }
        for change in batch.sectionChanges where change.kind == .insert {
            arriving.append((change.index, LiveQuerySection(identifier: change.identifier, name: change.name, ids: [], values: [])))
        }
        for (index, section) in arriving.sorted(by: { $0.index < $1.index }) {
            sections.insert(section, at: index)
        }
        let kinds = Dictionary(batch.rowChanges.map { ($0.id, $0.kind) }) { _, last in last }
        let insertions = placed.filter { kinds[$0.id] == .insert || kinds[$0.id] == .move }
        for row in insertions.sorted(by: { $0.path < $1.path }) {
            sections[row.path.section].ids.insert(row.id, at: row.path.row)
            sections[row.path.section].values.insert(row.value, at: row.path.row)
        }
        for change in batch.sectionChanges where change.kind == .move || change.kind == .update {
            if let newIndex = change.newIndex { sections[newIndex].name = change.name }
        }
        for row in placed where kinds[row.id] == .update {
            sections[row.path.section].values[row.path.row] = row.value
        }
    }

    /// `batch` (which applies to this result) and `values` without the updates that change
    /// nothing a subscriber holds: a row reported updated whose value, as the query's `map`
    /// makes it, equals the one this result holds (an UPDATE that wrote the values the row had,
    /// or changed only columns the value leaves out). Only when `Value` is `Equatable`;
    /// otherwise both come back as they are. Moves, inserts, deletes and sections stay.
    func withoutUnchangedUpdates(_ batch: ChangeBatch, values: [RecordID: Value]) -> (changes: ChangeBatch, values: [RecordID: Value]) {
        guard Self.valuesCompare, batch.rowChanges.contains(where: { $0.kind == .update }) else { return (batch, values) }
        var batch = batch
        var values = values
        batch.rowChanges.removeAll { change in
            guard change.kind == .update, let old = change.indexPath, let new = values[change.id],
                  Self.equal(sections[old.section].values[old.row], new) else { return false }
            values[change.id] = nil
            return true
        }
        return (batch, values)
    }

    /// Whether values can be compared: `Value` is `Equatable`.
    private static var valuesCompare: Bool { Value.self is any Equatable.Type }

    /// Whether two values are equal (never, when `Value` is not `Equatable`).
    private static func equal(_ a: Value, _ b: Value) -> Bool {
        guard let a = a as? any Equatable else { return false }
        return a.isEqual(to: b)
    }

    /// The values, in this result, of the rows `batch` places (those with a new index path).
    func values(placedBy batch: ChangeBatch) -> [RecordID: Value] {
        var values: [RecordID: Value] = [:]
        for change in batch.rowChanges {
            guard let path = change.newIndexPath else { continue }
            values[change.id] = sections[path.section].values[path.row]
        }
        return values
    }

    /// What identifies a section when comparing two results: its identifier's bytes, and how
    /// many sections before it share them (sections keyed by a column's value may: NULL and ""
    /// are both named ""), so that the k-th old one of an identifier is the k-th new one.
    private struct SectionKey: Hashable {
        var identifier: [UInt8]
        var occurrence: Int
    }

    private var sectionKeys: [SectionKey] {
        var seen: [[UInt8]: Int] = [:]
        return sections.map { section in
            let bytes = Array(section.identifier.utf8)
            defer { seen[bytes, default: 0] += 1 }
            return SectionKey(identifier: bytes, occurrence: seen[bytes] ?? 0)
        }
    }

    /// The one batch from this result to `new`, given the rows that changed on the way
    /// (`touched`: every row any step between them reported). Follows the rules of a
    /// controller's batch (the same plan as `SectionedIndex.apply`, on ids rather than keys):
    /// sections are matched by identity; through a relationship (`sectionsMove`) a surviving
    /// section out of place is moved, otherwise deleted and inserted with its rows; a touched
    /// row kept in its section is a move when its order relative to the rows nobody touched
    /// changed, an update otherwise; rows nobody touched are not reported (they kept their
    /// section and their order among themselves, step after step).
    ///
    /// - Complexity: O(n + k log k) for n rows, k touched.
    func batch(to new: LiveQueryLayout, touched: Set<RecordID>, sectionsMove: Bool) -> ChangeBatch {
        let old = sections
        let oldKeys = sectionKeys
        let oldPlace = Dictionary(uniqueKeysWithValues: oldKeys.enumerated().map { ($1, $0) })
        let survivors = new.sectionKeys.enumerated().compactMap { n, key in oldPlace[key].map { (old: $0, new: n) } }
        let oldIndices = survivors.map(\.old)
        let stable: Set<Int>
        if zip(oldIndices, oldIndices.dropFirst()).allSatisfy({ $0 < $1 }) {
            stable = Set(oldIndices)
        } else {
            // As few sections out of place as possible, then those holding the most rows (through a
            // relationship) or the most untouched rows (keyed by a column's value) stay.
            let weights = survivors.map { survivor in
                let rows = new.sections[survivor.new].ids
                return SectionedIndex.StayingWeight(sections: sectionsMove ? 1 : 0, orderKept: 0,
                                                    rows: sectionsMove ? rows.count : rows.reduce(0) { $0 + (touched.contains($1) ? 0 : 1) })
            }
            stable = Set(SectionedIndex.heaviestIncreasingRun(oldIndices, weights: weights))
        }
        var deleted = Set(old.indices)
        var inserted = Set(new.sections.indices)
        var kept: [Int: Int] = [:] // new index by old index, of the sections neither deleted nor inserted
        for survivor in survivors where sectionsMove || stable.contains(survivor.old) {
            deleted.remove(survivor.old)
            inserted.remove(survivor.new)
            kept[survivor.old] = survivor.new
        }

        var batch = ChangeBatch()
        for index in deleted.sorted(by: >) {
            batch.sectionChanges.append(SectionChange(kind: .delete, index: index, name: old[index].name, identifier: old[index].identifier))
        }
        for index in inserted.sorted() {
            batch.sectionChanges.append(SectionChange(kind: .insert, index: index, name: new.sections[index].name, identifier: new.sections[index].identifier))
        }
        for survivor in survivors.sorted(by: { $0.new < $1.new }) where kept[survivor.old] != nil {
            let moved = !stable.contains(survivor.old)
            let section = new.sections[survivor.new]
            guard moved || !old[survivor.old].name.utf8.elementsEqual(section.name.utf8) else { continue }
            batch.sectionChanges.append(SectionChange(kind: moved ? .move : .update, index: survivor.old, newIndex: survivor.new,
                                                      name: section.name, identifier: section.identifier))
        }

        var newPaths: [RecordID: IndexPath] = [:]
        for (s, section) in new.sections.enumerated() {
            for (row, id) in section.ids.enumerated() { newPaths[id] = IndexPath(row: row, section: s) }
        }
        var rows = SectionedIndex.RowChanges()
        var staying: [(id: RecordID, old: IndexPath, new: IndexPath)] = []
        var changedOld: [IndexPath] = []
        var changedNew: [IndexPath] = []
        var wasIn = Set<RecordID>()
        for (s, section) in old.enumerated() {
            for (row, id) in section.ids.enumerated() {
                wasIn.insert(id)
                let from = IndexPath(row: row, section: s)
                guard let to = newPaths[id] else {
                    rows.deletes.append(RowChange(kind: .delete, id: id, indexPath: from, newIndexPath: nil))
                    changedOld.append(from)
                    continue
                }
                let sameSection = kept[s] == to.section
                if sameSection && !touched.contains(id) { continue }
                changedOld.append(from)
                changedNew.append(to)
                if deleted.contains(s) || inserted.contains(to.section) {
                    // Never a move across a section insert or delete (rule 4).
                    rows.deletes.append(RowChange(kind: .delete, id: id, indexPath: from, newIndexPath: nil))
                    rows.inserts.append(RowChange(kind: .insert, id: id, indexPath: nil, newIndexPath: to))
                } else if sameSection {
                    staying.append((id, from, to))
                } else {
                    rows.moves.append(RowChange(kind: .move, id: id, indexPath: from, newIndexPath: to))
                }
            }
        }
        for (id, to) in newPaths where !wasIn.contains(id) {
            rows.inserts.append(RowChange(kind: .insert, id: id, indexPath: nil, newIndexPath: to))
            changedNew.append(to)
        }
        let mustMove = SectionedIndex.rowsThatMustMove(staying, changedOld: changedOld, changedNew: changedNew)
        for row in staying {
            let kind: ChangeKind = mustMove.contains(row.id) ? .move : .update
            let change = RowChange(kind: kind, id: row.id, indexPath: row.old, newIndexPath: row.new)
            if kind == .move { rows.moves.append(change) } else { rows.updates.append(change) }
        }
        batch.rowChanges = rows.inBatchOrder
        return batch
    }
}

extension Equatable {
    /// Whether `other` is a value of this type equal to this one: the comparison of two values
    /// of a generic type known to be `Equatable` only at run time.
    fileprivate func isEqual(to other: Any) -> Bool {
        guard let other = other as? Self else { return false }
        return self == other
    }
}
