/// An array of integers stored in the narrowest width that holds every value stored so far:
/// 1, 2, 4 or 8 bytes each.
///
/// Row ids under 2^31 take 4 bytes a row instead of 8, counts under 32,768 take 2, section
/// numbers under 128 one. Storing a value that does not fit widens the whole
/// array once (O(n), the capacity kept); it never narrows again.
struct PackedIntegers {
    enum Storage: InPlacePayload {
        case int8(FlatArray<Int8>)
        case int16(FlatArray<Int16>)
        case int32(FlatArray<Int32>)
        case int64(FlatArray<Int64>)

        /// What the array holds while a case's storage changes in place: an empty array, no buffer.
        static var placeholder: Storage { .int8(FlatArray()) }
    }

    private(set) var storage: Storage

    /// An empty array, one byte an element until a value needs more.
    init() {
        storage = .int8(FlatArray())
    }

    init(storage: Storage) {
        self.storage = storage
    }

    /// The values, in the narrowest width that holds them all.
    init(_ values: [Int64]) {
        var low: Int64 = 0, high: Int64 = 0
        for value in values {
            low = Swift.min(low, value)
            high = Swift.max(high, value)
        }
        switch Self.width(low) > Self.width(high) ? Self.width(low) : Self.width(high) {
        case 1: storage = .int8(FlatArray(values.lazy.map { Int8(truncatingIfNeeded: $0) }))
        case 2: storage = .int16(FlatArray(values.lazy.map { Int16(truncatingIfNeeded: $0) }))
        case 4: storage = .int32(FlatArray(values.lazy.map { Int32(truncatingIfNeeded: $0) }))
        default: storage = .int64(FlatArray(values))
        }
    }

    /// `count` copies of `value`.
    init(repeating value: Int64, count: Int) {
        self.init()
        append(value, count: count)
    }

    /// The number of bytes that hold `value`: 1, 2, 4 or 8.
    static func width(_ value: Int64) -> Int {
        if Int64(Int8.min)...Int64(Int8.max) ~= value { return 1 }
        if Int64(Int16.min)...Int64(Int16.max) ~= value { return 2 }
        if Int64(Int32.min)...Int64(Int32.max) ~= value { return 4 }
        return 8
    }

    /// Bytes an element in the current form.
    var bytesPerElement: Int {
        switch storage {
        case .int8: return 1
        case .int16: return 2
        case .int32: return 4
        case .int64: return 8
        }
    }

    var count: Int {
        switch storage {
        case .int8(let values): return values.count
        case .int16(let values): return values.count
        case .int32(let values): return values.count
        case .int64(let values): return values.count
        }
    }

    var isEmpty: Bool { count == 0 }

    subscript(index: Int) -> Int64 {
        @inline(__always) get {
            switch storage {
            case .int8(let values): return Int64(values[index])
            case .int16(let values): return Int64(values[index])
            case .int32(let values): return Int64(values[index])
            case .int64(let values): return values[index]
            }
        }
    }

    /// Stores `value` at `index` (`index == count` appends), widening the array when needed.
    mutating func set(_ value: Int64, at index: Int) {
        // Each case changes its array where it is (`modifyInPlace`), not a copy of it.
        switch storage {
        case .int8(var values):
            if let narrow = Int8(exactly: value) {
                storage.modifyInPlace(&values, as: Storage.int8) { $0.put(narrow, at: index) }
                return
            }
        case .int16(var values):
            if let narrow = Int16(exactly: value) {
                storage.modifyInPlace(&values, as: Storage.int16) { $0.put(narrow, at: index) }
                return
            }
        case .int32(var values):
            if let narrow = Int32(exactly: value) {
                storage.modifyInPlace(&values, as: Storage.int32) { $0.put(narrow, at: index) }
                return
            }
        case .int64(var values):
            storage.modifyInPlace(&values, as: Storage.int64) { $0.put(value, at: index) }
            return
        }
        widen(toHold: value)
        set(value, at: index)
    }

    mutating func append(_ value: Int64) {
        set(value, at: count)
    }

    /// Appends `count` copies of `value`.
    mutating func append(_ value: Int64, count: Int) {
        guard count > 0 else { return }
        if Self.width(value) > bytesPerElement { widen(toHold: value) }
        switch storage {
        case .int8(var values):
            storage.modifyInPlace(&values, as: Storage.int8) { $0.append(repeating: Int8(truncatingIfNeeded: value), count: count) }
        case .int16(var values):
            storage.modifyInPlace(&values, as: Storage.int16) { $0.append(repeating: Int16(truncatingIfNeeded: value), count: count) }
        case .int32(var values):
            storage.modifyInPlace(&values, as: Storage.int32) { $0.append(repeating: Int32(truncatingIfNeeded: value), count: count) }
        case .int64(var values):
            storage.modifyInPlace(&values, as: Storage.int64) { $0.append(repeating: value, count: count) }
        }
    }

    /// Rewrites every element in the narrowest width that also holds `value`, keeping the capacity.
    private mutating func widen(toHold value: Int64) {
        let width = Swift.max(Self.width(value), bytesPerElement)
        let capacity = self.capacity
        func copy<Wide: FixedWidthInteger>(_: Wide.Type) -> FlatArray<Wide> {
            var wide = FlatArray<Wide>()
            wide.reserveCapacity(capacity)
            for index in 0..<count { wide.append(Wide(truncatingIfNeeded: self[index])) }
            return wide
        }
        switch width {
        case 1: return
        case 2: storage = .int16(copy(Int16.self))
        case 4: storage = .int32(copy(Int32.self))
        default: storage = .int64(copy(Int64.self))
        }
    }

    var capacity: Int {
        switch storage {
        case .int8(let values): return values.capacity
        case .int16(let values): return values.capacity
        case .int32(let values): return values.capacity
        case .int64(let values): return values.capacity
        }
    }

    mutating func reserveCapacity(_ capacity: Int) {
        switch storage {
        case .int8(var values):
            storage.modifyInPlace(&values, as: Storage.int8) { $0.reserveCapacity(capacity) }
        case .int16(var values):
            storage.modifyInPlace(&values, as: Storage.int16) { $0.reserveCapacity(capacity) }
        case .int32(var values):
            storage.modifyInPlace(&values, as: Storage.int32) { $0.reserveCapacity(capacity) }
        case .int64(var values):
            storage.modifyInPlace(&values, as: Storage.int64) { $0.reserveCapacity(capacity) }
        }
    }

    /// The elements at the given indices, in the same width.
    func gather(_ indices: [Int32]) -> PackedIntegers {
        /// `values` at `indices`, written in one pass into an array of their count.
        func gathered<Element>(_ values: FlatArray<Element>) -> FlatArray<Element> {
            FlatArray(count: indices.count) { gathered in
                for (position, index) in indices.enumerated() { gathered[position] = values[Int(index)] }
            }
        }
        switch storage {
        case .int8(let values): return PackedIntegers(storage: .int8(gathered(values)))
        case .int16(let values): return PackedIntegers(storage: .int16(gathered(values)))
        case .int32(let values): return PackedIntegers(storage: .int32(gathered(values)))
        case .int64(let values): return PackedIntegers(storage: .int64(gathered(values)))
        }
    }

    /// Calls `body` with the elements' bytes (little-endian on Linux targets), for the cache.
    func withUnsafeBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        switch storage {
        case .int8(let values): return try values.withUnsafeBytes(body)
        case .int16(let values): return try values.withUnsafeBytes(body)
        case .int32(let values): return try values.withUnsafeBytes(body)
        case .int64(let values): return try values.withUnsafeBytes(body)
        }
    }

    /// Calls `body` with each index and element in order, choosing the width once (for the
    /// loops over every row of a fetch or a cache load).
    @inline(__always)
    func forEach(_ body: (Int, Int64) throws -> Void) rethrows {
        switch storage {
        case .int8(let values): for (index, value) in values.enumerated() { try body(index, Int64(value)) }
        case .int16(let values): for (index, value) in values.enumerated() { try body(index, Int64(value)) }
        case .int32(let values): for (index, value) in values.enumerated() { try body(index, Int64(value)) }
        case .int64(let values): for (index, value) in values.enumerated() { try body(index, value) }
        }
    }

    /// The smallest and largest element; nil when empty.
    var bounds: ClosedRange<Int64>? {
        guard !isEmpty else { return nil }
        switch storage {
        case .int8(let values): return Self.bounds(of: values)
        case .int16(let values): return Self.bounds(of: values)
        case .int32(let values): return Self.bounds(of: values)
        case .int64(let values): return Self.bounds(of: values)
        }
    }

    /// The smallest and largest of `values` (not empty), in one pass of the width's own
    /// comparisons (which the compiler vectorizes), in chunks on several threads for many.
    private static func bounds<Element: FixedWidthInteger>(of values: FlatArray<Element>) -> ClosedRange<Int64> {
        let chunks = ParallelChunks.ranges(values.count, parallel: values.count >= ParallelChunks.parallelItems)
        var bounds = [(low: Element, high: Element)](repeating: (.max, .min), count: chunks.count)
        values.withUnsafeBufferPointer { values in
            bounds.withUnsafeMutableBufferPointer { bounds in
                nonisolated(unsafe) let bounds = bounds
                _ = ParallelChunks.map(chunks) { chunk in
                    var low = Element.max, high = Element.min
                    for value in values[chunk] {
                        low = Swift.min(low, value)
                        high = Swift.max(high, value)
                    }
                    bounds[chunks.firstIndex(of: chunk)!] = (low, high)
                    return 0
                }
            }
        }
        return Int64(bounds.map(\.low).min()!)...Int64(bounds.map(\.high).max()!)
    }

    /// Every element, as 64-bit integers.
    var values: [Int64] {
        (0..<count).map { self[$0] }
    }
}
