import Foundation
import TestSupport
import Testing
@testable import LiveResults

@Suite("Checksum")
struct ChecksumTests {
    /// `count` bytes from a seed.
    static func bytes(_ count: Int, seed: UInt64) -> [UInt8] {
        var random = SplitMix64(seed: seed)
        return (0..<count).map { _ in UInt8.random(in: 0...255, using: &random) }
    }

    static let block = Checksum.blockSize

    @Test("The checksum is the same summed on one thread or on several",
          arguments: [0, 1, 31, block - 1, block, block + 7, 2 * Checksum.parallelBlocks * block + 12_345])
    func sameOnAnyThreads(_ count: Int) {
        let data = Self.bytes(count, seed: UInt64(count))
        data.withUnsafeBytes { bytes in
            #expect(Checksum.of(bytes, parallel: false) == Checksum.of(bytes, parallel: true), "\(count) bytes")
        }
    }

    @Test("Bytes given in pieces of any sizes have the checksum of the whole",
          arguments: [0, 1, 31, block - 1, block, block + 7, 3 * block + 12_345])
    func inPieces(_ count: Int) {
        let data = Self.bytes(count, seed: UInt64(count) + 100)
        data.withUnsafeBytes { bytes in
            let expected = Checksum.of(bytes)
            var random = SplitMix64(seed: UInt64(count))
            for round in 0..<6 {
                var stream = Checksum.Stream()
                var start = 0
                while start < count {
                    let length = min(count - start, [0, 1, 9, Self.block - 3, Self.block, 2 * Self.block + 5][Int.random(in: 0...5, using: &random)])
                    stream.add(UnsafeRawBufferPointer(rebasing: bytes[start..<start + length]))
                    start += length
                }
                #expect(stream.total == expected, "\(count) bytes, round \(round)")
            }
        }
    }

    @Test("A changed byte in any block, or two blocks swapped, changes the checksum")
    func detectsChanges() {
        let original = Self.bytes(3 * Self.block + 100, seed: 7)
        let sum = original.withUnsafeBytes { Checksum.of($0) }
        for offset in [0, Self.block - 1, Self.block, 2 * Self.block + 17, original.count - 1] {
            var changed = original
            changed[offset] ^= 0x01
            #expect(changed.withUnsafeBytes { Checksum.of($0) } != sum, "a bit flipped at \(offset)")
        }
        let swapped = Array(original[Self.block..<2 * Self.block] + original[0..<Self.block] + original[(2 * Self.block)...])
        #expect(swapped.withUnsafeBytes { Checksum.of($0) } != sum)
        #expect(original.dropLast().withUnsafeBytes { Checksum.of($0) } != sum, "truncated")
    }
}
