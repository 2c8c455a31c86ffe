import GRDB

/// The sort values of every row, stored by column in slots, compactly: a column of integers
/// takes 8 bytes a row and a column of short texts 16, instead of an array per row.
///
/// Slots are reused after deletes. Ids map to slots through a dense table while ids are
/// dense (the usual rowids), and through a dictionary otherwise.
struct KeyStore {
    /// One sort column, in the most compact form its values allow so far: integers (8 bytes a
    /// row), texts (16 bytes a row for short ones), or any values.
    enum Column {
        case integers([Int64])
        case texts([String])
        case values([DatabaseValue])

        init() { self = .integers([]) }

        var count: Int {
            switch self {
            case .integers(let integers): return integers.count
            case .texts(let texts): return texts.count
            case .values(let values): return values.count
            }
        }

        func value(at slot: Int) -> DatabaseValue {
            switch self {
            case .integers(let integers): return integers[slot].databaseValue
            case .texts(let texts): return texts[slot].databaseValue
            case .values(let values): return values[slot]
            }
        }

        /// Compares two slots as SQLite's ORDER BY would (BINARY collation).
        func compare(_ a: Int, _ b: Int) -> Int {
            switch self {
            case .integers(let integers):
                let x = integers[a], y = integers[b]
                return x < y ? -1 : (x == y ? 0 : 1)
            case .texts(let texts):
                return SQLiteOrdering.compareBytes(texts[a], texts[b])
            case .values(let values):
                return SQLiteOrdering.compare(values[a], values[b])
            }
        }

        /// Stores a value at a slot (`slot == count` appends), widening the column when the
        /// value does not fit its current form.
        mutating func set(_ value: DatabaseValue, at slot: Int) {
            // Each case takes its array out of `self` (switching on `self` alone: a tuple
            // would hold a second reference), so that the array is uniquely referenced and
            // changes in place instead of being copied whole.
            switch self {
            case .integers(var integers):
                if case .int64(let int) = value.storage {
                    self = .values([])
                    Self.put(int, at: slot, in: &integers)
                    self = .integers(integers)
                    return
                }
                if case .string(let string) = value.storage, integers.isEmpty {
                    // A text column after all: keep the room reserved for the rows to come.
                    var texts: [String] = []
                    texts.reserveCapacity(integers.capacity)
                    texts.append(string)
                    self = .texts(texts)
                    return
                }
            case .texts(var texts):
                if case .string(let string) = value.storage {
                    self = .values([])
                    Self.put(string, at: slot, in: &texts)
                    self = .texts(texts)
                    return
                }
            case .values(var values):
                self = .integers([])
                Self.put(value, at: slot, in: &values)
                self = .values(values)
                return
            }
            widen()
            set(value, at: slot)
        }

        private static func put<Element>(_ element: Element, at slot: Int, in array: inout [Element]) {
            if slot == array.count { array.append(element) } else { array[slot] = element }
        }

        /// Turns the column into one of any values.
        private mutating func widen() {
            switch self {
            case .integers(let integers): self = .values(integers.map(\.databaseValue))
            case .texts(let texts): self = .values(texts.map(\.databaseValue))
            case .values: return
            }
        }

        /// The column's values for the given slots, in the same form (for the cache).
        func gather(_ slots: [Int32]) -> Column {
            switch self {
            case .integers(let integers): return .integers(slots.map { integers[Int($0)] })
            case .texts(let texts): return .texts(slots.map { texts[Int($0)] })
            case .values(let values): return .values(slots.map { values[Int($0)] })
            }
        }

        mutating func reserveCapacity(_ capacity: Int) {
            switch self {
            case .integers(var integers):
                self = .values([])
                integers.reserveCapacity(capacity)
                self = .integers(integers)
            case .texts(var texts):
                self = .values([])
                texts.reserveCapacity(capacity)
                self = .texts(texts)
            case .values(var values):
                self = .integers([])
                values.reserveCapacity(capacity)
                self = .values(values)
            }
        }
    }

    let ascending: [Bool]
    private(set) var columns: [Column]
    /// The id stored in each slot.
    private(set) var ids: [RecordID] = []
    /// The section (by number number) of each slot; -1 for a free slot.
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

    /// Verifies the store's invariants (a clear-box check): arrays of one length, every used
    /// slot found from its id, every free slot marked free and free once.
    func _checkInvariants() {
        precondition(sectionOfSlot.count == ids.count, "one section per slot")
        precondition(columns.allSatisfy { $0.count == ids.count }, "one value per slot in every column")
        let free = Set(freeSlots)
        precondition(free.count == freeSlots.count, "a slot is free twice")
        precondition(count == ids.count - freeSlots.count, "count out of date")
        for slot in ids.indices {
            if free.contains(Int32(slot)) {
                precondition(sectionOfSlot[slot] == -1, "free slot \(slot) still has a section")
            } else {
                precondition(self.slot(for: ids[slot]) == slot, "slot map out of date for slot \(slot)")
            }
        }
        precondition(sparseSlots == nil || denseSlots.isEmpty, "ids map through one table")
    }
}
