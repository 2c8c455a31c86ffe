import Foundation

/// One text column of every row of a result, kept in memory for a filter (`ResultsFilter`):
/// the UTF-8 bytes of each slot's value (slots as in the result's `KeyStore`) one after
/// another in a single buffer, with each slot's start and length; the first bytes of every
/// value transposed by position (`BytePlanes`), where a needle is found; and the slots with a
/// value and those with a value longer than the planes. A 12-byte value takes about 37 bytes
/// in all; no `String` is made.
///
/// A value that grows is written at the end of the buffer; the buffer is compacted when more
/// than half of it is no longer used.
struct TextColumn {
    /// The bytes of every value.
    private(set) var bytes: [UInt8] = []
    /// Where each slot's value starts in `bytes`.
    private(set) var starts: [UInt32] = []
    /// Each slot's length in bytes; -1 for NULL (or a slot with no value yet).
    private(set) var lengths: [Int32] = []
    /// The first bytes of every value, by position.
    private(set) var planes: BytePlanes
    /// The slots that hold a value (the empty text included), one bit a slot.
    private(set) var valued: [UInt64]
    /// The slots whose value is longer than the planes, one bit a slot, and how many.
    private(set) var long: [UInt64]
    private(set) var longCount = 0
    /// Bytes of `bytes` that no slot uses any more.
    private var unused = 0
    /// Zero bytes at the end of `bytes`, so that `find` may read 8 bytes from any value's byte.
    private static let padding = 8

    /// Throws unless a value of `count` bytes can join a buffer of `byteCount` bytes: starts
    /// are 32-bit, lengths under `Int32.max`.
    fileprivate static func checkRoom(adding count: Int, to byteCount: Int) throws {
        guard count < Int32.max, byteCount + count + padding < Int(UInt32.max) else {
            throw LiveResultsError(.database, "A filter's column holds more text than fits in memory (4 GB).")
        }
    }

    /// A column with no value yet in `slotCount` slots.
    init(slotCount: Int, expectedBytes: Int = 0) {
        starts = Array(repeating: 0, count: slotCount)
        lengths = Array(repeating: -1, count: slotCount)
        planes = BytePlanes(slotCount: slotCount)
        valued = [UInt64](repeating: 0, count: planes.wordCount)
        long = valued
        bytes.reserveCapacity(expectedBytes + Self.padding)
        bytes.append(contentsOf: repeatElement(0, count: Self.padding))
    }

    /// A column holding in each slot `i` the `lengths[i]` bytes at `starts[i]` of `source`
    /// (a length of -1: NULL), laid out in slot order: the values copied, then the planes
    /// filled, each in chunks on several threads from `parallelFrom` slots.
    fileprivate init(slotsOf source: [UInt8], starts sourceStarts: [UInt32], lengths: [Int32], parallelFrom: Int) throws {
        var total = 0
        let starts = lengths.map { length in
            defer { total += max(0, Int(length)) }
            return UInt32(truncatingIfNeeded: total)
        }
        try Self.checkRoom(adding: 0, to: total)
        let slotCount = lengths.count, parallel = slotCount >= parallelFrom
        let wordCount = (slotCount + 63) / 64
        var bytes = [UInt8](repeating: 0, count: total + Self.padding)
        var valued = [UInt64](repeating: 0, count: wordCount), long = valued
        let chunks = ParallelChunks.ranges(wordCount, parallel: parallel)
        // Each chunk writes its own words of `valued` and `long` and its slots' bytes; the
        // arrays it reads are shared, read only.
        let longCount = bytes.withUnsafeMutableBytes { bytes in
            valued.withUnsafeMutableBufferPointer { valued in
                long.withUnsafeMutableBufferPointer { long in
                    nonisolated(unsafe) let output = bytes.baseAddress!, valued = valued, long = long
                    return ParallelChunks.map(chunks) { words in
                        var longCount = 0
                        for word in words {
                            var valuedBits: UInt64 = 0, longBits: UInt64 = 0
                            for slot in word * 64..<min(word * 64 + 64, slotCount) where lengths[slot] >= 0 {
                                let length = Int(lengths[slot]), bit: UInt64 = 1 << UInt64(slot & 63)
                                valuedBits |= bit
                                if length > BytePlanes.width { longBits |= bit; longCount += 1 }
                                guard length > 0 else { continue }
                                let from = Int(sourceStarts[slot])
                                source[from..<from + length].withUnsafeBytes { (output + Int(starts[slot])).copyMemory(from: $0.baseAddress!, byteCount: length) }
                            }
                            valued[word] = valuedBits
                            long[word] = longBits
                        }
                        return longCount
                    }.reduce(0, +)
                }
            }
        }
        let planes = bytes.withUnsafeBufferPointer { bytes in
            BytePlanes(slotCount: slotCount, parallel: parallel) { slot in
                lengths[slot] < 0 ? nil : UnsafeBufferPointer(rebasing: bytes[Int(starts[slot])..<Int(starts[slot]) + Int(lengths[slot])])
            }
        }
        precondition(planes.wordCount == wordCount, "the sets of slots cover the planes")
        self.bytes = bytes
        self.starts = starts
        self.lengths = lengths
        self.planes = planes
        self.valued = valued
        self.long = long
        self.longCount = longCount
    }

    /// The number of slots the column has room for.
    var slotCount: Int { lengths.count }

    /// Sets the value of a slot (nil for NULL), growing the column when the slot is new.
    mutating func set(_ value: UnsafeRawBufferPointer?, at slot: Int) throws {
        if slot >= lengths.count {
            starts.append(contentsOf: repeatElement(0, count: slot + 1 - lengths.count))
            lengths.append(contentsOf: repeatElement(-1, count: slot + 1 - lengths.count))
        }
        try Self.checkRoom(adding: value?.count ?? 0, to: bytes.count)
        let wasValued = lengths[slot] >= 0
        let old = Int(max(lengths[slot], 0))
        planes.set(value?.assumingMemoryBound(to: UInt8.self), at: slot, wasValued: wasValued)
        if planes.wordCount > valued.count {
            valued.append(contentsOf: repeatElement(0, count: planes.wordCount - valued.count))
            long.append(contentsOf: repeatElement(0, count: planes.wordCount - long.count))
        }
        let bit: UInt64 = 1 << UInt64(slot & 63)
        if (value != nil) != wasValued { valued[slot >> 6] ^= bit }
        let isLong = (value?.count ?? 0) > BytePlanes.width
        if isLong != (old > BytePlanes.width) {
            long[slot >> 6] ^= bit
            longCount += isLong ? 1 : -1
        }
        guard let value else {
            unused += old
            lengths[slot] = -1
            return
        }
        if value.count <= old {
            // In place: a value that did not grow keeps its room.
            let start = Int(starts[slot])
            bytes.withUnsafeMutableBufferPointer { buffer in
                for i in 0..<value.count { buffer[start + i] = value[i] }
            }
            unused += old - value.count
        } else {
            // At the end, over the padding, which moves on past it.
            let start = bytes.count - Self.padding
            starts[slot] = UInt32(start)
            bytes.append(contentsOf: repeatElement(0, count: value.count))
            bytes.withUnsafeMutableBytes { buffer in
                UnsafeMutableRawBufferPointer(rebasing: buffer[start..<start + value.count]).copyMemory(from: value)
            }
            unused += old
        }
        lengths[slot] = Int32(value.count)
        if unused > 4096 && unused > (bytes.count - Self.padding) / 2 { compact() }
    }

    /// Sets the value of a slot from bytes (nil for NULL).
    mutating func set(_ value: [UInt8]?, at slot: Int) throws {
        guard let value else { return try set(nil as UnsafeRawBufferPointer?, at: slot) }
        try value.withUnsafeBytes { try set($0, at: slot) }
    }

    /// Writes every value again, in slot order, without the unused bytes: when much is
    /// unused, and after loading the values in another order, so that a pass over the slots
    /// reads the buffer front to back.
    mutating func compact() {
        var packed: [UInt8] = []
        packed.reserveCapacity(bytes.count - unused)
        for slot in lengths.indices where lengths[slot] > 0 {
            let start = Int(starts[slot])
            starts[slot] = UInt32(packed.count)
            packed.append(contentsOf: bytes[start..<start + Int(lengths[slot])])
        }
        packed.append(contentsOf: repeatElement(0, count: Self.padding))
        bytes = packed
        unused = 0
    }

    /// Whether a slot holds exactly `value` (nil: NULL).
    func hasValue(_ value: UnsafeRawBufferPointer?, atSlot slot: Int) -> Bool {
        let length = slot < lengths.count ? Int(lengths[slot]) : -1
        guard let value else { return length < 0 }
        guard length == value.count else { return false }
        let start = Int(starts[slot])
        return bytes[start..<start + length].elementsEqual(value)
    }
}

extension TextColumn {
    /// A column read in bulk, its slots in any order (a table read in rowid order, matched to
    /// an index's slots): each value's bytes are kept as they come, then `column()` sets them
    /// in slot order. Set in slot order, each plane is written front to back; set as they
    /// come, a value's 16 plane bytes land in 16 places a plane apart.
    struct Loader {
        private var bytes: [UInt8] = []
        private var starts: [UInt32]
        private var lengths: [Int32]

        /// A loader for a column of `slotCount` slots, all NULL until given a value.
        init(slotCount: Int, expectedBytes: Int = 0) {
            starts = Array(repeating: 0, count: slotCount)
            lengths = Array(repeating: -1, count: slotCount)
            bytes.reserveCapacity(expectedBytes)
        }

        /// Gives a slot (under `slotCount`) its value (nil: NULL); a slot given twice keeps the last.
        mutating func add(_ value: UnsafeRawBufferPointer?, at slot: Int) throws {
            guard let value else { return lengths[slot] = -1 }
            try TextColumn.checkRoom(adding: value.count, to: bytes.count)
            starts[slot] = UInt32(bytes.count)
            lengths[slot] = Int32(value.count)
            bytes.append(contentsOf: value)
        }

        /// The column of the values given, laid out in slot order; built in chunks on several
        /// threads from `parallelFrom` slots.
        func column(parallelFrom: Int = TextColumn.parallelSlots) throws -> TextColumn {
            try TextColumn(slotsOf: bytes, starts: starts, lengths: lengths, parallelFrom: parallelFrom)
        }
    }
}
