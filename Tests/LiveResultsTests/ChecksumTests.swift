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
