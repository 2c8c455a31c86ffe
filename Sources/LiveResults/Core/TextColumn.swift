/// One text column of every row of a result, kept in memory for a filter (`ResultsFilter`):
/// the UTF-8 bytes of each slot's value (slots as in the result's `KeyStore`) one after
/// another in a single buffer, with each slot's start, length and byte signature. A million
/// 12-byte names take 28 MB; no `String` is made.
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
    /// Each slot's `signature(of:)`: which bytes its value holds, roughly.
    private var signatures: [UInt64] = []
    /// Bytes of `bytes` that no slot uses any more.
    private var unused = 0
    /// Zero bytes at the end of `bytes`, so that `find` may read 8 bytes from any value's byte.
    private static let padding = 8

    /// A column with no value yet in `slotCount` slots.
    init(slotCount: Int, expectedBytes: Int = 0) {
        starts = Array(repeating: 0, count: slotCount)
        lengths = Array(repeating: -1, count: slotCount)
        signatures = Array(repeating: 0, count: slotCount)
        bytes.reserveCapacity(expectedBytes + Self.padding)
        bytes.append(contentsOf: repeatElement(0, count: Self.padding))
    }

    /// The number of slots the column has room for.
    var slotCount: Int { lengths.count }

    /// Sets the value of a slot (nil for NULL), growing the column when the slot is new.
    mutating func set(_ value: UnsafeRawBufferPointer?, at slot: Int) throws {
        if slot >= lengths.count {
            starts.append(contentsOf: repeatElement(0, count: slot + 1 - lengths.count))
            signatures.append(contentsOf: repeatElement(0, count: slot + 1 - lengths.count))
            lengths.append(contentsOf: repeatElement(-1, count: slot + 1 - lengths.count))
        }
        let old = Int(max(lengths[slot], 0))
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
        signatures[slot] = Self.signature(of: value)
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
    /// Without `previous`, one pass over every slot, which skips a value at once when its
    /// `signatures` lack a byte of the needle. With `previous` (the matches of `previousNeedle`,
    /// which `needle` contains), only the slots that matched it are looked at; and when
    /// `needle` extends `previousNeedle` (a key typed at the end), a value is decided by
    /// comparing the bytes after its previous occurrence, without a search.
    func matches(_ needle: [UInt8], refining previous: Matches? = nil, previousNeedle: [UInt8] = []) -> Matches {
        let slotCount = lengths.count
        var bits = [UInt64](repeating: 0, count: (slotCount + 63) / 64)
        var offsets = [UInt8](repeating: UInt8.max, count: slotCount)
        let wanted = Self.signature(of: needle)
        let extends = previous != nil && needle.starts(with: previousNeedle)
        let unknown = Matches.unknownOffset
        // Raw pointers throughout: this loop runs over a million values at each key.
        bytes.withUnsafeBufferPointer { buffer in
        starts.withUnsafeBufferPointer { starts in
        lengths.withUnsafeBufferPointer { lengths in
        signatures.withUnsafeBufferPointer { signatures in
        needle.withUnsafeBufferPointer { needle in
        bits.withUnsafeMutableBufferPointer { bits in
        offsets.withUnsafeMutableBufferPointer { offsets in
            let base = buffer.baseAddress ?? UnsafePointer(bitPattern: 1)!
            @inline(__always) func test(_ slot: Int, from: Int) {
                let length = Int(lengths[slot])
                guard length >= needle.count, signatures[slot] & wanted == wanted else { return } // NULL is -1
                if let found = Self.find(needle, in: base + Int(starts[slot]), count: length, from: from) {
                    bits[slot &>> 6] |= 1 &<< UInt64(slot & 63)
                    offsets[slot] = UInt8(truncatingIfNeeded: min(found, unknown))
                }
            }
            guard let previous else {
                for slot in 0..<slotCount { test(slot, from: 0) }
                return
            }
            previous.bits.withUnsafeBufferPointer { previousBits in
            previous.offsets.withUnsafeBufferPointer { previousOffsets in
                for word in 0..<min(previousBits.count, bits.count) {
                    var rest = previousBits[word]
                    while rest != 0 {
                        let slot = word &<< 6 &+ rest.trailingZeroBitCount
                        rest &= rest &- 1
                        let offset = Int(previousOffsets[slot])
                        guard extends, offset < unknown else { test(slot, from: 0); continue }
                        // The previous needle is at `offset`: does the rest follow it?
                        let text = base + Int(starts[slot])
                        let length = Int(lengths[slot])
                        var k = previousNeedle.count
                        while k < needle.count, offset &+ k < length, text[offset &+ k] == needle[k] { k &+= 1 }
                        if k == needle.count {
                            bits[word] |= 1 &<< UInt64(slot & 63)
                            offsets[slot] = UInt8(truncatingIfNeeded: offset)
                        } else {
                            test(slot, from: offset + 1)
                        }
                    }
                }
            }
            }
        }
        }
        }
        }
        }
        }
        }
        return Matches(bits: bits, offsets: offsets)
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

    /// The bytes a value holds, as bits of one word: lower-case letters and digits each have
    /// their own bit, other bytes share the rest. A value lacking a bit of a needle's
    /// signature cannot contain the needle.
    @inline(__always)
    static func signature<Bytes: Sequence>(of bytes: Bytes) -> UInt64 where Bytes.Element == UInt8 {
        var signature: UInt64 = 0
        for byte in bytes { signature |= 1 << UInt64(bit(for: byte)) }
        return signature
    }

    @inline(__always)
    private static func bit(for byte: UInt8) -> UInt8 {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"): return byte - UInt8(ascii: "a")
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return 26 + byte - UInt8(ascii: "0")
        default: return 36 + byte % 28
        }
    }
}

/// The slots whose value contains a needle (a bit set), and where the needle first occurs in
/// each value (the next narrower needle starts there).
struct Matches {
    /// Bit `slot % 64` of word `slot / 64` is on for a matching slot.
    private(set) var bits: [UInt64]
    /// Where the needle first occurs in each matching slot's value; `unknownOffset` past 254.
    private(set) var offsets: [UInt8]
    /// How many slots match.
    private(set) var count = 0

    /// The offset that says "search again": the occurrence is further than a byte counts.
    static let unknownOffset = Int(UInt8.max)

    /// The matches of a bit set and its offsets.
    init(bits: [UInt64], offsets: [UInt8]) {
        self.bits = bits
        self.offsets = offsets
        count = bits.reduce(0) { $0 + $1.nonzeroBitCount }
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
