import GRDB

/// The sort values of every row, stored by column in slots, compactly: a column of integers
/// takes 8 bytes a row and a column of short texts 16, instead of an array per row.
///
/// Slots are reused after deletes. Ids map to slots through a dense table while ids are
/// dense (the usual rowids), and through a dictionary otherwise.
struct KeyStore {
    /// One sort column, in the most compact form its values allow so far.
    struct Column {
        enum Kind { case integers, texts, values }
        private(set) var kind: Kind = .integers
        private var integers: [Int64] = []
        private var texts: [String] = []
        private var values: [DatabaseValue] = []

        var count: Int {
            switch kind {
            case .integers: return integers.count
            case .texts: return texts.count
            case .values: return values.count
            }
        }

        func value(at slot: Int) -> DatabaseValue {
            switch kind {
            case .integers: return integers[slot].databaseValue
            case .texts: return texts[slot].databaseValue
            case .values: return values[slot]
            }
        }

        /// Compares two slots as SQLite's ORDER BY would (BINARY collation).
        func compare(_ a: Int, _ b: Int) -> Int {
            switch kind {
            case .integers:
                let x = integers[a], y = integers[b]
                return x < y ? -1 : (x == y ? 0 : 1)
            case .texts:
                return SQLiteOrdering.compareBytes(texts[a], texts[b])
            case .values:
                return SQLiteOrdering.compare(values[a], values[b])
            }
        }

        /// Stores a value at a slot (`slot == count` appends), widening the column when the
        /// value does not fit its current form.
        mutating func set(_ value: DatabaseValue, at slot: Int) {
            switch (kind, value.storage) {
            case (.integers, .int64(let int)):
                if slot == integers.count { integers.append(int) } else { integers[slot] = int }
                return
            case (.texts, .string(let string)):
                if slot == texts.count { texts.append(string) } else { texts[slot] = string }
                return
            case (.values, _):
                if slot == values.count { values.append(value) } else { values[slot] = value }
                return
            case (.integers, .string(let string)) where integers.isEmpty:
                kind = .texts
                if slot == texts.count { texts.append(string) } else { texts[slot] = string }
                return
            default:
                widen()
                set(value, at: slot)
            }
        }

        private mutating func widen() {
            switch kind {
            case .integers: values = integers.map(\.databaseValue)
            case .texts: values = texts.map(\.databaseValue)
            case .values: return
            }
            integers = []
            texts = []
            kind = .values
        }

        /// The column's values for the given slots, in the most compact form (for the cache).
        func gather(_ slots: [Int32]) -> Column {
            var column = Column()
            column.kind = kind
            switch kind {
            case .integers: column.integers = slots.map { integers[Int($0)] }
            case .texts: column.texts = slots.map { texts[Int($0)] }
            case .values: column.values = slots.map { values[Int($0)] }
            }
            return column
        }

        /// The stored form, for the cache: exactly one of the three arrays is in use.
        var contents: (integers: [Int64], texts: [String], values: [DatabaseValue]) { (integers, texts, values) }

        init() {}

        init(integers: [Int64]) { self.integers = integers }
        init(texts: [String]) { kind = .texts; self.texts = texts }
        init(values: [DatabaseValue]) { kind = .values; self.values = values }

        mutating func reserveCapacity(_ capacity: Int) {
            switch kind {
            case .integers: integers.reserveCapacity(capacity)
            case .texts: texts.reserveCapacity(capacity)
            case .values: values.reserveCapacity(capacity)
            }
        }
    }

    let ascending: [Bool]
    private(set) var columns: [Column]
    /// The id stored in each slot.
    private(set) var ids: [RecordID] = []
    /// The section (by intern number) of each slot; -1 for a free slot.
    private(set) var sectionOfSlot: [Int32] = []
    private var freeSlots: [Int32] = []
    private var denseSlots: [Int32] = []           // id → slot + 1 (0: absent), while ids are dense
    private var sparseSlots: [RecordID: Int32]?    // id → slot, once they are not
    private(set) var count = 0

    init(ascending: [Bool]) {
        self.ascending = ascending
        columns = ascending.map { _ in Column() }
    }

    /// A store holding `ids[i]` with `columns[c]`'s value i in slot i, in section `sectionOfSlot[i]`.
    /// Nil when the arrays disagree in length or an id repeats.
    init?(ascending: [Bool], ids: [RecordID], sectionOfSlot: [Int32], columns: [Column]) {
        guard columns.count == ascending.count, columns.allSatisfy({ $0.count == ids.count }), sectionOfSlot.count == ids.count else { return nil }
        self.ascending = ascending
        self.columns = columns
        self.ids = ids
        self.sectionOfSlot = sectionOfSlot
        expectedCount = ids.count
        count = ids.count
        if let largest = ids.max(), let smallest = ids.min(), smallest >= 0, largest < Int64(max(1 << 16, 4 * (ids.count + 1))) {
            var dense = [Int32](repeating: 0, count: Int(largest) + 1)
            for (slot, id) in ids.enumerated() {
                guard dense[Int(id)] == 0 else { return nil }
                dense[Int(id)] = Int32(slot + 1)
            }
            denseSlots = dense
        } else if !ids.isEmpty {
            var sparse: [RecordID: Int32] = [:]
            sparse.reserveCapacity(ids.count)
            for (slot, id) in ids.enumerated() {
                guard sparse.updateValue(Int32(slot), forKey: id) == nil else { return nil }
            }
            sparseSlots = sparse
        }
    }

    /// How many rows are expected, so ids up to a few times that stay in the dense table.
    private var expectedCount = 0

    mutating func reserveCapacity(_ capacity: Int) {
        expectedCount = max(expectedCount, capacity)
        for i in columns.indices { columns[i].reserveCapacity(capacity) }
        ids.reserveCapacity(capacity)
        sectionOfSlot.reserveCapacity(capacity)
    }

    // MARK: - Ids and slots

    func slot(for id: RecordID) -> Int? {
        if let sparseSlots { return sparseSlots[id].map(Int.init) }
        guard id >= 0, id < denseSlots.count else { return nil }
        let stored = denseSlots[Int(id)]
        return stored == 0 ? nil : Int(stored - 1)
    }

    private mutating func map(_ id: RecordID, to slot: Int32?) {
        if sparseSlots == nil {
            let dense = id >= 0 && id < Int64(max(1 << 16, 4 * (max(count, expectedCount) + 1)))
            if dense {
                if Int(id) >= denseSlots.count {
                    denseSlots.append(contentsOf: repeatElement(0, count: Int(id) + 1 - denseSlots.count))
                }
                denseSlots[Int(id)] = slot.map { $0 + 1 } ?? 0
                return
            }
            // Ids are too sparse for a table: switch to a dictionary.
            var dictionary: [RecordID: Int32] = [:]
            for (index, stored) in denseSlots.enumerated() where stored != 0 { dictionary[RecordID(index)] = stored - 1 }
            sparseSlots = dictionary
            denseSlots = []
        }
        sparseSlots?[id] = slot
    }

    /// Stores a row's sort values and section; returns its slot.
    @discardableResult
    mutating func store(id: RecordID, section: Int32, sortValues: (Int) -> DatabaseValue) -> Int {
        let slot: Int
        if let existing = self.slot(for: id) {
            slot = existing
        } else if let free = freeSlots.popLast() {
            slot = Int(free)
            count += 1
        } else {
            slot = ids.count
            ids.append(id)
            sectionOfSlot.append(section)
            count += 1
        }
        ids[slot] = id
        sectionOfSlot[slot] = section
        for c in columns.indices { columns[c].set(sortValues(c), at: slot) }
        map(id, to: Int32(slot))
        return slot
    }

    /// Forgets a row.
    mutating func remove(id: RecordID) {
        guard let slot = slot(for: id) else { return }
        map(id, to: nil)
        sectionOfSlot[slot] = -1
        freeSlots.append(Int32(slot))
        count -= 1
    }

    // MARK: - Order

    /// Compares two stored rows in result order (sort values under their directions, then id).
    func compare(_ a: Int, _ b: Int) -> Int {
        for c in columns.indices {
            let result = columns[c].compare(a, b)
            if result != 0 { return ascending[c] ? result : -result }
        }
        let x = ids[a], y = ids[b]
        return x < y ? -1 : (x == y ? 0 : 1)
    }

    func sortValues(at slot: Int) -> [DatabaseValue] {
        columns.map { $0.value(at: slot) }
    }
}
