import CByteScan

/// The first `width` bytes of every slot's value, transposed: plane `p` holds byte `p` of
/// each slot's value, one byte a slot, side by side (0 past a value's end and in a slot with
/// no value); and how many slots with a value hold each byte at each position.
///
/// A filter's needle typed one key at a time is found by position (`extend`): the slots
/// that hold it at position `p` are those that held it one byte shorter there and hold the
/// new byte at `p + k`. That is one plane read 64 slots a step (a byte a slot) rather than
/// every value's bytes, and none at all when the counts say that no slot, or every slot,
/// holds the byte there: after its first key, "row " over names that all begin "Row " costs
/// no read of a plane. Occurrences past the planes (in values longer
/// than `width`) are the column's to search (`TextColumn`).
///
/// A million slots take `width` MB.
struct BytePlanes {
    /// How many bytes of each value the planes hold.
    static let width = 16

    /// The planes one after another, each `capacity` bytes (a multiple of 64).
    private var planes: [UInt8] = []
    /// How many slots the planes have room for.
    private(set) var capacity = 0
    /// How many slots with a value hold each byte at each position: `counts[p * 256 + byte]`
    /// (the 0 past a value's end counted).
    private var counts = [Int32](repeating: 0, count: BytePlanes.width * 256)
    /// How many slots hold a value.
    private(set) var valuedCount = 0

    /// Planes with room for `slotCount` slots, none with a value.
    init(slotCount: Int) {
        grow(toHold: slotCount)
    }

    /// Planes of `slotCount` slots, slot `i` holding the first bytes of `value(i)` (nil: no
    /// value), filled at once: each chunk of slots (of 64 slots each) on a thread of its own
    /// when `parallel`, with counts of its own that are added up after.
    init(slotCount: Int, parallel: Bool, value: (Int) -> UnsafeBufferPointer<UInt8>?) {
        grow(toHold: slotCount)
        let capacity = capacity, width = Self.width, countsSize = Self.width * 256
        let chunks = ParallelChunks.ranges(wordCount, parallel: parallel)
        var chunkCounts = [Int32](repeating: 0, count: chunks.count * countsSize)
        planes.withUnsafeMutableBufferPointer { planes in
            chunkCounts.withUnsafeMutableBufferPointer { chunkCounts in
                nonisolated(unsafe) let planes = planes.baseAddress!, chunkCounts = chunkCounts.baseAddress!
                valuedCount = ParallelChunks.map(chunks) { words in
                    let counts = chunkCounts + chunks.firstIndex(of: words)! * countsSize
                    var valued = 0
                    for slot in words.lowerBound * 64..<min(words.upperBound * 64, slotCount) {
                        guard let value = value(slot) else { continue }
                        valued += 1
                        for position in 0..<width {
                            let byte = position < value.count ? value[position] : 0
                            planes[position &* capacity &+ slot] = byte
                            counts[position &* 256 &+ Int(byte)] &+= 1
                        }
                    }
                    return valued
                }.reduce(0, +)
            }
        }
        for chunk in chunks.indices {
            for index in 0..<countsSize { counts[index] += chunkCounts[chunk * countsSize + index] }
        }
    }

    /// Words of 64 slots in a set of slots that covers the planes.
    var wordCount: Int { capacity / 64 }

    /// Makes room for `slotCount` slots (more, so that slots added one at a time do not copy
    /// the planes each time).
    mutating func grow(toHold slotCount: Int) {
        guard slotCount > capacity else { return }
        let grown = capacity == 0 ? slotCount : max(slotCount, capacity + capacity / 8)
        let newCapacity = (grown + 63) / 64 * 64
        var moved = [UInt8](repeating: 0, count: Self.width * newCapacity)
        if capacity > 0 {
            moved.withUnsafeMutableBufferPointer { moved in
                planes.withUnsafeBufferPointer { old in
                    for plane in 0..<Self.width {
                        (moved.baseAddress! + plane * newCapacity).update(from: old.baseAddress! + plane * capacity, count: capacity)
                    }
                }
            }
        }
        planes = moved
        capacity = newCapacity
    }

    /// Sets the first `width` bytes of a slot's value (nil: no value). `wasValued`: whether
    /// the slot held a value before (whose bytes the planes hold).
    mutating func set(_ value: UnsafeBufferPointer<UInt8>?, at slot: Int, wasValued: Bool) {
        grow(toHold: slot + 1)
        let capacity = capacity
        planes.withUnsafeMutableBufferPointer { planes in
            counts.withUnsafeMutableBufferPointer { counts in
                for position in 0..<Self.width {
                    let place = position &* capacity &+ slot
                    if wasValued { counts[position &* 256 &+ Int(planes[place])] &-= 1 }
                    let byte = value.map { position < $0.count ? $0[position] : 0 } ?? 0
                    planes[place] = byte
                    if value != nil { counts[position &* 256 &+ Int(byte)] &+= 1 }
                }
            }
        }
        valuedCount += (value != nil ? 1 : 0) - (wasValued ? 1 : 0)
    }

    /// Which slots with a value hold `byte` at `position`.
    enum Holders { case none, some, every }

    /// Which slots with a value hold `byte` at `position`, from the counts.
    func holders(of byte: UInt8, at position: Int) -> Holders {
        guard position < Self.width else { return .none }
        let count = Int(counts[position * 256 + Int(byte)])
        return count == 0 ? .none : count == valuedCount ? .every : .some
    }

    /// The needle one byte longer: given `positions[p]`, the slots that hold the needle's
    /// first `typed` bytes at `p` (for each `p` while `p + typed <= width`), the slots that
    /// hold them followed by `byte` (for each `p` while `p + typed + 1 <= width`). An empty set
    /// is `[]`; the others have `wordCount` words. `byte` must not be 0 (the planes' 0 is also
    /// "past the end"). A plane is read only where the counts do not answer, and only in the
    /// words with a slot in them; on several threads when `parallel`. Each non-empty set
    /// given must have `wordCount` words.
    func extend(_ positions: [[UInt64]], typed: Int, with byte: UInt8, parallel: Bool) -> [[UInt64]] {
        precondition(byte != 0, "a NUL byte is not searched by plane")
        guard positions.count > 1 else { return [] }
        var next = [[UInt64]](repeating: [], count: positions.count - 1)
        var narrowed: [Int] = [] // the positions whose plane must be read
        for position in next.indices where !positions[position].isEmpty {
            switch holders(of: byte, at: position + typed) {
            case .none: continue
            case .every: next[position] = positions[position]
            case .some: narrowed.append(position)
            }
        }
        guard !narrowed.isEmpty else { return next }
        // One pass over the words for all the planes read (one wake of the other threads),
        // into one buffer, each word written once; then each position's set is cut from it.
        let wordCount = self.wordCount, capacity = capacity
        let sources = narrowed.map { positions[$0] }
        precondition(sources.allSatisfy { $0.count == wordCount }, "a set of slots must cover the planes")
        var found = 0
        let kept = [UInt64](unsafeUninitializedCapacity: narrowed.count * wordCount) { kept, initialized in
            planes.withUnsafeBufferPointer { planes in
                nonisolated(unsafe) let output = kept.baseAddress!
                nonisolated(unsafe) let planes = UnsafeRawPointer(planes.baseAddress!)
                found = ParallelChunks.map(ParallelChunks.ranges(wordCount, parallel: parallel)) { words in
                    var found = 0
                    for (job, position) in narrowed.enumerated() {
                        let any = sources[job].withUnsafeBufferPointer { slots in
                            Self.narrow(slots, words, into: output + job &* wordCount,
                                        plane: planes + (position &+ typed) &* capacity, byte: byte)
                        }
                        if any { found |= 1 << job }
                    }
                    return found
                }.reduce(0, |)
            }
            initialized = narrowed.count * wordCount
        }
        for (job, position) in narrowed.enumerated() where found & (1 << job) != 0 {
            next[position] = Array(kept[job * wordCount..<(job + 1) * wordCount])
        }
        return next
    }

    /// Writes `output[word]` for each of `words`: the slots of `slots[word]` that hold `byte`
    /// in `plane` (`slots` has every word of `words`). Returns whether any does.
    @inline(__always)
    private static func narrow(_ slots: UnsafeBufferPointer<UInt64>, _ words: Range<Int>, into output: UnsafeMutablePointer<UInt64>,
                               plane: UnsafeRawPointer, byte: UInt8) -> Bool {
        var any: UInt64 = 0
        for word in words {
            let slots = slots[word]
            var kept: UInt64 = 0
            let withoutLowest = slots & (slots &- 1)
            if withoutLowest & (withoutLowest &- 1) != 0 { // three slots or more
                kept = slots & bytescan_equal_bits(plane + word &<< 6, byte)
            } else {
                // A few slots: their bytes alone.
                var rest = slots
                while rest != 0 {
                    let bit = rest.trailingZeroBitCount
                    if plane.load(fromByteOffset: word &<< 6 &+ bit, as: UInt8.self) == byte { kept |= 1 &<< UInt64(bit) }
                    rest &= rest &- 1
                }
            }
            output[word] = kept
            any |= kept
        }
        return any != 0
    }
}
