/// A fast checksum of a section cache's bytes; it detects truncation and corruption.
///
/// The bytes are summed in blocks of 64 KB, each alone, and the blocks' sums are then folded
/// in order. So blocks can be summed on several threads at once, and while they are copied
/// (`Tally`): a cache of ten million rows is read once, not once to check it and again to
/// copy its arrays. Within a block, 32 bytes at a time go into four independent lanes, so that
/// the multiplications overlap.
enum Checksum {
    static let blockSize = 1 << 16
    /// From how many blocks a pass runs on several threads.
    static let parallelBlocks = 16

    /// The checksum of `bytes`.
    static func of(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        var tally = Tally(byteCount: bytes.count)
        return tally.total(of: bytes)
    }

    /// The sum of block number `index`, copied to `destination` on the way when there is one.
    @inline(__always)
    static func sum(ofBlock block: UnsafeRawBufferPointer, index: Int, copyingTo destination: UnsafeMutableRawPointer?) -> UInt64 {
        guard let destination else { return sum(block, index: index) { _, _ in } }
        let words = block.count & ~7
        if words < block.count, let source = block.baseAddress { // the last bytes, short of a word
            (destination + words).copyMemory(from: source + words, byteCount: block.count - words)
        }
        return sum(block, index: index) { offset, word in destination.storeBytes(of: word, toByteOffset: offset, as: UInt64.self) }
    }

    /// The sum of a block; `store` is given each whole word of it (all but the last
    /// `count % 8` bytes) with its offset.
    @inline(__always)
    private static func sum(_ block: UnsafeRawBufferPointer, index: Int, store: (Int, UInt64) -> Void) -> UInt64 {
        var lanes: (UInt64, UInt64, UInt64, UInt64) = (0x9E37_79B9_7F4A_7C15 ^ UInt64(index), 1, 2, 3)
        var offset = 0
        while offset + 32 <= block.count {
            let words = (block.loadUnaligned(fromByteOffset: offset, as: UInt64.self), block.loadUnaligned(fromByteOffset: offset + 8, as: UInt64.self),
                         block.loadUnaligned(fromByteOffset: offset + 16, as: UInt64.self), block.loadUnaligned(fromByteOffset: offset + 24, as: UInt64.self))
            store(offset, words.0); store(offset + 8, words.1); store(offset + 16, words.2); store(offset + 24, words.3)
            lanes.0 = mix(lanes.0, words.0)
            lanes.1 = mix(lanes.1, words.1)
            lanes.2 = mix(lanes.2, words.2)
            lanes.3 = mix(lanes.3, words.3)
            offset += 32
        }
        var hash = mix(mix(mix(lanes.0, lanes.1), lanes.2), lanes.3)
        while offset + 8 <= block.count {
            let word = block.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
            store(offset, word)
            hash = mix(hash, word)
            offset += 8
        }
        while offset < block.count {
            hash = mix(hash, UInt64(block[offset]))
            offset += 1
        }
        return hash
    }

    @inline(__always)
    static func mix(_ hash: UInt64, _ word: UInt64) -> UInt64 {
        let mixed = (hash ^ word) &* 0x0000_0100_0000_01B3
        return mixed ^ (mixed >> 29)
    }

    /// The sums of the blocks of some bytes, taken as parts of them are copied out
    /// (`copy(_:of:to:)`); `total(of:)` sums the blocks no copy covered and folds them all.
    struct Tally {
        private let byteCount: Int
        private var sums: [UInt64]
        private var summed: [Bool]

        /// A tally of `byteCount` bytes, none summed yet.
        init(byteCount: Int) {
            self.byteCount = byteCount
            let blocks = (byteCount + blockSize - 1) / blockSize
            sums = Array(repeating: 0, count: blocks)
            summed = Array(repeating: false, count: blocks)
        }

        /// Copies `range` of `bytes` (whose first `byteCount` bytes are the ones tallied) to
        /// `destination`, summing the blocks that lie wholly inside it as it goes, on
        /// several threads for many blocks. Bytes outside the tallied ones are just copied.
        mutating func copy(_ range: Range<Int>, of bytes: UnsafeRawBufferPointer, to destination: UnsafeMutableRawPointer) {
            let source = bytes.baseAddress!
            let first = (range.lowerBound + blockSize - 1) / blockSize
            // Blocks that end inside the range (the last one may be short: the tallied bytes' end).
            var end = first
            while end < sums.count, Swift.min((end + 1) * blockSize, byteCount) <= range.upperBound { end += 1 }
            if end == first {
                destination.copyMemory(from: source + range.lowerBound, byteCount: range.count)
                return
            }
            let head = first * blockSize - range.lowerBound
            let blocksEnd = Swift.min(end * blockSize, byteCount)
            destination.copyMemory(from: source + range.lowerBound, byteCount: head)
            (destination + (blocksEnd - range.lowerBound)).copyMemory(from: source + blocksEnd, byteCount: range.upperBound - blocksEnd)
            let byteCount = self.byteCount
            sums.withUnsafeMutableBufferPointer { sums in
                nonisolated(unsafe) let sums = sums
                ParallelChunks.forEach(end - first, parallel: end - first >= parallelBlocks) { chunk in
                    for block in chunk.lowerBound + first..<chunk.upperBound + first {
                        let start = block * blockSize, length = Swift.min(blockSize, byteCount - start)
                        sums[block] = sum(ofBlock: UnsafeRawBufferPointer(start: source + start, count: length), index: block,
                                          copyingTo: destination + (start - range.lowerBound))
                    }
                }
            }
            for block in first..<end { summed[block] = true }
        }

        /// The checksum of the tallied bytes (`bytes` begins with them): the blocks no copy
        /// summed are summed now (on several threads for many), and every block's sum folded.
        mutating func total(of bytes: UnsafeRawBufferPointer) -> UInt64 {
            let missing = summed.indices.filter { !summed[$0] }
            let byteCount = self.byteCount
            sums.withUnsafeMutableBufferPointer { sums in
                nonisolated(unsafe) let sums = sums
                ParallelChunks.forEach(missing.count, parallel: missing.count >= parallelBlocks) { chunk in
                    for block in missing[chunk] {
                        let start = block * blockSize
                        sums[block] = sum(ofBlock: UnsafeRawBufferPointer(rebasing: bytes[start..<Swift.min(start + blockSize, byteCount)]), index: block,
                                          copyingTo: nil)
                    }
                }
            }
            for block in missing { summed[block] = true }
            var hash = 0x9E37_79B9_7F4A_7C15 ^ UInt64(byteCount)
            for sum in sums { hash = mix(hash, sum) }
            return hash ^ (hash >> 32)
        }
    }
}
