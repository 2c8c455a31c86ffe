import Foundation
import TestSupport
import Testing
@testable import LiveResults

@Suite("FlatArray")
struct FlatArrayTests {
    @Test("Random changes do what they do to an Array, and a copy taken at any time keeps its values", arguments: [1, 2, 3])
    func randomOperations(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        var flat = FlatArray<Int32>()
        var oracle: [Int32] = []
        var copies: [(FlatArray<Int32>, [Int32])] = []
        for step in 0..<3_000 {
            let value = Int32.random(in: -1_000...1_000, using: &random)
            switch Int.random(in: 0..<12, using: &random) {
            case 0..<3:
                flat.append(value)
                oracle.append(value)
            case 3 where !oracle.isEmpty:
                let index = Int.random(in: 0..<oracle.count, using: &random)
                flat[index] = value
                oracle[index] = value
            case 4:
                let index = Int.random(in: 0...oracle.count, using: &random)
                flat.insert(value, at: index)
                oracle.insert(value, at: index)
            case 5 where !oracle.isEmpty:
                let index = Int.random(in: 0..<oracle.count, using: &random)
                #expect(flat.remove(at: index) == oracle.remove(at: index), "seed \(seed), step \(step)")
            case 6:
                let lower = Int.random(in: 0...oracle.count, using: &random)
                let upper = Int.random(in: lower...min(oracle.count, lower + 5), using: &random)
                let new = (0..<Int.random(in: 0..<6, using: &random)).map { Int32($0) &+ value }
                flat.replaceSubrange(lower..<upper, with: new)
                oracle.replaceSubrange(lower..<upper, with: new)
            case 7:
                flat.removeAll { $0 % 3 == 0 }
                oracle.removeAll { $0 % 3 == 0 }
            case 8:
                let count = Int.random(in: 0..<4, using: &random)
                flat.append(repeating: value, count: count)
                oracle.append(contentsOf: repeatElement(value, count: count))
            case 9:
                let tail = oracle.suffix(Int.random(in: 0...min(4, oracle.count), using: &random))
                flat.append(contentsOf: flat.suffix(tail.count))
                oracle.append(contentsOf: tail)
            case 10:
                copies.append((flat, oracle))
            default:
                flat.reserveCapacity(oracle.count + Int.random(in: 0..<100, using: &random))
                #expect(flat.capacity >= oracle.count)
            }
            #expect(Array(flat) == oracle, "seed \(seed), step \(step)")
        }
        for (copy, values) in copies { #expect(Array(copy) == values, "seed \(seed)") }
    }

    /// A file holding `values` `copies` times, from offset 64 (after 64 bytes of something else).
    static func mappedFile(holding values: [Int32], copies: Int = 1) throws -> (MappedFile, URL) {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("flat-array-\(UUID().uuidString)")
        var bytes = [UInt8](repeating: 0xEE, count: 64)
        for _ in 0..<copies { values.withUnsafeBytes { bytes.append(contentsOf: $0) } }
        try Data(bytes).write(to: url)
        return (try #require(MappedFile(path: url.path)), url)
    }

    @Test("An array in a mapped file reads the file; a change or a growth is the array's own, never the file's")
    func mapped() throws {
        let values: [Int32] = (0..<5_000).map { $0 &* 3 }
        let (file, url) = try Self.mappedFile(holding: values, copies: 2)
        defer { try? FileManager.default.removeItem(at: url) }
        var changed = FlatArray<Int32>(count: values.count, at: 64, of: file)
        var grown = FlatArray<Int32>(count: values.count, at: 64 + 4 * values.count, of: file)
        #expect(changed.isMapped && Array(changed) == values && Array(grown) == values)

        changed[4_000] = -1
        changed.withUnsafeMutableBufferPointer { $0[0] = -2 }
        #expect(changed.isMapped, "a change in place is written where the array is (the system copies the page)")
        #expect(changed[4_000] == -1 && changed[0] == -2 && changed[1] == 3)

        var copy = changed
        copy[1] = -3
        #expect(changed[1] == 3 && copy[1] == -3 && !copy.isMapped, "a copy is changed apart, in memory of its own")

        grown.append(7)
        #expect(!grown.isMapped && Array(grown) == values + [7], "grown out of the file into memory of its own")
        changed.moveOutOfFile()
        #expect(!changed.isMapped && changed[4_000] == -1 && changed[0] == -2 && Array(changed[1..<4_000]) == Array(values[1..<4_000]),
                "moved out of the file with its changes")

        let onDisk = try Data(contentsOf: url)
        #expect(onDisk.count == 64 + 8 * values.count)
        #expect(onDisk.withUnsafeBytes { Array($0[64...].bindMemory(to: Int32.self)) } == values + values, "the file never changes")
        let again = try #require(MappedFile(path: url.path))
        #expect(Array(FlatArray<Int32>(count: values.count, at: 64, of: again)) == values, "nor does another mapping of it")
    }

    @Test("A mapped file stays mapped while an array uses its pages, after its reader and the file's name are gone")
    func mappingOutlivesReader() throws {
        let values: [Int32] = Array(0..<1_000)
        var array: FlatArray<Int32>
        do {
            let (file, url) = try Self.mappedFile(holding: values)
            array = FlatArray(count: values.count, at: 64, of: file)
            try FileManager.default.removeItem(at: url)
        }
        #expect(Array(array) == values)
        array.removeAll()
        #expect(array.isEmpty && !array.isMapped)
    }

    @Test("A file that cannot be mapped gives no mapping")
    func unmappable() throws {
        #expect(MappedFile(path: "/nonexistent/flat-array") == nil)
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("flat-array-empty-\(UUID().uuidString)")
        try Data().write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        #expect(MappedFile(path: url.path) == nil, "an empty file")
    }
}
