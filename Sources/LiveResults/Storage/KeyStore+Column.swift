extension KeyStore {
    /// One sort column, in the most compact form its values allow so far: integers (1 to 8
    /// bytes a row), texts (16 bytes a row for short ones), any values, or none at all when
    /// every row's value is its section value (`sectionKey`).
    enum Column: InPlacePayload {
        case integers(PackedIntegers)
        case texts(PackedTexts)
        case values([ColumnValue])
        /// Every row's value is its section's value, which the store keeps once per section:
        /// the first sort column of a sectioned result, which is the section key itself.
        /// Only the store can read such a column; it holds just a count.
        case sectionKey(count: Int)

        init() { self = .integers(PackedIntegers()) }

        /// What the column holds while a case's storage changes in place: no buffer at all.
        static var placeholder: Column { .sectionKey(count: 0) }

        var count: Int {
            switch self {
            case .integers(let integers): return integers.count
            case .texts(let texts): return texts.count
            case .values(let values): return values.count
            case .sectionKey(let count): return count
            }
        }

        var isSectionKey: Bool {
            if case .sectionKey = self { return true }
            return false
        }

        var isTexts: Bool {
            if case .texts = self { return true }
            return false
        }

        /// Stores a text value given as its UTF-8 bytes at a slot (`slot == count` appends),
        /// when the column holds texts and has room; false (nothing stored) otherwise.
        mutating func setText(_ utf8: UnsafeRawBufferPointer, at slot: Int) -> Bool {
            guard case .texts(var texts) = self, PackedTexts.fits(texts.byteCount + utf8.count) else { return false }
            modifyInPlace(&texts, as: Column.texts) { $0.set(utf8, at: slot) }
            return true
        }

        /// The value in a slot; the store answers for a `sectionKey` column.
        func value(at slot: Int) -> ColumnValue {
            switch self {
            case .integers(let integers): return integers[slot].columnValue
            case .texts(let texts): return texts.string(at: slot).columnValue
            case .values(let values): return values[slot]
            case .sectionKey: preconditionFailure("a section key column is read through its store")
            }
        }

        /// Compares two slots as SQLite's ORDER BY would (BINARY collation); the store
        /// compares a `sectionKey` column.
        @inline(__always)
        func compare(_ a: Int, _ b: Int) -> Int {
            switch self {
            case .integers(let integers):
                let x = integers[a], y = integers[b]
                return x < y ? -1 : (x == y ? 0 : 1)
            case .texts(let texts):
                return texts.compare(a, b)
            case .values(let values):
                return SQLiteOrdering.compare(values[a], values[b])
            case .sectionKey:
                preconditionFailure("a section key column is compared by its store")
            }
        }

        /// Stores a value at a slot (`slot == count` appends), widening the column when the
        /// value does not fit its current form.
        mutating func set(_ value: ColumnValue, at slot: Int) {
            switch self {
            case .integers(var integers):
                if case .integer(let int) = value {
                    modifyInPlace(&integers, as: Column.integers) { $0.set(int, at: slot) }
                    return
                }
                if case .text(let string) = value, integers.isEmpty {
                    // A text column after all: keep the room reserved for the rows to come.
                    var texts = PackedTexts()
                    texts.reserveCapacity(integers.capacity)
                    texts.set(string, at: 0)
                    self = .texts(texts)
                    return
                }
            case .texts(var texts):
                if case .text(let string) = value, PackedTexts.fits(texts.byteCount + string.utf8.count) {
                    modifyInPlace(&texts, as: Column.texts) { $0.set(string, at: slot) }
                    return
                }
            case .values(var values):
                modifyInPlace(&values, as: Column.values) { $0.put(value, at: slot) }
                return
            case .sectionKey:
                preconditionFailure("a section key column is set through its store")
            }
            widen()
            set(value, at: slot)
        }

        /// Turns the column into one of any values.
        private mutating func widen() {
            switch self {
            case .integers(let integers): self = .values(integers.values.map(\.columnValue))
            case .texts(let texts): self = .values((0..<texts.count).map { texts.string(at: $0).columnValue })
            case .values, .sectionKey: return
            }
        }

        /// The column's values for the given slots, in the same form (for the cache).
        func gather(_ slots: [Int32]) -> Column {
            switch self {
            case .integers(let integers): return .integers(integers.gather(slots))
            case .texts(let texts): return .texts(texts.gather(slots))
            case .values(let values): return .values(slots.map { values[Int($0)] })
            case .sectionKey: return .sectionKey(count: slots.count)
            }
        }

        mutating func reserveCapacity(_ capacity: Int) {
            switch self {
            case .integers(var integers):
                modifyInPlace(&integers, as: Column.integers) { $0.reserveCapacity(capacity) }
            case .texts(var texts):
                modifyInPlace(&texts, as: Column.texts) { $0.reserveCapacity(capacity) }
            case .values(var values):
                modifyInPlace(&values, as: Column.values) { $0.reserveCapacity(capacity) }
            case .sectionKey:
                return
            }
        }
    }
}
