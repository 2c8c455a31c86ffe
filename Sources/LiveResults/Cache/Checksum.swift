/// A fast checksum of a section cache's bytes; it detects truncation and corruption.
///
/// The bytes are summed in blocks of 64 KB, each alone, and the blocks' sums are then folded
/// in order, so that blocks can be summed on several threads at once: a cache of ten million
/// rows is read where its file's pages are, on every processor. Within a block, 32 bytes at a
/// time go into four independent lanes, so that the multiplications overlap.
enum Checksum {
    static let blockSize = 1 << 16
    /// From how many blocks a pass runs on several threads.
    static let parallelBlocks = 16

    /// The checksum of `bytes`, summed on several threads when `parallel` (by default from
    /// `parallelBlocks` blocks on).
    static func of(_ bytes: UnsafeRawBufferPointer, parallel: Bool? = nil) -> UInt64 {
        let blocks = (bytes.count + blockSize - 1) / blockSize
        var sums = [UInt64](repeating: 0, count: blocks)
        sums.withUnsafeMutableBufferPointer { sums in
            nonisolated(unsafe) let sums = sums
            ParallelChunks.forEach(blocks, parallel: parallel ?? (blocks >= parallelBlocks)) { chunk in
                for block in chunk {
                    let start = block * blockSize
                    sums[block] = sum(UnsafeRawBufferPointer(rebasing: bytes[start..<Swift.min(start + blockSize, bytes.count)]), index: block)
                }
            }
        }
        return fold(sums, byteCount: bytes.count)
    }

    /// The checksum of `byteCount` bytes from their blocks' sums, in order.
    private static func fold(_ sums: [UInt64], byteCount: Int) -> UInt64 {
        var hash = 0x9E37_79B9_7F4A_7C15 ^ UInt64(byteCount)
        for sum in sums { hash = mix(hash, sum) }
        return hash ^ (hash >> 32)
    }

    /// The checksum of bytes given in pieces, in order (a cache file as it is written): whole
    /// blocks are summed where they are, a block that comes in pieces once its last piece came.
    struct Stream {
        private var sums: [UInt64] = []
        /// The bytes of a block begun but not yet whole.
        private var partial: [UInt8] = []
        private var byteCount = 0

        init() {}

        mutating func add(_ bytes: UnsafeRawBufferPointer) {
            byteCount += bytes.count
            var rest = bytes[...]
            if !partial.isEmpty {
                let taken = rest.prefix(blockSize - partial.count)
                partial.append(contentsOf: taken)
                rest = rest[taken.endIndex...]
                guard partial.count == blockSize else { return }
                sums.append(partial.withUnsafeBytes { sum($0, index: sums.count) })
                partial.removeAll(keepingCapacity: true)
            }
            while rest.count >= blockSize {
                sums.append(sum(UnsafeRawBufferPointer(rebasing: rest.prefix(blockSize)), index: sums.count))
                rest = rest.dropFirst(blockSize)
            }
            partial.append(contentsOf: rest)
        }

        /// The checksum of every byte given.
        var total: UInt64 {
            var sums = sums
            if !partial.isEmpty { sums.append(partial.withUnsafeBytes { sum($0, index: sums.count) }) }
            return fold(sums, byteCount: byteCount)
        }
    }

    /// The sum of block number `index`.
    @inline(__always)
    private static func sum(_ block: UnsafeRawBufferPointer, index: Int) -> UInt64 {
        var lanes: (UInt64, UInt64, UInt64, UInt64) = (0x9E37_79B9_7F4A_7C15 ^ UInt64(index), 1, 2, 3)
        var offset = 0
        while offset + 32 <= block.count {
            let words = (block.loadUnaligned(fromByteOffset: offset, as: UInt64.self), block.loadUnaligned(fromByteOffset: offset + 8, as: UInt64.self),
                         block.loadUnaligned(fromByteOffset: offset + 16, as: UInt64.self), block.loadUnaligned(fromByteOffset: offset + 24, as: UInt64.self))
            lanes.0 = mix(lanes.0, words.0)
            lanes.1 = mix(lanes.1, words.1)
            lanes.2 = mix(lanes.2, words.2)
            lanes.3 = mix(lanes.3, words.3)
            offset += 32
        }
        var hash = mix(mix(mix(lanes.0, lanes.1), lanes.2), lanes.3)
        while offset + 8 <= block.count {
            let word = block.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
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
}
