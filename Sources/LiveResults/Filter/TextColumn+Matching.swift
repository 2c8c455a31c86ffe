// Finding a needle in a text column: by the planes, one typed byte after another, refining
// the matches of the needle one byte shorter, and byte for byte past the planes.

extension TextColumn {
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
