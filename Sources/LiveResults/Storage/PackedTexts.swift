import Foundation

/// Texts by slot, kept as their UTF-8 bytes one after another in one buffer, with each slot's
/// start and length: no `String` is made to store, compare or cache a value (ten million
/// names are read from a section cache with one copy of their bytes).
///
/// A value that grows is written at the end of the buffer; the buffer is compacted when more
/// than half of it is no longer used. The buffer holds at most 4 GB (`fits(_:)`).
struct PackedTexts {
    /// The bytes of every value.
    private var bytes: FlatArray<UInt8> = []
    /// Where each slot's value starts in `bytes`.
    private var starts: FlatArray<UInt32> = []
    /// Each slot's length in bytes when under 255 (most names), one byte a slot; 255 means
    /// the length is in `longLengths`.
    private var shortLengths: FlatArray<UInt8> = []
    private var longLengths: [Int: UInt32] = [:]
    /// Bytes of `bytes` that no slot uses any more.
    private var unused = 0

    init() {}

    /// Texts whose lengths, slot by slot, are `shortLengths` (with those of 255 bytes or
    /// more in `longLengths`, by slot), whose values start at `starts` and follow each other
    /// in `utf8`: what `packed` gave. Nil when they do not describe texts: a long length
    /// missing or not long, a start that is not where the value before it ends, or lengths
    /// that do not add up to the bytes.
    init?(shortLengths: FlatArray<UInt8>, longLengths: [Int: UInt32], starts: FlatArray<UInt32>, utf8: FlatArray<UInt8>) {
        guard Self.fits(utf8.count), starts.count == shortLengths.count else { return nil }
        for (slot, length) in longLengths {
            guard shortLengths.indices.contains(slot), shortLengths[slot] == UInt8.max, length >= UInt8.max else { return nil }
        }
        // Read over raw buffers, on several threads (ten million slots are loaded from a cache
        // at launch): each chunk checks its starts from its first and gives where it ends, -1
        // for a long length missing or a start out of place; each chunk must end where the next begins.
        let chunks = ParallelChunks.ranges(starts.count, parallel: starts.count >= ParallelChunks.parallelItems)
        let ends = shortLengths.withUnsafeBufferPointer { short in
            starts.withUnsafeBufferPointer { starts in
                ParallelChunks.map(chunks) { chunk in
                    guard !chunk.isEmpty else { return 0 }
                    var end = Int(starts[chunk.lowerBound]), misplaced: UInt32 = 0
                    for slot in chunk {
                        misplaced |= starts[slot] ^ UInt32(truncatingIfNeeded: end)
                        if short[slot] < UInt8.max {
                            end &+= Int(short[slot])
                        } else {
                            guard let length = longLengths[slot] else { return -1 }
                            end &+= Int(length)
                        }
                    }
                    return misplaced == 0 && end < Int(UInt32.max) ? end : -1
                }
            }
        }
        let firsts = chunks.map { $0.isEmpty ? 0 : Int(starts[$0.lowerBound]) }
        guard !ends.contains(-1), firsts.first ?? 0 == 0, zip(ends.dropLast(), firsts.dropFirst()).allSatisfy(==),
              ends.last ?? 0 == utf8.count else { return nil }
        self.starts = starts
        self.shortLengths = shortLengths
        self.longLengths = longLengths
        bytes = utf8
    }

    /// The length in bytes of a slot's value.
    @inline(__always)
    func length(at slot: Int) -> Int {
        let short = shortLengths[slot]
        return short < UInt8.max ? Int(short) : Int(longLengths[slot] ?? 0)
    }

    private mutating func setLength(_ length: Int, at slot: Int) {
        if shortLengths[slot] == UInt8.max { longLengths[slot] = nil }
        shortLengths[slot] = Self.shortLength(length)
        if shortLengths[slot] == UInt8.max { longLengths[slot] = UInt32(length) }
    }

    /// What `shortLengths` holds for a length: itself under 255, else 255 (the length is in
    /// `longLengths`).
    @inline(__always)
    private static func shortLength(_ length: Int) -> UInt8 {
        length < Int(UInt8.max) ? UInt8(truncatingIfNeeded: length) : UInt8.max
    }

    /// Whether a buffer of `byteCount` bytes can be addressed (32-bit starts).
    static func fits(_ byteCount: Int) -> Bool { byteCount < Int(UInt32.max) }

    var count: Int { starts.count }

    /// The bytes held, unused ones included.
    var byteCount: Int { bytes.count }

    var capacity: Int { starts.capacity }

    /// The texts as `init(shortLengths:longLengths:starts:utf8:)` takes them: each slot's
    /// length (255 for the long ones, whose lengths are by slot), where its value starts, and
    /// the bytes of every slot's value in turn, without the unused ones (for the cache).
    var packed: (shortLengths: FlatArray<UInt8>, longLengths: [Int: UInt32], starts: FlatArray<UInt32>, utf8: FlatArray<UInt8>) {
        let inOrder = unused == 0 && starts.indices.allSatisfy { Int(starts[$0]) == ($0 == 0 ? 0 : Int(starts[$0 - 1]) + length(at: $0 - 1)) }
        if inOrder { return (shortLengths, longLengths, starts, bytes) }
        return gather(Array(0..<Int32(starts.count))).packed
    }

    mutating func reserveCapacity(_ capacity: Int) {
        starts.reserveCapacity(capacity)
        shortLengths.reserveCapacity(capacity)
    }

    /// Calls `body` with the bytes of a slot's value.
    @inline(__always)
    func withUTF8<R>(at slot: Int, _ body: (UnsafeRawBufferPointer) -> R) -> R {
        let start = Int(starts[slot]), length = length(at: slot)
        return bytes.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[start..<start + length])) }
    }

    /// The value of a slot.
    func string(at slot: Int) -> String {
        withUTF8(at: slot) { String(decoding: $0, as: UTF8.self) }
    }

    /// Compares two slots' values by their bytes (SQLite's BINARY collation).
    @inline(__always)
    func compare(_ a: Int, _ b: Int) -> Int {
        bytes.withUnsafeBytes { buffer in
            let x = UnsafeRawBufferPointer(rebasing: buffer[Int(starts[a])..<Int(starts[a]) + length(at: a)])
            let y = UnsafeRawBufferPointer(rebasing: buffer[Int(starts[b])..<Int(starts[b]) + length(at: b)])
            return SQLiteOrdering.compareBuffers(x, y)
        }
    }

    /// Sets the value of a slot (`slot == count` appends). The caller checks `fits(_:)` first.
    mutating func set(_ string: String, at slot: Int) {
        var string = string
        string.withUTF8 { set(UnsafeRawBufferPointer($0), at: slot) }
    }

    /// Sets the value of a slot from its UTF-8 bytes (`slot == count` appends).
    mutating func set(_ utf8: UnsafeRawBufferPointer, at slot: Int) {
        if slot == starts.count {
            starts.append(UInt32(truncatingIfNeeded: bytes.count))
            shortLengths.append(0)
            setLength(utf8.count, at: slot)
            bytes.append(contentsOf: utf8)
            return
        }
        let old = length(at: slot)
        if utf8.count <= old {
            // In place: a value that did not grow keeps its room.
            let start = Int(starts[slot])
            bytes.withUnsafeMutableBytes { buffer in
                if let base = utf8.baseAddress, !utf8.isEmpty { (buffer.baseAddress! + start).copyMemory(from: base, byteCount: utf8.count) }
            }
            unused += old - utf8.count
        } else {
            starts[slot] = UInt32(truncatingIfNeeded: bytes.count)
            bytes.append(contentsOf: utf8)
            unused += old
        }
        setLength(utf8.count, at: slot)
        if unused > 4096, unused > bytes.count / 2 { self = gather(Array(0..<Int32(starts.count))) }
    }

    /// The values of the given slots, in that order, packed afresh: the lengths and starts
    /// first, then each value's bytes copied once into a buffer of their total size.
    func gather(_ slots: [Int32]) -> PackedTexts {
        var result = PackedTexts()
        result.shortLengths = FlatArray(count: slots.count) { short in
            for (row, slot) in slots.enumerated() { short[row] = shortLengths[Int(slot)] }
        }
        for (row, short) in result.shortLengths.enumerated() where short == UInt8.max {
            result.longLengths[row] = longLengths[Int(slots[row])]
        }
        var total = 0
        result.starts = FlatArray(count: slots.count) { starts in
            for row in slots.indices {
                starts[row] = UInt32(truncatingIfNeeded: total)
                total += result.length(at: row)
            }
        }
        result.bytes = bytes.withUnsafeBytes { source in
            FlatArray(count: total) { destination in
                for (row, slot) in slots.enumerated() {
                    let length = result.length(at: row)
                    guard length > 0 else { continue }
                    UnsafeMutableRawPointer(destination.baseAddress! + Int(result.starts[row]))
                        .copyMemory(from: source.baseAddress! + Int(starts[Int(slot)]), byteCount: length)
                }
            }
        }
        return result
    }
}
