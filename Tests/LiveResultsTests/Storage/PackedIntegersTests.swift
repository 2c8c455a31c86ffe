import Foundation
import TestSupport
import Testing
@testable import LiveResults

@Suite("PackedIntegers")
struct PackedIntegersTests {
    @Test("The width is the narrowest that holds every value", arguments: [
        ([0, 127, -128], 1), ([128], 2), ([-129, 5], 2), ([32_768], 4), ([-2_147_483_648], 4), ([2_147_483_648], 8), ([Int64.min], 8),
    ] as [([Int64], Int)])
    func width(values: [Int64], bytes: Int) {
        let packed = PackedIntegers(values)
        #expect(packed.bytesPerElement == bytes)
        #expect(packed.values == values)
        var grown = PackedIntegers()
        for value in values { grown.append(value) }
        #expect(grown.bytesPerElement == bytes, "appending one by one widens to the same width")
        #expect(grown.values == values)
    }

    @Test("Random sets, appends and repeats read back what was stored, widening only as needed", arguments: [1, 2, 3, 4])
    func randomOperations(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        var packed = PackedIntegers()
        var oracle: [Int64] = []
        let bounds: [Int64] = [100, 30_000, 2_000_000_000, Int64.max]
        for step in 0..<2_000 {
            // Values grow wider over time, with a few narrow ones after.
            let bound = bounds[max(0, min(bounds.count - 1, step / 500 + Int.random(in: -1...0, using: &random)))]
            let value = Int64.random(in: -bound...bound, using: &random)
            switch Int.random(in: 0..<10, using: &random) {
            case 0..<5 where !oracle.isEmpty:
                let index = Int.random(in: 0..<oracle.count, using: &random)
                packed.set(value, at: index)
                oracle[index] = value
            case 5:
                let count = Int.random(in: 0..<4, using: &random)
                packed.append(value, count: count)
                oracle.append(contentsOf: repeatElement(value, count: count))
            default:
                packed.append(value)
                oracle.append(value)
            }
            #expect(packed.count == oracle.count)
        }
        #expect(packed.values == oracle)
        let widest = oracle.map(PackedIntegers.width).max() ?? 1
        #expect(packed.bytesPerElement >= widest)
        #expect(PackedIntegers(oracle).bytesPerElement == widest)
        let indices = (0..<50).map { _ in Int32.random(in: 0..<Int32(oracle.count), using: &random) }
        let gathered = packed.gather(indices)
        #expect(gathered.values == indices.map { oracle[Int($0)] })
        #expect(gathered.bytesPerElement == packed.bytesPerElement, "gathering keeps the width")
    }

    @Test("Widening keeps the reserved capacity, so a fetch does not reallocate")
    func capacityKept() {
        var packed = PackedIntegers()
        packed.reserveCapacity(1_000)
        packed.append(1)
        packed.append(1 << 20)
        #expect(packed.bytesPerElement == 4)
        #expect(packed.capacity >= 1_000)
        #expect(packed.values == [1, 1 << 20])
    }

    @Test("Its bytes are the elements in order, little-endian, as the cache writes them")
    func bytes() {
        let packed = PackedIntegers([1, -2, 300])
        #expect(packed.withUnsafeBytes { Array($0) } == [1, 0, 0xFE, 0xFF, 0x2C, 0x01])
    }

    @Test("Bounds and forEach see every element in order, in every width", arguments: [1, 2, 4, 8])
    func boundsAndForEach(width: Int) {
        let scale: Int64 = width == 1 ? 1 : (width == 2 ? 100 : (width == 4 ? 1_000_000 : 1 << 40))
        let values = [3, -2, 100, 0].map { $0 * scale }
        let packed = PackedIntegers(values)
        #expect(packed.bytesPerElement == width)
        #expect(packed.bounds == (-2 * scale)...(100 * scale))
        var seen: [(Int, Int64)] = []
        packed.forEach { seen.append(($0, $1)) }
        #expect(seen.map(\.0) == [0, 1, 2, 3] && seen.map(\.1) == values)
        #expect(PackedIntegers().bounds == nil)
    }
}
