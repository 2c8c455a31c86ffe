import Testing
import TestSupport
@testable import LiveResults

/// The filter's column (`TextColumn`) against a plain search of every value: its byte sets,
/// the refining of earlier matches, and the search cut in chunks on several threads.
@Suite struct TextColumnTests {
    /// Pieces of values: ASCII of both cases, digits, a space, and non-ASCII (é precomposed
    /// and decomposed, ß, a CJK character, an emoji), so that needles split multi-byte characters too.
    static let pieces = ["a", "A", "b", "B", "e", "t", "1", "2", " ", "\u{E9}", "e\u{301}", "\u{DF}", "\u{65E5}", "\u{1F3C6}", "ab", "te"]

    static func randomValue(_ random: inout SplitMix64) -> [UInt8]? {
        guard !random.chance(0.05) else { return nil }
        return Array((0..<random.int(0...14)).map { _ in random.pick(pieces) }.joined().utf8)
    }

    /// The slots whose value contains `needle`, and where it first occurs, by a plain search.
    static func oracle(_ values: [[UInt8]?], _ needle: [UInt8]) -> [Int: Int] {
        var found: [Int: Int] = [:]
        for (slot, value) in values.enumerated() {
            guard let value, needle.count <= value.count else { continue }
            for start in 0...(value.count - needle.count) where value[start..<start + needle.count].elementsEqual(needle) {
                found[slot] = start
                break
            }
        }
        return found
    }

    /// Checks matches against the oracle: the same slots, and every offset it knows right.
    static func check(_ matches: Matches, _ values: [[UInt8]?], _ needle: [UInt8], _ label: String) {
        let expected = oracle(values, needle)
        let slots = (0..<values.count).filter { matches.contains($0) }
        #expect(Set(slots) == Set(expected.keys), "\(label): the matching slots of “\(String(decoding: needle, as: UTF8.self))”")
        #expect(matches.count == expected.count, "\(label): the count of “\(String(decoding: needle, as: UTF8.self))”")
        for slot in slots where Int(matches.offsets[slot]) != Matches.unknownOffset {
            #expect(Int(matches.offsets[slot]) == expected[slot], "\(label): the first occurrence in slot \(slot)")
        }
    }

    @Test("Typed, erased and changed needles match as a plain search does, serially and in parallel chunks")
    func matchesLikeAPlainSearch() throws {
        var random = SplitMix64(seed: 14)
        let slotCount = 3_000
        var values = (0..<slotCount).map { _ in Self.randomValue(&random) }
        var column = TextColumn(slotCount: slotCount)
        for (slot, value) in values.enumerated() { try column.set(value, at: slot) }
        column.compact()

        var serial = RowFilter(needle: [], column: column, matches: column.matches([], parallelFrom: .max), view: nil)
        var parallel = column.matches([], parallelFrom: 0)
        Self.check(serial.matches, values, [], "serial")
        Self.check(parallel, values, [], "parallel")
        for step in 0..<400 {
            let old = serial.needle
            var needle = old
            switch random.int(0..<10) {
            case 0..<5: needle += Array(random.pick(Self.pieces).utf8)  // a key typed at the end
            case 5: needle = Array(random.pick(Self.pieces).utf8) + needle  // at the front: narrows, does not extend
            case 6: needle = Array(needle.dropLast(random.int(1...3)))  // erased: searched afresh
            case 7: needle = []
            default:
                // A commit changes some values (and a new slot past the end now and then).
                for _ in 0..<random.int(1...20) {
                    let slot = random.chance(0.05) ? values.count : random.int(0..<values.count)
                    let value = Self.randomValue(&random)
                    if slot == values.count { values.append(value) } else { values[slot] = value }
                    try serial.set(value, at: slot)
                }
                Self.check(serial.matches, values, needle, "step \(step), after a commit")
                continue
            }
            let narrows = LiveResult.bytes(needle, contain: old)
            let previous = serial.matches
            serial.matches = narrows
                ? serial.column.matches(needle, refining: previous, previousNeedle: old, parallelFrom: .max)
                : serial.column.matches(needle, parallelFrom: .max)
            parallel = narrows
                ? serial.column.matches(needle, refining: previous, previousNeedle: old, parallelFrom: 0)
                : serial.column.matches(needle, parallelFrom: 0)
            serial.needle = needle
            Self.check(serial.matches, values, needle, "step \(step), serial")
            Self.check(parallel, values, needle, "step \(step), parallel")
            #expect(parallel.bits == serial.matches.bits && parallel.offsets == serial.matches.offsets, "step \(step): parallel and serial differ")
        }
    }

    @Test("A needle with a byte no value holds matches nothing; NULL matches not even the empty needle")
    func absentBytesAndNull() throws {
        var column = TextColumn(slotCount: 3)
        try column.set(Array("abc".utf8), at: 0)
        try column.set(nil as [UInt8]?, at: 1)
        try column.set([], at: 2)
        #expect(column.matches(Array("z".utf8)).count == 0)
        let all = column.matches([])
        #expect(all.count == 2 && all.contains(0) && !all.contains(1) && all.contains(2))
        // A value replaced forgets its bytes.
        try column.set(Array("xyz".utf8), at: 0)
        #expect(column.matches(Array("a".utf8)).count == 0)
        #expect(column.matches(Array("y".utf8)).contains(0))
    }
}
