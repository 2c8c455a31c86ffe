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

    @Test("Copies of any ranges are exact, and the total is the checksum whichever ranges were copied",
          arguments: [0, 1, 31, block - 1, block, block + 7, 2 * Checksum.parallelBlocks * block + 12_345])
    func tallyOfCopies(_ count: Int) {
        let seed = UInt64(count)
        let data = Self.bytes(count + 8, seed: seed) // 8 more: bytes past the tallied ones
        data.withUnsafeBytes { bytes in
            let tallied = UnsafeRawBufferPointer(rebasing: bytes[..<count])
            let expected = Checksum.of(tallied)
            var random = SplitMix64(seed: seed)
            for round in 0..<6 {
                var tally = Checksum.Tally(byteCount: count)
                var start = 0
                while start < count + 8 {
                    // Ranges from empty to many blocks, the last one past the tallied bytes.
                    let length = min(count + 8 - start, [0, 1, 9, Self.block, 3 * Self.block + 5, count + 8][Int.random(in: 0...5, using: &random)])
                    var copy = [UInt8](repeating: 0, count: length)
                    copy.withUnsafeMutableBytes { destination in
                        if let base = destination.baseAddress { tally.copy(start..<start + length, of: bytes, to: base) }
                    }
                    #expect(copy == Array(data[start..<start + length]), "seed \(seed), round \(round): the copy of \(start)..<\(start + length)")
                    if round % 2 == 1, length > 0 { start += length + 1 } else { start += max(length, 1) } // odd rounds skip bytes
                }
                #expect(tally.total(of: bytes) == expected, "seed \(seed), round \(round)")
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
