import Testing
import TestSupport
@testable import LiveResults

/// The filter's column (`TextColumn`) against a plain search of every value: its planes
/// (`BytePlanes`) and the values longer than them, the refining of earlier matches, and the
/// search cut in chunks on several threads.
@Suite struct TextColumnTests {
    /// Pieces of values: ASCII of both cases, digits, a space, non-ASCII (é precomposed
    /// and decomposed, ß, a CJK character, an emoji), so that needles split multi-byte
    /// characters too, and NUL (not found by plane: the planes pad with it). Values of up to
    /// 14 pieces are often longer than the planes.
    static let pieces = ["a", "A", "b", "B", "e", "t", "1", "2", " ", "\u{E9}", "e\u{301}", "\u{DF}", "\u{65E5}", "\u{1F3C6}", "ab", "te", "\u{0}"]

    static func randomValue(_ random: inout SplitMix64) -> [UInt8]? {
        guard !random.chance(0.05) else { return nil }
        return Array((0..<random.int(0...14)).map { _ in random.pick(pieces) }.joined().utf8)
    }

    /// The slots whose value contains `needle`, and every position where it occurs in each,
    /// by a plain search.
    static func oracle(_ values: [[UInt8]?], _ needle: [UInt8]) -> [Int: [Int]] {
        var found: [Int: [Int]] = [:]
        for (slot, value) in values.enumerated() {
            guard let value, needle.count <= value.count else { continue }
            let at = (0...(value.count - needle.count)).filter { value[$0..<$0 + needle.count].elementsEqual(needle) }
            if !at.isEmpty { found[slot] = at }
        }
        return found
    }

    /// Checks matches against the oracle: the same slots, and the same positions within the
    /// planes (for a needle without NUL).
    static func check(_ matches: Matches, _ values: [[UInt8]?], _ needle: [UInt8], _ label: String) {
        let expected = oracle(values, needle)
        let text = String(decoding: needle, as: UTF8.self).debugDescription
        let slots = (0..<values.count).filter { matches.contains($0) }
        #expect(Set(slots) == Set(expected.keys), "\(label): the matching slots of \(text)")
        #expect(matches.count == expected.count, "\(label): the count of \(text)")
        #expect((matches.positions == nil) == needle.contains(0), "\(label): positions kept for \(text)")
        guard matches.positions != nil else { return }
        let positionCount = max(0, BytePlanes.width - needle.count + 1)
        #expect(matches.positions?.count == positionCount, "\(label): positions of \(text)")
        // Where the needle is, in a fifth of the slots (which fifth varies with the needle).
        for slot in values.indices where (slot + needle.count) % 5 == 0 {
            let held = (0..<positionCount).filter { matches.holds(slot, at: $0) }
            // The empty needle is held everywhere in a matching slot (the next byte narrows it).
            let wanted = needle.isEmpty
                ? (expected[slot] == nil ? [] : Array(0..<positionCount))
                : (expected[slot] ?? []).filter { $0 < positionCount }
            #expect(held == wanted, "\(label): where \(text) is in slot \(slot)")
            if held != wanted { return }
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
            #expect(parallel.bits == serial.matches.bits && parallel.positions == serial.matches.positions, "step \(step): parallel and serial differ")
        }
    }

    @Test("A column loaded in bulk (serially or in chunks on several threads), slots in any order and some given twice, holds and matches what setting each value holds, through later changes too",
          arguments: [Int.max, 0])
    func loadedInAnyOrder(parallelFrom: Int) throws {
        var random = SplitMix64(seed: 40)
        // The last slots' values alone start with "Zq" (a byte no piece has): in chunks, only
        // the last chunk counts it at the first position.
        var values = (0..<2_000).map { slot in Self.randomValue(&random).map { slot >= 1_800 ? Array("Zq".utf8) + $0 : $0 } }
        var loader = TextColumn.Loader(slotCount: values.count)
        // Every slot, in a shuffled order; some first with another value, which the second replaces.
        var order = Array(values.indices)
        for i in order.indices.reversed() { order.swapAt(i, random.int(0...i)) }
        for slot in order {
            if random.chance(0.1) { try Self.randomValue(&random).withUnsafeBytesOrNil { try loader.add($0, at: slot) } }
            try values[slot].withUnsafeBytesOrNil { try loader.add($0, at: slot) }
        }
        var column = try loader.column(parallelFrom: parallelFrom)
        for (slot, value) in values.enumerated() {
            #expect(value.withUnsafeBytesOrNil { column.hasValue($0, atSlot: slot) }, "slot \(slot)")
        }
        // Every byte alone (answered from the planes' counts where no value or every value
        // holds it at a position), then longer needles; again after values changed.
        let needles = (1...255).map { [UInt8($0)] } + ["te", "1", "\u{E9}", "b 2", "", "\u{0}"].map { Array($0.utf8) }
        for round in 0..<2 {
            for needle in needles {
                Self.check(column.matches(needle, parallelFrom: parallelFrom), values, needle, "loaded, round \(round)")
            }
            for _ in 0..<300 {
                let slot = random.int(0..<values.count)
                values[slot] = Self.randomValue(&random)
                try column.set(values[slot], at: slot)
            }
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
    @Test("Names alike by position: a byte every value holds there, or none, is answered from the counts, and stays right through commits")
    func namesAlikeByPosition() throws {
        // Like generated names: "Team 0000001", every value with "T" at 0 and " " at 4.
        var values: [[UInt8]?] = (0..<700).map { number in
            let digits = String(number * 7919 % 1_000_003)
            return Array(("Team " + String(repeating: "0", count: 7 - digits.count) + digits).utf8)
        }
        values += [nil, [], Array("Team".utf8), Array("A team longer than the planes hold".utf8)]
        var column = TextColumn(slotCount: 10)  // grows as slots arrive
        for (slot, value) in values.enumerated() { try column.set(value, at: slot) }
        var filter = RowFilter(needle: [], column: column, matches: column.matches([]), view: nil)
        func type(_ needle: String) {
            let bytes = Array(needle.utf8)
            let narrows = LiveResult.bytes(bytes, contain: filter.needle)
            filter.matches = narrows
                ? filter.column.matches(bytes, refining: filter.matches, previousNeedle: filter.needle, parallelFrom: 0)
                : filter.column.matches(bytes, parallelFrom: .max)
            filter.needle = bytes
            Self.check(filter.matches, values, bytes, "after typing \(needle.debugDescription)")
        }
        for needle in ["T", "Te", "Tea", "Team", "Team ", "Team 0", "Team 00", "Team 001"] { type(needle) }
        // A commit: a value no longer like the others at position 0, one more like them, one longer.
        for (slot, value) in [(3, "Xeam 0000003"), (700, "Team 0000042"), (5, "Team 0000005 and far more than sixteen bytes")] {
            values[slot] = Array(value.utf8)
            try filter.set(values[slot], at: slot)
            Self.check(filter.matches, values, filter.needle, "after setting slot \(slot)")
        }
        for needle in ["", "e", "ea", "eam 0", "m 0000005", "far", "far more", "00"] { type(needle) }
    }
}

private extension Optional where Wrapped == [UInt8] {
    /// The bytes as a raw buffer, or nil for nil.
    func withUnsafeBytesOrNil<Result>(_ body: (UnsafeRawBufferPointer?) throws -> Result) rethrows -> Result {
        guard let self else { return try body(nil) }
        return try self.withUnsafeBytes { try body($0) }
    }
}
