import Foundation
import GRDB

/// Where a row belongs in a result: its section value and its sort values.
///
/// Two keys are equal only when SQLite would find every value equal (byte-exact text).
struct RowKey: Equatable {
    var section: DatabaseValue
    var sort: [DatabaseValue]

    static func == (a: RowKey, b: RowKey) -> Bool {
        SQLiteOrdering.compare(a.section, b.section) == 0
            && a.sort.count == b.sort.count
            && zip(a.sort, b.sort).allSatisfy { SQLiteOrdering.compare($0, $1) == 0 }
    }
}

/// The sorted, sectioned order of a result, holding ids and sort keys only.
///
/// Rows are ordered by their sort values under the directions of the sort descriptors,
/// then by id; sections by the order of their rows. Sort values live in a `KeyStore`;
/// sections hold slots. Applying a set of changed rows costs O(k log n) comparisons plus
/// the moves of array elements (for one row moving within its section, only the rows it
/// passes), and yields the change batch.
struct SectionedIndex {
    struct Section {
        var intern: Int32
        var value: DatabaseValue
        var name: String
        var slots: [Int32]
    }

    private(set) var store: KeyStore
    private(set) var sections: [Section] = []
    private var internNumbers: [ExactValue: Int32] = [:]
    private var internedValues: [DatabaseValue] = []
    private var positionOfIntern: [Int32: Int] = [:]
    /// True for a result without a section key: it has exactly one section, even when empty.
    let isUnsectioned: Bool

    var ascending: [Bool] { store.ascending }

    /// An empty index. An unsectioned one holds its one (empty) section from the start, and
    /// every row's section value must be NULL.
    init(ascending: [Bool], unsectioned: Bool) {
        store = KeyStore(ascending: ascending)
        isUnsectioned = unsectioned
        if unsectioned {
            let intern = self.intern(.null)
            positionOfIntern[intern] = 0
            sections = [Section(intern: intern, value: .null, name: "", slots: [])]
        }
    }

    /// Builds the index from rows already in result order.
    ///
    /// Fails with `sectionOutOfOrder` when a section value comes back after another section began.
    init<Rows: Sequence>(ascending: [Bool], unsectioned: Bool, sortedRows: Rows, sectionName: (DatabaseValue) -> String) throws
    where Rows.Element == (id: RecordID, key: RowKey) {
        self.init(ascending: ascending, unsectioned: unsectioned)
        for (id, key) in sortedRows {
            try appendSorted(id: id, section: key.section, sectionName: sectionName) { key.sort[$0] }
        }
    }

    /// Adds a row after all others; rows must come in result order.
    mutating func appendSorted(id: RecordID, section value: DatabaseValue, sectionName: (DatabaseValue) -> String, sortValues: (Int) -> DatabaseValue) throws {
        let intern = self.intern(value)
        if sections.last?.intern != intern {
            if positionOfIntern[intern] != nil { throw Self.outOfOrder(sectionName(value), id: id) }
            positionOfIntern[intern] = sections.count
            sections.append(Section(intern: intern, value: value, name: sectionName(value), slots: []))
        }
        let slot = store.store(id: id, section: intern, sortValues: sortValues)
        sections[sections.count - 1].slots.append(Int32(slot))
    }

    /// Adds a row after all others, in the same section as the last row (the caller knows).
    mutating func appendToLastSection(id: RecordID, sortValues: (Int) -> DatabaseValue) {
        let last = sections.count - 1
        let slot = store.store(id: id, section: sections[last].intern, sortValues: sortValues)
        sections[last].slots.append(Int32(slot))
    }

    mutating func reserveCapacity(_ capacity: Int) {
        store.reserveCapacity(capacity)
    }

    /// The index as plain arrays in result order: each section's value and row count, and one
    /// entry per row in every array. `init(sections:ids:columns:)` rebuilds it.
    func exported() -> (sections: [(value: DatabaseValue, count: Int)], ids: [RecordID], columns: [KeyStore.Column]) {
        let slots = sections.flatMap(\.slots)
        let described = sections.filter { !$0.slots.isEmpty }.map { ($0.value, $0.slots.count) }
        return (described, slots.map { store.ids[Int($0)] }, store.columns.map { $0.gather(slots) })
    }

    /// Rebuilds an index from `exported()`'s arrays, trusting their order. Nil when they do
    /// not describe an index: counts that disagree, an id or a section value that repeats.
    init?(ascending: [Bool], unsectioned: Bool, sections described: [(value: DatabaseValue, count: Int)], ids: [RecordID], columns: [KeyStore.Column], sectionName: (DatabaseValue) -> String) {
        self.init(ascending: ascending, unsectioned: unsectioned)
        if unsectioned {
            guard described.count <= 1, described.allSatisfy({ $0.value.isNull }) else { return nil }
            sections = []
            positionOfIntern = [:]
        }
        var sectionOfSlot: [Int32] = []
        sectionOfSlot.reserveCapacity(ids.count)
        var start: Int32 = 0
        for (value, count) in described {
            let intern = self.intern(value)
            guard positionOfIntern[intern] == nil, count > 0, Int(start) + count <= ids.count else { return nil }
            positionOfIntern[intern] = sections.count
            sections.append(Section(intern: intern, value: value, name: sectionName(value), slots: Array(start..<start + Int32(count))))
            sectionOfSlot.append(contentsOf: repeatElement(intern, count: count))
            start += Int32(count)
        }
        guard Int(start) == ids.count,
              let store = KeyStore(ascending: ascending, ids: ids, sectionOfSlot: sectionOfSlot, columns: columns) else { return nil }
        self.store = store
        if unsectioned && sections.isEmpty {
            let intern = self.intern(.null)
            positionOfIntern[intern] = 0
            sections = [Section(intern: intern, value: .null, name: "", slots: [])]
        }
    }

    private mutating func intern(_ value: DatabaseValue) -> Int32 {
        let exact = ExactValue(value)
        if let number = internNumbers[exact] { return number }
        let number = Int32(internedValues.count)
        internNumbers[exact] = number
        internedValues.append(value)
        return number
    }

    private static func outOfOrder(_ name: String, id: RecordID) -> LiveResultsError {
        LiveResultsError(.sectionOutOfOrder, """
            Out of order section name “\(name)” at row \(id): \
            the first sort descriptor must order rows like the section key.
            """)
    }

    // MARK: - Reading

    var count: Int { store.count }

    func rowCount(inSection section: Int) -> Int { sections[section].slots.count }

    func id(at indexPath: IndexPath) -> RecordID {
        store.ids[Int(sections[indexPath.section].slots[indexPath.row])]
    }

    /// The ids of a range of rows of a section.
    func ids(inSection section: Int, rows: Range<Int>) -> [RecordID] {
        sections[section].slots[rows].map { store.ids[Int($0)] }
    }

    /// Every id, in result order.
    var allIDs: [RecordID] {
        sections.flatMap { $0.slots.map { store.ids[Int($0)] } }
    }

    func key(for id: RecordID) -> RowKey? {
        guard let slot = store.slot(for: id) else { return nil }
        return RowKey(section: internedValues[Int(store.sectionOfSlot[slot])], sort: store.sortValues(at: slot))
    }

    /// The place of a row, found by binary search on its sort key.
    func indexPath(for id: RecordID) -> IndexPath? {
        guard let slot = store.slot(for: id), let section = positionOfIntern[store.sectionOfSlot[slot]] else { return nil }
        return IndexPath(row: insertionIndex(of: slot, in: sections[section].slots), section: section)
    }

    func contains(_ id: RecordID) -> Bool {
        store.slot(for: id) != nil
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
    func prefix(_ count: Int, sectionName: (DatabaseValue) -> String) -> SectionedIndex {
        var result = SectionedIndex(ascending: ascending, unsectioned: isUnsectioned)
        result.reserveCapacity(min(count, self.count))
        for (_, id) in ids(inPositions: 0..<min(count, self.count)) {
            let slot = store.slot(for: id)!
            // The rows come in order from a valid index: appending cannot fail.
            try! result.appendSorted(id: id, section: internedValues[Int(store.sectionOfSlot[slot])], sectionName: sectionName) {
                store.columns[$0].value(at: slot)
            }
        }
        return result
    }

    // MARK: - Ordering

    /// The first index whose row does not sort before the row in `slot`.
    private func insertionIndex(of slot: Int, in slots: [Int32], skipping skipped: Int? = nil) -> Int {
        // With `skipped`, search as if the element at that index were absent.
        let count = slots.count - (skipped == nil ? 0 : 1)
        var low = 0
        var high = count
        while low < high {
            let mid = (low + high) / 2
            let index = skipped.map { mid >= $0 ? mid + 1 : mid } ?? mid
            if store.compare(Int(slots[index]), slot) < 0 { low = mid + 1 } else { high = mid }
        }
        return low
    }

    /// The index at which a new section starting with the row in `slot` belongs.
    private func sectionInsertionIndex(of slot: Int) -> Int {
        var low = 0
        var high = sections.count
        while low < high {
            let mid = (low + high) / 2
            if store.compare(Int(sections[mid].slots[0]), slot) < 0 { low = mid + 1 } else { high = mid }
        }
        return low
    }

    private mutating func reindexSections() {
        positionOfIntern.removeAll(keepingCapacity: true)
        for (index, section) in sections.enumerated() { positionOfIntern[section.intern] = index }
    }

    // MARK: - Applying changes

    /// Moves the changed rows to their new places and returns the batch that describes it.
    ///
    /// `changes` gives, for every row a commit touched, its new key, or nil when it was deleted
    /// or no longer matches. On `sectionOutOfOrder` the index is left as it was.
    mutating func apply(_ changes: [(id: RecordID, key: RowKey?)], sectionName: (DatabaseValue) -> String) throws -> ChangeBatch {
        // One row changing within its section (a tap) needs no bookkeeping.
        if changes.count == 1, let key = changes[0].key, let batch = moveWithinSection(changes[0].id, to: key) {
            return batch
        }
        // The last word on each row wins.
        var newKeys: [RecordID: RowKey?] = [:]
        for change in changes { newKeys[change.id] = change.key }
        let changed = newKeys.filter { id, key in store.slot(for: id) != nil || key != nil }
        guard let first = changed.first else { return ChangeBatch() }
        if changed.count == 1, let key = first.value, let batch = moveWithinSection(first.key, to: key) {
            return batch
        }

        let oldSections = sections.map { (value: $0.value, name: $0.name) }
        var oldPaths: [RecordID: IndexPath] = [:]
        var oldKeys: [RecordID: RowKey] = [:]
        for id in changed.keys {
            if let path = indexPath(for: id) {
                oldPaths[id] = path
                oldKeys[id] = key(for: id)
            }
        }
        place(changed, oldPaths: oldPaths, sectionName: sectionName)
        do {
            try checkSectionOrder()
        } catch {
            // Put every changed row back where it was; the old order was valid.
            let undo = Dictionary(uniqueKeysWithValues: changed.keys.map { ($0, oldKeys[$0]) })
            let newPaths = Dictionary(uniqueKeysWithValues: changed.keys.compactMap { id in indexPath(for: id).map { (id, $0) } })
            place(undo, oldPaths: newPaths, sectionName: sectionName)
            throw error
        }

        // Sections: identity is the section value. A surviving section whose order relative to
        // the others changed cannot be expressed as a move (there are no section moves), so it
        // is deleted and inserted again, with all its rows.
        let survivors = sections.indices.compactMap { new in
            oldSections.firstIndex { SQLiteOrdering.compare($0.value, sections[new].value) == 0 }.map { (old: $0, new: new) }
        }
        // Keep in place the sections holding the most untouched rows: those rows never moved.
        // Counting them costs O(n), so only when sections did trade places (rare).
        let oldIndices = survivors.map(\.old)
        let stable: Set<Int>
        if zip(oldIndices, oldIndices.dropFirst()).allSatisfy({ $0 < $1 }) {
            stable = Set(oldIndices)
        } else {
            let weights = survivors.map { survivor in
                sections[survivor.new].slots.reduce(0) { $0 + (changed[store.ids[Int($1)]] == nil ? 1 : 0) }
            }
            stable = Set(Self.heaviestIncreasingRun(oldIndices, weights: weights))
        }
        var deletedSections = Set(oldSections.indices)
        var insertedSections = Set(sections.indices)
        for survivor in survivors where stable.contains(survivor.old) {
            deletedSections.remove(survivor.old)
            insertedSections.remove(survivor.new)
        }

        var batch = ChangeBatch()
        for index in deletedSections.sorted(by: >) {
            batch.sectionChanges.append(SectionChange(kind: .delete, index: index, name: oldSections[index].name))
        }
        for index in insertedSections.sorted() {
            batch.sectionChanges.append(SectionChange(kind: .insert, index: index, name: sections[index].name))
        }

        var deletes: [RowChange] = []
        var inserts: [RowChange] = []
        var moves: [RowChange] = []
        var updates: [RowChange] = []
        // Rows that stay in a surviving section: moves or updates, decided by relative order.
        var staying: [(id: RecordID, old: IndexPath, new: IndexPath)] = []
        for id in changed.keys {
            let old = oldPaths[id]
            let new = self.indexPath(for: id)
            switch (old, new) {
            case let (old?, new?):
                if deletedSections.contains(old.section) || insertedSections.contains(new.section) {
                    // Never a move across a section insert or delete (rule 4).
                    deletes.append(RowChange(kind: .delete, id: id, indexPath: old, newIndexPath: nil))
                    inserts.append(RowChange(kind: .insert, id: id, indexPath: nil, newIndexPath: new))
                } else if SQLiteOrdering.compare(oldSections[old.section].value, sections[new.section].value) == 0 {
                    staying.append((id, old, new))
                } else {
                    moves.append(RowChange(kind: .move, id: id, indexPath: old, newIndexPath: new))
                }
            case let (old?, nil):
                deletes.append(RowChange(kind: .delete, id: id, indexPath: old, newIndexPath: nil))
            case let (nil, new?):
                inserts.append(RowChange(kind: .insert, id: id, indexPath: nil, newIndexPath: new))
            case (nil, nil):
                break
            }
        }
        let mustMove = Self.rowsThatMustMove(staying, changedOld: Array(oldPaths.values), changedNew: changed.keys.compactMap { indexPath(for: $0) })
        for row in staying {
            if mustMove.contains(row.id) {
                moves.append(RowChange(kind: .move, id: row.id, indexPath: row.old, newIndexPath: row.new))
            } else {
                updates.append(RowChange(kind: .update, id: row.id, indexPath: row.old, newIndexPath: row.new))
            }
        }
        // Unchanged rows of a section deleted and inserted again go with it.
        for survivor in survivors where !stable.contains(survivor.old) {
            let oldOrder = oldOrder(ofSection: survivor.new, changed: changed, oldKeys: oldKeys)
            for (row, id) in oldOrder.enumerated() where changed[id] == nil {
                deletes.append(RowChange(kind: .delete, id: id, indexPath: IndexPath(row: row, section: survivor.old), newIndexPath: nil))
            }
            for (row, slot) in sections[survivor.new].slots.enumerated() where changed[store.ids[Int(slot)]] == nil {
                inserts.append(RowChange(kind: .insert, id: store.ids[Int(slot)], indexPath: nil, newIndexPath: IndexPath(row: row, section: survivor.new)))
            }
        }
        deletes.sort { $0.indexPath! > $1.indexPath! }
        inserts.sort { $0.newIndexPath! < $1.newIndexPath! }
        moves.sort { $0.newIndexPath! < $1.newIndexPath! }
        updates.sort { $0.newIndexPath! < $1.newIndexPath! }
        batch.rowChanges = deletes + inserts + moves + updates
        return batch
    }

    /// Of the changed rows that stay in their (surviving) section, the fewest that must be
    /// reported as moves so that a table view, keeping every other row in its relative order,
    /// ends with the new result (rule 2 of the semantics).
    ///
    /// The unchanged rows of a section keep their order, so they cut it into gaps; a changed row
    /// must move when it lands in another gap (another number of unchanged rows before it).
    /// Within one gap, the longest run of rows already in order stays, the rest move.
    /// `changedOld` and `changedNew` are the old and new places of every changed row.
    /// Costs O(k log k) for k changed rows.
    static func rowsThatMustMove(_ staying: [(id: RecordID, old: IndexPath, new: IndexPath)], changedOld: [IndexPath], changedNew: [IndexPath]) -> Set<RecordID> {
        guard !staying.isEmpty else { return [] }
        let oldSorted = changedOld.sorted()
        let newSorted = changedNew.sorted()
        /// The number of paths in `sorted` in the same section as `path` and before it.
        func changedBefore(_ path: IndexPath, in sorted: [IndexPath]) -> Int {
            func firstIndex(notBefore target: IndexPath) -> Int {
                var low = 0, high = sorted.count
                while low < high {
                    let mid = (low + high) / 2
                    if sorted[mid] < target { low = mid + 1 } else { high = mid }
                }
                return low
            }
            return firstIndex(notBefore: path) - firstIndex(notBefore: IndexPath(row: 0, section: path.section))
        }
        var mustMove = Set<RecordID>()
        // Rows grouped by their section and gap, when the gap did not change.
        var gaps: [[Int]: [(id: RecordID, oldRow: Int, newRow: Int)]] = [:]
        for row in staying {
            let oldGap = row.old.row - changedBefore(row.old, in: oldSorted)
            let newGap = row.new.row - changedBefore(row.new, in: newSorted)
            if oldGap != newGap {
                mustMove.insert(row.id)
            } else {
                gaps[[row.new.section, newGap], default: []].append((row.id, row.old.row, row.new.row))
            }
        }
        for (_, rows) in gaps where rows.count > 1 {
            let byOld = rows.sorted { $0.oldRow < $1.oldRow }
            let kept = Set(longestIncreasingRun(byOld.map(\.newRow)).map { byOld[$0].id })
            for row in byOld where !kept.contains(row.id) { mustMove.insert(row.id) }
        }
        return mustMove
    }

    /// The indices of a longest strictly increasing subsequence of `values` (patience sorting).
    static func longestIncreasingRun(_ values: [Int]) -> [Int] {
        var tails: [Int] = []          // index into values of the smallest tail of each length
        var previous = [Int](repeating: -1, count: values.count)
        for (i, value) in values.enumerated() {
            var low = 0, high = tails.count
            while low < high {
                let mid = (low + high) / 2
                if values[tails[mid]] < value { low = mid + 1 } else { high = mid }
            }
            if low > 0 { previous[i] = tails[low - 1] }
            if low == tails.count { tails.append(i) } else { tails[low] = i }
        }
        var run: [Int] = []
        var i = tails.last ?? -1
        while i >= 0 {
            run.append(i)
            i = previous[i]
        }
        return run.reversed()
    }

    /// The common case, one row changing within its section (a tap): the row is moved past
    /// the rows it overtakes, and nothing else moves. Nil when the case does not apply.
    private mutating func moveWithinSection(_ id: RecordID, to key: RowKey) -> ChangeBatch? {
        guard let slot = store.slot(for: id) else { return nil }
        let intern = store.sectionOfSlot[slot]
        guard SQLiteOrdering.compare(internedValues[Int(intern)], key.section) == 0, let s = positionOfIntern[intern] else { return nil }
        let oldRow = insertionIndex(of: slot, in: sections[s].slots)
        let oldSort = store.sortValues(at: slot)
        store.store(id: id, section: intern) { key.sort[$0] }
        let newRow = insertionIndex(of: slot, in: sections[s].slots, skipping: oldRow)
        // The row must stay between the neighbouring sections; otherwise take the general path.
        let last = sections[s].slots.count - 1
        if (newRow == 0 && s > 0 && store.compare(Int(sections[s - 1].slots[sections[s - 1].slots.count - 1]), slot) > 0)
            || (newRow == last && s < sections.count - 1 && store.compare(slot, Int(sections[s + 1].slots[0])) > 0) {
            store.store(id: id, section: intern) { oldSort[$0] }
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
    private mutating func place(_ changed: [RecordID: RowKey?], oldPaths: [RecordID: IndexPath], sectionName: (DatabaseValue) -> String) {
        // Last place first, so earlier places stay valid.
        for path in oldPaths.values.sorted(by: >) {
            sections[path.section].slots.remove(at: path.row)
        }
        if !isUnsectioned { sections.removeAll { $0.slots.isEmpty } }
        reindexSections()
        for (id, key) in changed {
            guard let key else {
                store.remove(id: id)
                continue
            }
            let intern = self.intern(key.section)
            let slot = store.store(id: id, section: intern) { key.sort[$0] }
            if let s = positionOfIntern[intern] {
                sections[s].slots.insert(Int32(slot), at: insertionIndex(of: slot, in: sections[s].slots))
            } else {
                let s = sectionInsertionIndex(of: slot)
                sections.insert(Section(intern: intern, value: key.section, name: sectionName(key.section), slots: [Int32(slot)]), at: s)
                reindexSections()
            }
        }
    }

    /// The ids a section held before a batch, in order: its rows now, less those that came
    /// in, plus those that left. Used only when a section changes place among the others.
    private func oldOrder(ofSection section: Int, changed: [RecordID: RowKey?], oldKeys: [RecordID: RowKey]) -> [RecordID] {
        let value = sections[section].value
        var rows: [(id: RecordID, sort: [DatabaseValue])] = sections[section].slots.compactMap { slot in
            let id = store.ids[Int(slot)]
            return changed[id] == nil ? (id, store.sortValues(at: Int(slot))) : nil
        }
        for (id, key) in oldKeys where SQLiteOrdering.compare(key.section, value) == 0 {
            rows.append((id, key.sort))
        }
        let ascending = store.ascending
        func precedes(_ a: (id: RecordID, sort: [DatabaseValue]), _ b: (id: RecordID, sort: [DatabaseValue])) -> Bool {
            for i in ascending.indices {
                let c = SQLiteOrdering.compare(a.sort[i], b.sort[i])
                if c != 0 { return ascending[i] ? c < 0 : c > 0 }
            }
            return a.id < b.id
        }
        return rows.sorted(by: precedes).map(\.id)
    }

    /// The elements of a strictly increasing subsequence of `values` with the largest total
    /// weight (ties: the longest). Quadratic, for the handful of sections that survive a batch.
    static func heaviestIncreasingRun(_ values: [Int], weights: [Int]) -> [Int] {
        guard !values.isEmpty else { return [] }
        // Score each choice by weight first, then by count, so ties keep more sections.
        var best = values.indices.map { (weight: weights[$0], count: 1) }
        var previous = Array(repeating: -1, count: values.count)
        for i in values.indices {
            for j in 0..<i where values[j] < values[i] {
                let candidate = (weight: best[j].weight + weights[i], count: best[j].count + 1)
                if candidate > best[i] {
                    best[i] = candidate
                    previous[i] = j
                }
            }
        }
        var i = values.indices.max { best[$0] < best[$1] } ?? 0
        var run: [Int] = []
        while i >= 0 {
            run.append(values[i])
            i = previous[i]
        }
        return run.reversed()
    }

    /// Every section's rows must sort after the previous section's rows.
    private func checkSectionOrder() throws {
        guard !isUnsectioned else { return }
        for s in sections.indices.dropFirst() {
            let last = Int(sections[s - 1].slots[sections[s - 1].slots.count - 1])
            let first = Int(sections[s].slots[0])
            if store.compare(last, first) > 0 {
                throw Self.outOfOrder(sections[s].name, id: store.ids[first])
            }
        }
    }

    /// Verifies every invariant of the index; for tests.
    func _checkInvariants() {
        var seen = 0
        if isUnsectioned { precondition(sections.count == 1 && sections[0].value.isNull, "an unsectioned result has one section") }
        for (s, section) in sections.enumerated() {
            precondition(isUnsectioned || !section.slots.isEmpty, "empty section \(s)")
            precondition(positionOfIntern[section.intern] == s, "section lookup out of date")
            for (r, slot) in section.slots.enumerated() {
                precondition(store.sectionOfSlot[Int(slot)] == section.intern, "section of slot \(slot) out of date")
                precondition(store.slot(for: store.ids[Int(slot)]) == Int(slot), "slot map out of date")
                if r > 0 {
                    precondition(store.compare(Int(section.slots[r - 1]), Int(slot)) < 0, "rows out of order in section \(s)")
                }
                seen += 1
            }
        }
        precondition(seen == store.count, "the store holds rows that are not in a section")
        precondition(positionOfIntern.count == sections.count)
    }
}
