import Foundation

/// One text column of every row of a result, kept in memory for a filter (`ResultsFilter`):
/// the UTF-8 bytes of each slot's value (slots as in the result's `KeyStore`) one after
/// another in a single buffer, with each slot's start and length, and for each byte value
/// the slots whose value holds it (`ByteSlotSets`). A million 12-byte names take about
/// 23 MB; no `String` is made.
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
    /// Which slots hold which bytes, and which hold a value at all.
    private var byteSets: ByteSlotSets
    /// Bytes of `bytes` that no slot uses any more.
    private var unused = 0
    /// Zero bytes at the end of `bytes`, so that `find` may read 8 bytes from any value's byte.
    private static let padding = 8

    /// A column with no value yet in `slotCount` slots.
    init(slotCount: Int, expectedBytes: Int = 0) {
        starts = Array(repeating: 0, count: slotCount)
        lengths = Array(repeating: -1, count: slotCount)
        byteSets = ByteSlotSets(slotCount: slotCount)
        bytes.reserveCapacity(expectedBytes + Self.padding)
        bytes.append(contentsOf: repeatElement(0, count: Self.padding))
    }

    /// The number of slots the column has room for.
    var slotCount: Int { lengths.count }

    /// Sets the value of a slot (nil for NULL), growing the column when the slot is new.
    mutating func set(_ value: UnsafeRawBufferPointer?, at slot: Int) throws {
        if slot >= lengths.count {
            starts.append(contentsOf: repeatElement(0, count: slot + 1 - lengths.count))
            lengths.append(contentsOf: repeatElement(-1, count: slot + 1 - lengths.count))
            byteSets.grow(toHold: lengths.count)
        }
        let old = Int(max(lengths[slot], 0))
        if lengths[slot] >= 0 {
            let start = Int(starts[slot])
            bytes.withUnsafeBufferPointer { byteSets.remove(slot, holding: UnsafeBufferPointer(rebasing: $0[start..<start + old])) }
        }
        guard let value else {
            unused += old
            lengths[slot] = -1
            return
        }
        guard value.count < Int32.max, bytes.count + value.count + Self.padding < Int(UInt32.max) else {
            throw LiveResultsError(.database, "A filter's column holds more text than fits in memory (4 GB).")
        }
        if value.count <= old {
            // In place: a value that did not grow keeps its room.
            let start = Int(starts[slot])
            bytes.withUnsafeMutableBufferPointer { buffer in
                for i in 0..<value.count { buffer[start + i] = value[i] }
            }
            unused += old - value.count
        } else {
            bytes.removeLast(Self.padding)
            starts[slot] = UInt32(bytes.count)
            bytes.append(contentsOf: value)
            bytes.append(contentsOf: repeatElement(0, count: Self.padding))
            unused += old
        }
        lengths[slot] = Int32(value.count)
        byteSets.insert(slot, holding: value.assumingMemoryBound(to: UInt8.self))
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

    /// The slots whose value contains `needle`, and where it first occurs in each.
    ///
    /// Only the slots whose value holds every byte of the needle are looked at (the AND of
    /// their `ByteSlotSets`, 64 slots a step); for a needle of one byte they are the answer.
    /// With `previous` (the matches of `previousNeedle`, which `needle` contains), only the
    /// slots that matched it; and when `needle` extends `previousNeedle` (a key typed at the
    /// end), a value whose previous occurrence is known is decided by comparing the bytes
    /// after it. A column of `parallelFrom` slots or more is searched in chunks on several
    /// threads (`inChunks`).
    func matches(_ needle: [UInt8], refining previous: Matches? = nil, previousNeedle: [UInt8] = [],
                 parallelFrom: Int = Self.parallelSlots) -> Matches {
        let slotCount = lengths.count
        // The empty needle is at 0 in every value; where one byte is first is not looked for.
        var offsets = [UInt8](repeating: needle.isEmpty ? 0 : UInt8.max, count: slotCount)
        guard var bits = candidates(needle, among: previous) else { return Matches(bits: [], offsets: offsets, count: 0) }
        // With one byte or none, the candidates are the matches: nothing to search.
        guard needle.count > 1 else { return Matches(bits: bits, offsets: offsets, count: Self.population(of: bits)) }
        let extends = previous != nil && needle.starts(with: previousNeedle)
        let previousCount = previousNeedle.count
        let unknown = Matches.unknownOffset
        let emptyOffsets = [UInt8]()
        // Raw pointers throughout: this loop runs over a million values at each key.
        let count = bytes.withUnsafeBufferPointer { buffer in
        starts.withUnsafeBufferPointer { starts in
        lengths.withUnsafeBufferPointer { lengths in
        needle.withUnsafeBufferPointer { needle in
        (previous?.offsets ?? emptyOffsets).withUnsafeBufferPointer { previousOffsets in
        bits.withUnsafeMutableBufferPointer { bits in
        offsets.withUnsafeMutableBufferPointer { offsets in
            let base = buffer.baseAddress ?? UnsafePointer(bitPattern: 1)!
            let shared = SharedPointers(bits: bits, offsets: offsets)
            return Self.inChunks(bits.count, parallel: slotCount >= parallelFrom) { words in
                let bits = shared.bits, offsets = shared.offsets
                var found = 0
                for word in words {
                    var rest = bits[word]
                    var kept: UInt64 = 0
                    while rest != 0 {
                        let slot = word &<< 6 &+ rest.trailingZeroBitCount
                        let bit = rest & (0 &- rest)
                        rest &= rest &- 1
                        let text = base + Int(starts[slot])
                        let length = Int(lengths[slot])
                        var from = 0
                        if extends, slot < previousOffsets.count, Int(previousOffsets[slot]) < unknown {
                            // The previous needle is first at `offset`: does the rest follow it?
                            let offset = Int(previousOffsets[slot])
                            var k = previousCount
                            while k < needle.count, offset &+ k < length, text[offset &+ k] == needle[k] { k &+= 1 }
                            if k == needle.count {
                                kept |= bit
                                offsets[slot] = UInt8(truncatingIfNeeded: offset)
                                continue
                            }
                            from = offset + 1
                        }
                        if let at = Self.find(needle, in: text, count: length, from: from) {
                            kept |= bit
                            offsets[slot] = UInt8(truncatingIfNeeded: min(at, unknown))
                        }
                    }
                    bits[word] = kept
                    found &+= kept.nonzeroBitCount
                }
                return found
            }
        }
        }
        }
        }
        }
        }
        }
        return Matches(bits: bits, offsets: offsets, count: count)
    }

    /// The slots that may hold `needle`: those holding each of its bytes, among `previous`'s
    /// matches or else the slots with a value; nil when a byte of the needle is in no value.
    private func candidates(_ needle: [UInt8], among previous: Matches?) -> [UInt64]? {
        let wordCount = byteSets.wordCount
        var bits = previous?.bits ?? byteSets.valued
        if bits.count != wordCount {
            bits = Array(bits.prefix(wordCount)) + repeatElement(0, count: max(0, wordCount - bits.count))
        }
        if previous != nil { Self.intersect(&bits, byteSets.valued) }
        var seen = Set<UInt8>()
        for byte in needle where seen.insert(byte).inserted {
            guard let slots = byteSets.slots(holding: byte) else { return nil }
            Self.intersect(&bits, slots)
        }
        return bits
    }

    /// The number of bits set.
    private static func population(of bits: [UInt64]) -> Int {
        bits.reduce(0) { $0 &+ $1.nonzeroBitCount }
    }

    private static func intersect(_ bits: inout [UInt64], _ other: [UInt64]) {
        bits.withUnsafeMutableBufferPointer { bits in
            other.withUnsafeBufferPointer { other in
                for word in bits.indices { bits[word] &= word < other.count ? other[word] : 0 }
            }
        }
    }

    /// From how many slots a search runs on several threads.
    static let parallelSlots = ParallelChunks.parallelItems

    /// The output buffers of a search, written by several threads at once, each in words
    /// (and their 64 slots) of its own.
    private struct SharedPointers: @unchecked Sendable {
        let bits: UnsafeMutableBufferPointer<UInt64>
        let offsets: UnsafeMutableBufferPointer<UInt8>
    }

    /// Calls `body` on `0..<count` cut in chunks, on several threads when `parallel`
    /// (`ParallelChunks`); returns the sum of what the calls return.
    static func inChunks(_ count: Int, parallel: Bool, _ body: (Range<Int>) -> Int) -> Int {
        ParallelChunks.map(ParallelChunks.ranges(count, parallel: parallel), body).reduce(0, +)
    }

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

/// The slots whose value contains a needle (a bit set), and where the needle first occurs in
/// each value (the next narrower needle starts there).
struct Matches {
    /// Bit `slot % 64` of word `slot / 64` is on for a matching slot.
    private(set) var bits: [UInt64]
    /// Where the needle first occurs in each matching slot's value; `unknownOffset` past 254,
    /// or when it was not looked for (a needle of one byte matches by its byte's set alone).
    private(set) var offsets: [UInt8]
    /// How many slots match.
    private(set) var count = 0

    /// The offset that says "search again": the occurrence is further than a byte counts, or
    /// was not looked for.
    static let unknownOffset = Int(UInt8.max)

    /// The matches of a bit set and its offsets; `count`: the bits set.
    init(bits: [UInt64], offsets: [UInt8], count: Int) {
        self.bits = bits
        self.offsets = offsets
        self.count = count
    }

    func contains(_ slot: Int) -> Bool {
        slot >> 6 < bits.count && bits[slot >> 6] & (1 << UInt64(slot & 63)) != 0
    }

    /// Marks a slot as matching, the needle at `offset` in its value.
    mutating func insert(_ slot: Int, offset: Int) {
        grow(toHold: slot)
        if !contains(slot) { count += 1 }
        bits[slot >> 6] |= 1 << UInt64(slot & 63)
        offsets[slot] = UInt8(min(offset, Self.unknownOffset))
    }

    /// Marks a slot as not matching.
    mutating func remove(_ slot: Int) {
        guard contains(slot) else { return }
        count -= 1
        bits[slot >> 6] &= ~(1 << UInt64(slot & 63))
    }

    private mutating func grow(toHold slot: Int) {
        if slot >= offsets.count { offsets.append(contentsOf: repeatElement(UInt8.max, count: slot + 1 - offsets.count)) }
        if slot >> 6 >= bits.count { bits.append(contentsOf: repeatElement(0, count: slot >> 6 + 1 - bits.count)) }
    }
}
