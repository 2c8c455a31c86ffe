import Foundation
import GRDB

/// Where a row belongs in a result: its section value and its sort values.
struct RowKey: Equatable {
    var section: DatabaseValue
    var sort: [DatabaseValue]
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
    private var sectionIndexByValue: [DatabaseValue: Int] = [:]

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
            if let last = sections.last, last.value == key.section {
                sections[sections.count - 1].entries.append(Entry(id: id, sort: key.sort))
            } else {
                if sectionIndexByValue[key.section] != nil {
                    throw LiveResultsError(.sectionOutOfOrder, """
                        Out of order section name “\(sectionName(key.section))” at row \(id): \
                        the first sort descriptor must order rows like the section key.
                        """)
                }
                sectionIndexByValue[key.section] = sections.count
                sections.append(Section(value: key.section, name: sectionName(key.section), entries: [Entry(id: id, sort: key.sort)]))
            }
            keys[id] = key
        }
    }

    var count: Int { keys.count }

    func key(for id: RecordID) -> RowKey? { keys[id] }

    func id(at indexPath: IndexPath) -> RecordID {
        sections[indexPath.section].entries[indexPath.row].id
    }

    /// The place of a row, found by binary search on its sort key.
    func indexPath(for id: RecordID) -> IndexPath? {
        guard let key = keys[id], let section = sectionIndexByValue[key.section] else { return nil }
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
        for (index, section) in sections.enumerated() { sectionIndexByValue[section.value] = index }
    }

    // MARK: - Applying changes

    /// Moves the changed rows to their new places and returns the batch that describes it.
    ///
    /// `changes` gives, for every row a commit touched, its new key, or nil when it was deleted
    /// or no longer matches. On `sectionOutOfOrder` the index is left inconsistent and must be rebuilt.
    mutating func apply(_ changes: [(id: RecordID, key: RowKey?)], sectionName: (DatabaseValue) -> String) throws -> ChangeBatch {
        // The last word on each row wins.
        var newKeys: [RecordID: RowKey?] = [:]
        for change in changes { newKeys[change.id] = change.key }
        let changed = newKeys.filter { id, key in keys[id] != nil || key != nil }
        guard !changed.isEmpty else { return ChangeBatch() }

        let oldSections = sections.map { (value: $0.value, name: $0.name) }
        var oldPaths: [RecordID: IndexPath] = [:]
        for id in changed.keys {
            if let path = indexPath(for: id) { oldPaths[id] = path }
        }

        // Take every changed row out, last place first so earlier places stay valid.
        for (id, path) in oldPaths.sorted(by: { $0.value > $1.value }) {
            sections[path.section].entries.remove(at: path.row)
            keys[id] = nil
        }
        sections.removeAll { $0.entries.isEmpty }
        reindexSections()

        // Put the rows that are in the result now at their new places, creating sections as needed.
        for (id, key) in changed {
            guard let key else { continue }
            let entry = Entry(id: id, sort: key.sort)
            if let s = sectionIndexByValue[key.section] {
                let row = insertionIndex(of: id, key.sort, in: sections[s].entries)
                sections[s].entries.insert(entry, at: row)
            } else {
                let s = sectionInsertionIndex(of: id, key.sort)
                sections.insert(Section(value: key.section, name: sectionName(key.section), entries: [entry]), at: s)
                reindexSections()
            }
            keys[id] = key
        }
        try checkSectionOrder()

        let oldSectionValues = Set(oldSections.map(\.value))
        let deletedSections = Set(oldSections.indices.filter { sectionIndexByValue[oldSections[$0].value] == nil })
        let insertedSections = Set(sections.indices.filter { !oldSectionValues.contains(sections[$0].value) })

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
                } else if old == new {
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
        deletes.sort { $0.indexPath! > $1.indexPath! }
        inserts.sort { $0.newIndexPath! < $1.newIndexPath! }
        moves.sort { $0.newIndexPath! < $1.newIndexPath! }
        updates.sort { $0.newIndexPath! < $1.newIndexPath! }
        batch.rowChanges = deletes + inserts + moves + updates
        return batch
    }

    /// Every section's rows must sort after the previous section's rows.
    private func checkSectionOrder() throws {
        for s in sections.indices.dropFirst() {
            let last = sections[s - 1].entries[sections[s - 1].entries.count - 1]
            let first = sections[s].entries[0]
            if compare(last.sort, last.id, first.sort, first.id) > 0 {
                throw LiveResultsError(.sectionOutOfOrder, """
                    Out of order section name “\(sections[s].name)” at row \(first.id): \
                    the first sort descriptor must order rows like the section key.
                    """)
            }
        }
    }

    /// Verifies every invariant of the index; for tests.
    func _checkInvariants() {
        var seen = 0
        for (s, section) in sections.enumerated() {
            precondition(!section.entries.isEmpty, "empty section \(s)")
            precondition(sectionIndexByValue[section.value] == s, "section lookup out of date")
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
