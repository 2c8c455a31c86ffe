import Foundation

/// One text column of every row of a result, kept in memory for a filter (`ResultsFilter`):
/// the UTF-8 bytes of each slot's value (slots as in the result's `KeyStore`) one after
/// another in a single buffer, with each slot's start and length; the first bytes of every
/// value transposed by position (`BytePlanes`), where a needle is found; and the slots with a
/// value and those with a value longer than the planes. A million 12-byte names take about
/// 37 MB; no `String` is made.
///
/// A value that grows is written at the end of the buffer; the buffer is compacted when more
/// than half of it is no longer used.
struct TextColumn {
    /// The bytes of every value.
    private var bytes: [UInt8] = []
    /// Where each slot's value starts in `bytes`.
    private var starts: [UInt32] = []
    /// Each slot's length in bytes; -1 for NULL (or a slot with no value yet).
    private var lengths: [Int32] = []
    /// The first bytes of every value, by position.
    private var planes: BytePlanes
    /// The slots that hold a value (the empty text included), one bit a slot.
    private var valued: [UInt64]
    /// The slots whose value is longer than the planes, one bit a slot, and how many.
    private var long: [UInt64]
    private var longCount = 0
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

    // MARK: - Matching

    /// Whether the value of a slot contains `needle` (bytes); NULL contains nothing, and every
    /// text contains the empty needle, as SQL's `instr(value, needle) > 0`.
    func contains(_ needle: [UInt8], atSlot slot: Int) -> Bool {
        firstOccurrence(of: needle, atSlot: slot, from: 0) != nil
    }

    /// Where `needle` first occurs in a slot's value at or after `from`; nil when it does not.
    func firstOccurrence(of needle: [UInt8], atSlot slot: Int, from: Int) -> Int? {
        guard slot < lengths.count, lengths[slot] >= 0 else { return nil }
        return bytes.withUnsafeBufferPointer { buffer in
            needle.withUnsafeBufferPointer { needle in
                let text = (buffer.baseAddress ?? UnsafePointer(bitPattern: 1)!) + Int(starts[slot])
                return Self.find(needle, in: text, count: Int(lengths[slot]), from: from)
            }
        }
    }

    /// Whether a slot's value holds `needle` at byte `position`.
    func holds(_ needle: [UInt8], atSlot slot: Int, at position: Int) -> Bool {
        guard slot < lengths.count, position + needle.count <= Int(lengths[slot]) else { return false }
        let start = Int(starts[slot]) + position
        return bytes[start..<start + needle.count].elementsEqual(needle)
    }

    /// The slots whose value contains `needle`, and at which positions of the planes.
    ///
    /// The needle is found by position, one byte after another (`BytePlanes.extend`), from
    /// the slots with a value, or from `previous` (the matches of `previousNeedle`, which
    /// `needle` contains: only its slots can match). When `needle` extends `previousNeedle`
    /// (a key typed at the end), only the new bytes are looked at, from the positions where
    /// `previousNeedle` was. The values longer than the planes among those slots are searched
    /// byte for byte, and so is every candidate for a needle with a NUL byte. A column of
    /// `parallelFrom` slots or more is read in chunks on several threads.
    func matches(_ needle: [UInt8], refining previous: Matches? = nil, previousNeedle: [UInt8] = [],
                 parallelFrom: Int = Self.parallelSlots) -> Matches {
        let parallel = slotCount >= parallelFrom
        let candidates = previous.map { fitted($0.bits) } ?? valued
        guard !needle.contains(0) else {
            let bits = searched(needle, among: candidates, parallel: parallel)
            return Matches(bits: bits, count: Self.population(of: bits), positions: nil)
        }
        var positions: [[UInt64]]
        var typed: Int
        if let held = previous?.positions, needle.starts(with: previousNeedle),
           held.count == max(0, BytePlanes.width - previousNeedle.count + 1) {
            positions = held.map { $0.isEmpty ? [] : fitted($0) }
            typed = previousNeedle.count
        } else {
            // The empty needle is at every position of every candidate.
            positions = Array(repeating: candidates, count: BytePlanes.width + 1)
            typed = 0
        }
        for byte in needle[typed...] {
            positions = planes.extend(positions, typed: typed, with: byte, parallel: parallel)
            typed += 1
        }
        // The empty needle's positions all hold the candidates: they are its matches.
        var bits = needle.isEmpty ? candidates : Self.union(positions, wordCount: valued.count)
        if longCount > 0 {
            // Past the planes: the long values among the candidates, byte for byte.
            let found = searched(needle, among: Self.intersection(candidates, long), parallel: parallel)
            Self.formUnion(&bits, found)
        }
        return Matches(bits: bits, count: Self.population(of: bits), positions: positions)
    }

    /// Updates `matches` (of `needle`) for a slot whose value was just set.
    func update(_ matches: inout Matches, of needle: [UInt8], atSlot slot: Int) {
        let contains = contains(needle, atSlot: slot)
        matches.set(slot, contains: contains, wordCount: valued.count) { position in
            needle.isEmpty ? contains : holds(needle, atSlot: slot, at: position)
        }
    }

    /// `bits` with as many words as the column's sets.
    private func fitted(_ bits: [UInt64]) -> [UInt64] {
        let wordCount = valued.count
        guard bits.count != wordCount else { return bits }
        return Array(bits.prefix(wordCount)) + repeatElement(0, count: max(0, wordCount - bits.count))
    }

    /// The slots of `candidates` whose value contains `needle`, searched value by value.
    private func searched(_ needle: [UInt8], among candidates: [UInt64], parallel: Bool) -> [UInt64] {
        var bits = candidates
        // Raw pointers throughout: this loop may run over a million values at a key.
        bytes.withUnsafeBufferPointer { buffer in
        starts.withUnsafeBufferPointer { starts in
        lengths.withUnsafeBufferPointer { lengths in
        needle.withUnsafeBufferPointer { needle in
        bits.withUnsafeMutableBufferPointer { bits in
            let base = buffer.baseAddress ?? UnsafePointer(bitPattern: 1)!
            nonisolated(unsafe) let output = bits
            _ = ParallelChunks.map(ParallelChunks.ranges(bits.count, parallel: parallel)) { words in
                for word in words {
                    var rest = output[word]
                    var kept: UInt64 = 0
                    while rest != 0 {
                        let slot = word &<< 6 &+ rest.trailingZeroBitCount
                        let bit = rest & (0 &- rest)
                        rest &= rest &- 1
                        guard slot < lengths.count else { continue }
                        if Self.find(needle, in: base + Int(starts[slot]), count: Int(lengths[slot]), from: 0) != nil { kept |= bit }
                    }
                    output[word] = kept
                }
                return 0
            }
        }
        }
        }
        }
        }
        return bits
    }

    /// The slots in any of `sets` (`[]`: none); one of them itself when it is the only one.
    private static func union(_ sets: [[UInt64]], wordCount: Int) -> [UInt64] {
        let nonEmpty = sets.filter { !$0.isEmpty }
        guard nonEmpty.count != 1 else { return nonEmpty[0] }
        var bits = [UInt64](repeating: 0, count: wordCount)
        for set in nonEmpty { formUnion(&bits, set) }
        return bits
    }

    private static func formUnion(_ bits: inout [UInt64], _ other: [UInt64]) {
        bits.withUnsafeMutableBufferPointer { bits in
            other.withUnsafeBufferPointer { other in
                for word in 0..<min(bits.count, other.count) { bits[word] |= other[word] }
            }
        }
    }

    private static func intersection(_ bits: [UInt64], _ other: [UInt64]) -> [UInt64] {
        var both = bits
        both.withUnsafeMutableBufferPointer { both in
            other.withUnsafeBufferPointer { other in
                for word in both.indices { both[word] &= word < other.count ? other[word] : 0 }
            }
        }
        return both
    }

    /// The number of bits set.
    private static func population(of bits: [UInt64]) -> Int {
        bits.reduce(0) { $0 &+ $1.nonzeroBitCount }
    }

    /// From how many slots a search runs on several threads.
    static let parallelSlots = ParallelChunks.parallelItems

    /// Whether `needle` occurs in the `count` bytes at `text` at or after `from` (byte for
    /// byte, as `instr`); where it first does. Reads 8 bytes at a time to find where the
    /// needle's first byte is (the buffer ends with `padding` bytes, so a read past a value's
    /// end stays inside it), then compares the rest there.
    @inline(__always)
    private static func find(_ needle: UnsafeBufferPointer<UInt8>, in text: UnsafePointer<UInt8>, count: Int, from: Int) -> Int? {
        let size = needle.count
        guard size > 0 else { return from <= count ? from : nil }
        let last = count - size
        guard from <= last else { return nil }
        let ones: UInt64 = 0x0101_0101_0101_0101
        let first = UInt64(needle[0]) &* ones
        var i = from
        while i <= last {
            let word = UnsafeRawPointer(text + i).loadUnaligned(as: UInt64.self) ^ first
            // A high bit for each byte equal to the first byte (and maybe some after one).
            var candidates = (word &- ones) & ~word & (ones &<< 7)
            while candidates != 0 {
                let position = i &+ candidates.trailingZeroBitCount &>> 3
                if position > last { return nil }
                var k = 0
                while k < size && text[position &+ k] == needle[k] { k &+= 1 }
                if k == size { return position }
                candidates &= candidates &- 1
            }
            i &+= 8
        }
        return nil
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

/// The slots whose value contains a needle (a bit set), and the positions of the planes
/// (`BytePlanes`) at which each holds it: what the needle one key longer is found from.
struct Matches {
    /// Bit `slot % 64` of word `slot / 64` is on for a matching slot.
    private(set) var bits: [UInt64]
    /// How many slots match.
    private(set) var count = 0
    /// For each position `p` with `p + needle.count <= BytePlanes.width`, the slots whose
    /// value holds the needle at `p` (`[]` when none does); nil for a needle with a NUL byte,
    /// which is not found by position. The empty needle is held at every position of every
    /// matching slot, even past a value's end: the byte typed next rules those out.
    private(set) var positions: [[UInt64]]?

    init(bits: [UInt64], count: Int, positions: [[UInt64]]?) {
        self.bits = bits
        self.count = count
        self.positions = positions
    }

    func contains(_ slot: Int) -> Bool {
        slot >> 6 < bits.count && bits[slot >> 6] & (1 << UInt64(slot & 63)) != 0
    }

    /// Whether the needle is at `position` in a slot's value, by the planes.
    func holds(_ slot: Int, at position: Int) -> Bool {
        guard let positions, position < positions.count else { return false }
        let set = positions[position]
        return slot >> 6 < set.count && set[slot >> 6] & (1 << UInt64(slot & 63)) != 0
    }

    /// Records whether a slot matches, and at which positions (`holds`), in sets of
    /// `wordCount` words.
    mutating func set(_ slot: Int, contains: Bool, wordCount: Int, holds: (Int) -> Bool) {
        if contains != self.contains(slot) { count += contains ? 1 : -1 }
        Self.set(&bits, slot, contains, wordCount: wordCount)
        guard var positions else { return }
        self.positions = nil // changed in place, not copied
        for position in positions.indices {
            let held = holds(position)
            guard held || !positions[position].isEmpty else { continue }
            Self.set(&positions[position], slot, held, wordCount: wordCount)
        }
        self.positions = positions
    }

    private static func set(_ bits: inout [UInt64], _ slot: Int, _ on: Bool, wordCount: Int) {
        if bits.count < wordCount { bits.append(contentsOf: repeatElement(0, count: wordCount - bits.count)) }
        let bit: UInt64 = 1 << UInt64(slot & 63)
        if on { bits[slot >> 6] |= bit } else { bits[slot >> 6] &= ~bit }
    }
}
