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
/// then by id; sections by the order of their rows. Applying a set of changed rows costs
/// O(k log n) comparisons plus the moves of array elements, and yields the change batch.
struct SectionedIndex {
    struct Entry {
        var id: RecordID
        var sort: [DatabaseValue]
    }

    struct Section {
        var value: DatabaseValue
        var name: String
        var entries: [Entry]
    }

    let ascending: [Bool]
    private(set) var sections: [Section] = []
    private var keys: [RecordID: RowKey] = [:]
    private var sectionIndexByValue: [ExactValue: Int] = [:]

    init(ascending: [Bool]) {
        self.ascending = ascending
    }

    /// Builds the index from rows already in result order.
    ///
    /// Fails with `sectionOutOfOrder` when a section value comes back after another section began.
    init<Rows: Sequence>(ascending: [Bool], sortedRows: Rows, sectionName: (DatabaseValue) -> String) throws
    where Rows.Element == (id: RecordID, key: RowKey) {
        self.ascending = ascending
        for (id, key) in sortedRows {
            if let last = sections.last, SQLiteOrdering.compare(last.value, key.section) == 0 {
                sections[sections.count - 1].entries.append(Entry(id: id, sort: key.sort))
            } else {
                if sectionIndexByValue[ExactValue(key.section)] != nil {
                    throw Self.outOfOrder(sectionName(key.section), id: id)
                }
                sectionIndexByValue[ExactValue(key.section)] = sections.count
                sections.append(Section(value: key.section, name: sectionName(key.section), entries: [Entry(id: id, sort: key.sort)]))
            }
            keys[id] = key
        }
    }

    private static func outOfOrder(_ name: String, id: RecordID) -> LiveResultsError {
        LiveResultsError(.sectionOutOfOrder, """
            Out of order section name “\(name)” at row \(id): \
            the first sort descriptor must order rows like the section key.
            """)
    }

    var count: Int { keys.count }

    func key(for id: RecordID) -> RowKey? { keys[id] }

    func id(at indexPath: IndexPath) -> RecordID {
        sections[indexPath.section].entries[indexPath.row].id
    }

    /// The place of a row, found by binary search on its sort key.
    func indexPath(for id: RecordID) -> IndexPath? {
        guard let key = keys[id], let section = sectionIndexByValue[ExactValue(key.section)] else { return nil }
        let row = insertionIndex(of: id, key.sort, in: sections[section].entries)
        return IndexPath(row: row, section: section)
    }

    // MARK: - Ordering

    /// Compares (sort values, id) pairs in result order.
    func compare(_ a: [DatabaseValue], _ aID: RecordID, _ b: [DatabaseValue], _ bID: RecordID) -> Int {
        for i in 0..<ascending.count {
            let c = SQLiteOrdering.compare(a[i], b[i])
            if c != 0 { return ascending[i] ? c : -c }
        }
        return aID < bID ? -1 : (aID == bID ? 0 : 1)
    }

    /// The first index whose entry does not sort before (sort, id).
    private func insertionIndex(of id: RecordID, _ sort: [DatabaseValue], in entries: [Entry]) -> Int {
        var low = 0
        var high = entries.count
        while low < high {
            let mid = (low + high) / 2
            if compare(entries[mid].sort, entries[mid].id, sort, id) < 0 { low = mid + 1 } else { high = mid }
        }
        return low
    }

    /// The index at which a new section starting with (sort, id) belongs.
    private func sectionInsertionIndex(of id: RecordID, _ sort: [DatabaseValue]) -> Int {
        var low = 0
        var high = sections.count
        while low < high {
            let mid = (low + high) / 2
            let first = sections[mid].entries[0]
            if compare(first.sort, first.id, sort, id) < 0 { low = mid + 1 } else { high = mid }
        }
        return low
    }

    private mutating func reindexSections() {
        sectionIndexByValue.removeAll(keepingCapacity: true)
        for (index, section) in sections.enumerated() { sectionIndexByValue[ExactValue(section.value)] = index }
    }

    // MARK: - Applying changes

    /// Moves the changed rows to their new places and returns the batch that describes it.
    ///
    /// `changes` gives, for every row a commit touched, its new key, or nil when it was deleted
    /// or no longer matches. On `sectionOutOfOrder` the index is left as it was.
    mutating func apply(_ changes: [(id: RecordID, key: RowKey?)], sectionName: (DatabaseValue) -> String) throws -> ChangeBatch {
        // The last word on each row wins.
        var newKeys: [RecordID: RowKey?] = [:]
        for change in changes { newKeys[change.id] = change.key }
        let changed = newKeys.filter { id, key in keys[id] != nil || key != nil }
        guard !changed.isEmpty else { return ChangeBatch() }

        let oldSections = sections.map { (value: $0.value, name: $0.name, count: $0.entries.count) }
        var oldPaths: [RecordID: IndexPath] = [:]
        var oldKeys: [RecordID: RowKey] = [:]
        for id in changed.keys {
            if let path = indexPath(for: id) {
                oldPaths[id] = path
                oldKeys[id] = keys[id]
            }
        }
        place(changed, oldPaths: oldPaths, sectionName: sectionName)
        do {
            try checkSectionOrder()
        } catch {
            // Put every changed row back where it was; the old order was valid.
            let undo = changed.keys.map { ($0, oldKeys[$0]) }
            let newPaths = Dictionary(uniqueKeysWithValues: changed.keys.compactMap { id in indexPath(for: id).map { (id, $0) } })
            place(Dictionary(uniqueKeysWithValues: undo), oldPaths: newPaths, sectionName: sectionName)
            throw error
        }

        // Sections: identity is the section value. A surviving section whose order relative to
        // the others changed cannot be expressed as a move (there are no section moves), so it
        // is deleted and inserted again, with all its rows.
        let survivors = sections.indices.compactMap { new in
            oldSections.firstIndex { SQLiteOrdering.compare($0.value, sections[new].value) == 0 }.map { (old: $0, new: new) }
        }
        // Keep in place the sections holding the most untouched rows: those rows never moved.
        let weights = survivors.map { survivor in
            sections[survivor.new].entries.reduce(0) { $0 + (changed[$1.id] == nil ? 1 : 0) }
        }
        let stable = Set(Self.heaviestIncreasingRun(survivors.map(\.old), weights: weights))
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
        for id in changed.keys {
            let old = oldPaths[id]
            let new = self.indexPath(for: id)
            switch (old, new) {
            case let (old?, new?):
                if deletedSections.contains(old.section) || insertedSections.contains(new.section) {
                    // Never a move across a section insert or delete (rule 4).
                    deletes.append(RowChange(kind: .delete, id: id, indexPath: old, newIndexPath: nil))
                    inserts.append(RowChange(kind: .insert, id: id, indexPath: nil, newIndexPath: new))
                } else if old == new, SQLiteOrdering.compare(oldSections[old.section].value, sections[new.section].value) == 0 {
                    updates.append(RowChange(kind: .update, id: id, indexPath: old, newIndexPath: new))
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
        // Unchanged rows of a section deleted and inserted again go with it.
        for survivor in survivors where !stable.contains(survivor.old) {
            let oldEntries = reconstructOldEntries(ofSection: survivor.new, changed: changed, oldPaths: oldPaths, oldKeys: oldKeys)
            for (row, entry) in oldEntries.enumerated() where changed[entry.id] == nil {
                deletes.append(RowChange(kind: .delete, id: entry.id, indexPath: IndexPath(row: row, section: survivor.old), newIndexPath: nil))
            }
            for (row, entry) in sections[survivor.new].entries.enumerated() where changed[entry.id] == nil {
                inserts.append(RowChange(kind: .insert, id: entry.id, indexPath: nil, newIndexPath: IndexPath(row: row, section: survivor.new)))
            }
        }
        deletes.sort { $0.indexPath! > $1.indexPath! }
        inserts.sort { $0.newIndexPath! < $1.newIndexPath! }
        moves.sort { $0.newIndexPath! < $1.newIndexPath! }
        updates.sort { $0.newIndexPath! < $1.newIndexPath! }
        batch.rowChanges = deletes + inserts + moves + updates
        return batch
    }

    /// Takes the changed rows out of their old places and puts those still in the result
    /// at their new places, creating and removing sections as needed.
    private mutating func place(_ changed: [RecordID: RowKey?], oldPaths: [RecordID: IndexPath], sectionName: (DatabaseValue) -> String) {
        // Last place first, so earlier places stay valid.
        for (id, path) in oldPaths.sorted(by: { $0.value > $1.value }) {
            sections[path.section].entries.remove(at: path.row)
            keys[id] = nil
        }
        sections.removeAll { $0.entries.isEmpty }
        reindexSections()
        for (id, key) in changed {
            guard let key else { continue }
            let entry = Entry(id: id, sort: key.sort)
            if let s = sectionIndexByValue[ExactValue(key.section)] {
                sections[s].entries.insert(entry, at: insertionIndex(of: id, key.sort, in: sections[s].entries))
            } else {
                let s = sectionInsertionIndex(of: id, key.sort)
                sections.insert(Section(value: key.section, name: sectionName(key.section), entries: [entry]), at: s)
                reindexSections()
            }
            keys[id] = key
        }
    }

    /// The entries a section had before a batch: its rows now, less those that came in,
    /// plus those that left. Used only when a section changes place among the others.
    private func reconstructOldEntries(ofSection section: Int, changed: [RecordID: RowKey?], oldPaths: [RecordID: IndexPath], oldKeys: [RecordID: RowKey]) -> [Entry] {
        let value = sections[section].value
        var entries = sections[section].entries.filter { changed[$0.id] == nil }
        for (id, key) in oldKeys where SQLiteOrdering.compare(key.section, value) == 0 {
            entries.append(Entry(id: id, sort: key.sort))
        }
        return entries.sorted { compare($0.sort, $0.id, $1.sort, $1.id) < 0 }
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
        var i = values.indices.max { best[$0] < best[$1] }!
        var run: [Int] = []
        while i >= 0 {
            run.append(values[i])
            i = previous[i]
        }
        return run.reversed()
    }

    /// Every section's rows must sort after the previous section's rows.
    private func checkSectionOrder() throws {
        for s in sections.indices.dropFirst() {
            let last = sections[s - 1].entries[sections[s - 1].entries.count - 1]
            let first = sections[s].entries[0]
            if compare(last.sort, last.id, first.sort, first.id) > 0 {
                throw Self.outOfOrder(sections[s].name, id: first.id)
            }
        }
    }

    /// Verifies every invariant of the index; for tests.
    func _checkInvariants() {
        var seen = 0
        for (s, section) in sections.enumerated() {
            precondition(!section.entries.isEmpty, "empty section \(s)")
            precondition(sectionIndexByValue[ExactValue(section.value)] == s, "section lookup out of date")
            for (r, entry) in section.entries.enumerated() {
                precondition(keys[entry.id] == RowKey(section: section.value, sort: entry.sort), "key of \(entry.id) out of date")
                if r > 0 {
                    let previous = section.entries[r - 1]
                    precondition(compare(previous.sort, previous.id, entry.sort, entry.id) < 0, "rows out of order in section \(s)")
                }
                seen += 1
            }
        }
        precondition(seen == keys.count, "keys hold rows that are not in a section")
        precondition(sectionIndexByValue.count == sections.count)
    }
}
