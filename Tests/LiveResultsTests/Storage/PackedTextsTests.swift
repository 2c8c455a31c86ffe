import Foundation
import Testing
@testable import LiveResults

@Suite("PackedTexts")
struct PackedTextsTests {
    /// The values of every slot, as strings.
    static func strings(_ texts: PackedTexts) -> [String] {
        (0..<texts.count).map { texts.string(at: $0) }
    }

    @Test("Values are appended, replaced in place or moved to the end, and read back exactly")
    func setAndRead() {
        var texts = PackedTexts()
        for name in ["Ghana", "", "Zone é 🌍", "Mali"] { texts.set(name, at: texts.count) }
        #expect(Self.strings(texts) == ["Ghana", "", "Zone é 🌍", "Mali"])
        texts.set("Togo", at: 0) // shorter: in place
        texts.set("Burkina Faso", at: 3) // longer: at the end
        texts.set("x", at: 1)
        #expect(Self.strings(texts) == ["Togo", "x", "Zone é 🌍", "Burkina Faso"])
        #expect(texts.compare(0, 3) > 0 && texts.compare(3, 0) < 0 && texts.compare(2, 2) == 0)
    }

    @Test("Texts compare by their UTF-8 bytes, the shorter first when one begins the other")
    func order() {
        var texts = PackedTexts()
        for name in ["é", "e\u{301}", "Team 1", "Team 10", "Team 2"] { texts.set(name, at: texts.count) }
        #expect(texts.compare(0, 1) > 0, "é (C3 A9) after e + U+0301 (65 …)")
        #expect(texts.compare(2, 3) < 0 && texts.compare(3, 4) < 0)
    }

    @Test("Values that keep growing leave unused bytes, which a compaction drops without changing a value")
    func compaction() {
        var texts = PackedTexts()
        var expected: [String] = []
        for slot in 0..<200 {
            expected.append("Team \(slot)")
            texts.set(expected[slot], at: slot)
        }
        for round in 1...40 {
            for slot in stride(from: round % 3, to: 200, by: 3) {
                expected[slot] += "·\(round)"
                texts.set(expected[slot], at: slot)
            }
            #expect(Self.strings(texts) == expected)
        }
        let used = expected.reduce(0) { $0 + $1.utf8.count }
        #expect(texts.byteCount <= 2 * used + 4096, "compacted: \(texts.byteCount) bytes held for \(used) used")
    }

    @Test("The cache's form, lengths, starts and then bytes, reads back; lengths or starts that do not describe the bytes are refused")
    func packedForm() {
        var texts = PackedTexts()
        // Lengths from 255 bytes on are kept apart from the one-byte ones.
        let long = [String(repeating: "x", count: 254), String(repeating: "y", count: 255), String(repeating: "é", count: 300)]
        for name in ["Ghana", "Mali", "Zone é 🌍", ""] + long { texts.set(name, at: texts.count) }
        texts.set("Burkina Faso", at: 1)
        let gathered = texts.gather([3, 2, 1, 0, 6, 5, 4])
        #expect(Self.strings(gathered) == ["", "Zone é 🌍", "Burkina Faso", "Ghana"] + long.reversed())
        let (short, longLengths, starts, bytes) = gathered.packed
        #expect(longLengths == [4: 600, 5: 255])
        #expect(Array(starts) == [0, 0, 12, 24, 29, 629, 884])
        func read(_ short: FlatArray<UInt8>, _ longLengths: [Int: UInt32], _ starts: FlatArray<UInt32>, _ bytes: FlatArray<UInt8>) -> [String]? {
            PackedTexts(shortLengths: short, longLengths: longLengths, starts: starts, utf8: bytes).map(Self.strings)
        }
        #expect(read(short, longLengths, starts, bytes) == Self.strings(gathered))
        let moved = texts.packed // a value moved to the end: packed afresh
        #expect(read(moved.shortLengths, moved.longLengths, moved.starts, moved.utf8) == Self.strings(texts))
        #expect(read(short + [1], longLengths, starts + [1138], bytes) == nil, "more lengths than bytes")
        #expect(read(short + [1], longLengths, starts, bytes) == nil, "more lengths than starts")
        #expect(read(short, longLengths, starts, FlatArray(bytes.dropLast())) == nil, "fewer bytes than lengths")
        #expect(read(short, [4: 600], starts, bytes) == nil, "a long length missing")
        #expect(read(short, [4: 600, 5: 255, 0: 300], starts, bytes) == nil, "a long length for a short one")
        #expect(read(short, [4: 600, 5: 255, 9: 300], starts, bytes) == nil, "a long length for no slot")
        #expect(read(short, [4: 600, 5: 12], starts, bytes) == nil, "a long length that is short")
        for slot in starts.indices {
            var misplaced = starts
            misplaced[slot] &+= 1
            #expect(read(short, longLengths, misplaced, bytes) == nil, "the start of slot \(slot) out of place")
        }
    }

    @Test("The cache's form of many texts reads back in chunks on several threads; a start out of place in any chunk is refused")
    func packedFormInChunks() {
        var texts = PackedTexts()
        let count = ParallelChunks.parallelItems + 1_000
        for slot in 0..<count { texts.set("team \(slot)" + (slot % 1000 == 0 ? String(repeating: "z", count: 300) : ""), at: slot) }
        let (short, longLengths, starts, bytes) = texts.packed
        #expect(PackedTexts(shortLengths: short, longLengths: longLengths, starts: starts, utf8: bytes).map(Self.strings) == Self.strings(texts))
        for slot in [1, count / 4, count / 2 + 1, count - 1] {
            var misplaced = starts
            misplaced[slot] &-= 1
            #expect(PackedTexts(shortLengths: short, longLengths: longLengths, starts: misplaced, utf8: bytes) == nil, "slot \(slot)")
        }
    }

    @Test("A flat array of many megabytes made for huge pages holds what its fill wrote")
    func hugePageArrays() {
        let count = HugePages.threshold / 4 + 12_345
        let made = FlatArray<Int32>(count: count) { buffer in
            for index in buffer.indices { buffer[index] = Int32(index) &* 7 }
        }
        #expect(made.count == count && made.indices.allSatisfy { made[$0] == Int32($0) &* 7 })
        let small = FlatArray<UInt8>(count: 3) { $0.initialize(repeating: 9) }
        #expect(small == [9, 9, 9])
    }
}
