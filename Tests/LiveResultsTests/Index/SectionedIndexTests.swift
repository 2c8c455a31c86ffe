import Foundation
import TestSupport
import GRDB
import Testing
@testable import LiveResults
@testable import LiveResultsSQLite

/// The in-memory index on its own, without a database: random changes against a sorting
/// oracle, batches applied the way a table view applies them, and its invariants.
@Suite("SectionedIndex")
struct SectionedIndexTests {
    /// A row of the oracle: section, score (descending), name, then id.
    struct Row: Equatable {
        var id: RecordID
        var section: Int64
        var score: Int64
        var name: String

        var key: RowKey { RowKey(section: section.columnValue, sort: [section.columnValue, score.columnValue, name.columnValue]) }

        /// Result order: section, score descending, name by bytes, id.
        static func precedes(_ a: Row, _ b: Row) -> Bool {
            if a.section != b.section { return a.section < b.section }
            if a.score != b.score { return a.score > b.score }
            // By bytes, as SQLite: Swift's == finds "é" and "e\u{301}" equal.
            if Array(a.name.utf8) != Array(b.name.utf8) { return Array(a.name.utf8).lexicographicallyPrecedes(Array(b.name.utf8)) }
            return a.id < b.id
        }
    }

    static let ascending = [true, false, true]

    static func layout(_ rows: [Row]) -> [Layout] {
        var result: [Layout] = []
        for row in rows.sorted(by: Row.precedes) {
            if let last = result.last, last.name == String(row.section) {
                result[result.count - 1].ids.append(row.id)
            } else {
                result.append(Layout(String(row.section), [row.id]))
            }
        }
        return result
    }

    static func layout(_ index: SectionedIndex) -> [Layout] {
        index.sections.indices.map { s in Layout(index.sections[s].name, index.ids(inSection: s, rows: 0..<index.rowCount(inSection: s))) }
    }

    /// A batch as the delegate would have seen it.
    static func events(_ batch: ChangeBatch, in index: SectionedIndex) -> [Recorder.Event] {
        guard !batch.isEmpty else { return [] }
        var events: [Recorder.Event] = [.willChange]
        for change in batch.sectionChanges {
            events.append(.section(change.kind, index: change.index, name: change.name, count: change.kind == .insert ? index.rowCount(inSection: change.index) : 0))
        }
        for change in batch.rowChanges { events.append(.row(change.kind, id: change.id, from: change.indexPath, to: change.newIndexPath)) }
        return events + [.didChange]
    }

    /// Rows with ids 1...count, random sections and scores, and names that repeat.
    static func randomRows(_ count: Int, sections: Int, scores: Int, _ random: inout SplitMix64) -> [Row] {
        (1...count).map { id in
            Row(id: RecordID(id), section: Int64(random.int(0..<sections)), score: Int64(random.int(0..<scores)), name: random.pick(["a", "b", "é", "z"]))
        }
    }

    static func index(_ rows: [Row]) throws -> SectionedIndex {
        try SectionedIndex(ascending: ascending, unsectioned: false, sortedRows: rows.sorted(by: Row.precedes).map { ($0.id, $0.key) }, sectionName: SectionedIndex.sectionName)
    }

    @Test("Random changes of up to six rows (sixty for seeds 5 and 6: sections changed in one pass): the index matches a sort, the batch rebuilds it, invariants hold",
          arguments: [UInt64(1), 2, 3, 4, 5, 6])
    func randomChanges(seed: UInt64) throws {
        let large = seed > 4
        var random = SplitMix64(seed: seed)
        var rows: [RecordID: Row] = [:]
        var nextID: RecordID = 1
        func newRow() -> Row {
            defer { nextID += 1 }
            return Row(id: nextID, section: Int64(random.int(0..<4)), score: Int64(random.int(0..<5)), name: random.pick(["a", "b", "B", "é", "e\u{301}", "z"]))
        }
        for _ in 0..<(large ? 300 : 30) { let row = newRow(); rows[row.id] = row }
        var index = try Self.index(Array(rows.values))
        for step in 0..<(large ? 150 : 400) {
            let old = Self.layout(Array(rows.values))
            var changes: [(id: RecordID, key: RowKey?)] = []
            var changed = Set<RecordID>()
            for _ in 0..<random.int(1...(large ? 60 : 6)) {
                let ids = rows.keys.sorted()
                switch random.int(0..<10) {
                case 0, 1:
                    let row = newRow()
                    rows[row.id] = row
                    changes.append((row.id, row.key))
                    changed.insert(row.id)
                case 2 where !ids.isEmpty:
                    let id = random.pick(ids)
                    rows[id] = nil
                    changes.append((id, nil))
                    changed.insert(id)
                default:
                    guard !ids.isEmpty else { continue }
                    let id = random.pick(ids)
                    var row = rows[id]!
                    switch random.int(0..<4) {
                    case 0: row.score += 1
                    case 1: row.name = random.pick(["a", "b", "c", "A", "é"])
                    case 2: row.section = Int64(random.int(0..<5))
                    default: break // written, unchanged
                    }
                    rows[id] = row
                    changes.append((id, row.key))
                    changed.insert(id)
                }
            }
            let batch = try index.apply(changes, sectionName: SectionedIndex.sectionName)
            index._checkInvariants()
            let new = Self.layout(Array(rows.values))
            #expect(Self.layout(index) == new, "seed \(seed), step \(step)")
            let problems = batchViolations(old: old, new: new, events: Self.events(batch, in: index), touched: changed)
            #expect(problems.isEmpty, "seed \(seed), step \(step): \(problems)")
            if !problems.isEmpty { return }
        }
    }

    @Test("Many changes replayed without a batch (a cache catching up) give the index that applying them gives: rows in and out, sections made and emptied",
          arguments: [UInt64(1), 2, 3])
    func replayMatchesApply(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        var rows: [RecordID: Row] = [:]
        var nextID: RecordID = 1
        func newRow(sections: Int) -> Row {
            defer { nextID += 1 }
            return Row(id: nextID, section: Int64(random.int(0..<sections)), score: Int64(random.int(0..<20)), name: random.pick(["a", "b", "B", "é", "e\u{301}", "z"]))
        }
        for _ in 0..<2_000 { let row = newRow(sections: 4); rows[row.id] = row }
        var replayed = try Self.index(Array(rows.values))
        var applied = replayed
        for step in 0..<12 {
            var changes: [(id: RecordID, key: RowKey?)] = []
            // Now and then a whole section goes (the last of its rows leaves).
            if step % 4 == 3, let section = rows.values.map(\.section).min() {
                for (id, row) in rows where row.section == section {
                    rows[id] = nil
                    changes.append((id, nil))
                }
            }
            // A few rows (taken through apply) or many (in one pass); some written twice.
            for _ in 0..<random.pick([3, 40, 200, 1_500]) {
                let ids = Array(rows.keys)
                switch random.int(0..<10) {
                case 0, 1:
                    let row = newRow(sections: 7) // sometimes a section that is new
                    rows[row.id] = row
                    changes.append((row.id, row.key))
                case 2:
                    let id = random.pick(ids)
                    rows[id] = nil
                    changes.append((id, nil))
                default:
                    let id = random.pick(ids)
                    var row = rows[id]!
                    switch random.int(0..<3) {
                    case 0: row.score = Int64(random.int(0..<20))
                    case 1: row.name = random.pick(["a", "c", "A", "é"])
                    default: row.section = Int64(random.int(0..<7))
                    }
                    rows[id] = row
                    changes.append((id, row.key))
                }
            }
            try replayed.replay(changes, sectionName: SectionedIndex.sectionName)
            _ = try applied.apply(changes, sectionName: SectionedIndex.sectionName)
            replayed._checkInvariants()
            #expect(Self.layout(replayed) == Self.layout(Array(rows.values)), "seed \(seed), step \(step), \(changes.count) changes")
            #expect(Self.layout(replayed) == Self.layout(applied), "seed \(seed), step \(step)")
        }
    }

    @Test("A search that starts near a place finds what a search of the whole section finds, wherever it starts")
    func searchFromNearAPlace() throws {
        var random = SplitMix64(seed: 9)
        let rows = Self.randomRows(1_500, sections: 2, scores: 30, &random)
        let index = try Self.index(rows)
        let slots = index.sections[0].slots
        for probe in 0..<index.store.ids.count where random.chance(0.2) {
            for skipped in [nil, 0, random.int(0..<slots.count), slots.count - 1] as [Int?] {
                let count = slots.count - (skipped == nil ? 0 : 1)
                let whole = index.insertionIndex(of: probe, in: slots, skipping: skipped)
                for start in [0, 1, count / 2, count - 1, count, whole, whole - 1, whole + 1, random.int(0...count), -3, count + 3] {
                    #expect(index.insertionIndex(of: probe, in: slots, skipping: skipped, near: start) == whole,
                            "slot \(probe), skipping \(skipped.map(String.init) ?? "none"), from \(start)")
                }
            }
        }
    }

    @Test("A view keeps exactly the rows whose slot's bit is set, in order, whether the slots are in runs or were moved about")
    func viewKeepsTheSetBits() throws {
        var random = SplitMix64(seed: 14)
        var rows = Self.randomRows(3_000, sections: 4, scores: 50, &random)
        // Built from sorted rows, each section's slots are one run (taken 64 at a time); after
        // rows moved, some stretches are not.
        var index = try Self.index(rows)
        for moved in [false, true] {
            if moved {
                var changes: [(id: RecordID, key: RowKey?)] = []
                for _ in 0..<300 {
                    let place = random.int(0..<rows.count)
                    rows[place].score = Int64(random.int(0..<50))
                    changes.append((rows[place].id, rows[place].key))
                }
                _ = try index.apply(changes, sectionName: SectionedIndex.sectionName)
            }
            let wordCount = (index.store.ids.count + 63) / 64
            // None, a few, about half, all but a few, all; and bits that stop short of the last slots.
            for (share, words) in [(0.0, wordCount), (0.01, wordCount), (0.5, wordCount), (0.99, wordCount), (1.0, wordCount), (0.5, wordCount / 2)] {
                var bits = [UInt64](repeating: 0, count: words)
                for row in rows where random.chance(share) {
                    let slot = try #require(index.store.slot(for: row.id))
                    if slot >> 6 < words { bits[slot >> 6] |= 1 << UInt64(slot & 63) }
                }
                let kept = rows.filter { row in
                    let slot = index.store.slot(for: row.id)!
                    return slot >> 6 < words && bits[slot >> 6] & (1 << UInt64(slot & 63)) != 0
                }
                let view = index.view(keepingSlotsIn: bits)
                view._checkInvariants()
                #expect(Self.layout(view) == Self.layout(kept), "moved \(moved), share \(share), \(words) words")
            }
        }
    }

    @Test("A word's set bits are written as numbers from a first one, in order, eight bits at a time, never past 64 numbers")
    func bitOffsetsWriteTheSetBits() {
        var random = SplitMix64(seed: 64)
        let words: [UInt64] = [0, 1, 1 << 63, .max, 0x8000_0000_0000_0001, 0x00FF_00FF_00FF_00FF]
            + (0..<500).map { _ in random.next() & random.next() | (random.chance(0.3) ? random.next() : 0) }
        var output = [Int32](repeating: -1, count: 10 + 64 + 1)
        for word in words {
            let first = Int32(random.int(0..<1_000_000))
            let expected = (0..<64).filter { word & (1 << UInt64($0)) != 0 }.map { first + Int32($0) }
            for i in output.indices { output[i] = -1 }
            let written = output.withUnsafeMutableBufferPointer { output in
                BitOffsets.table.withUnsafeBufferPointer { offsets in
                    BitOffsets.write(word, from: first, into: output.baseAddress!, at: 10, offsets: offsets)
                }
            }
            #expect(written == 10 + expected.count, "word \(String(word, radix: 16))")
            #expect(Array(output[10..<written]) == expected, "word \(String(word, radix: 16))")
            #expect(output[..<10].allSatisfy { $0 == -1 } && output[10 + 64] == -1, "wrote outside its 64 numbers: word \(String(word, radix: 16))")
        }
    }

    @Test("A filter typed one key further makes its view from the index when the index's slots are in runs, and from the view before when they are not")
    func narrowingFromTheIndexOrThePreviousView() throws {
        var random = SplitMix64(seed: 21)
        var rows = (1...3_000).map { id in
            Row(id: RecordID(id), section: Int64(random.int(0..<3)), score: Int64(random.int(0..<40)), name: "team \(random.int(0..<100_000))")
        }
        var index = try Self.index(rows)
        #expect(index.shareInRuns == 1, "built from sorted rows, every section is one run")
        for moved in [false, true] {
            if moved {
                // Most rows change place: few runs of 64 are left.
                let changes = rows.indices.map { place -> (id: RecordID, key: RowKey?) in
                    rows[place].score = Int64(random.int(0..<40))
                    return (rows[place].id, rows[place].key)
                }
                _ = try index.apply(changes, sectionName: SectionedIndex.sectionName)
                #expect(index.shareInRuns < 0.5)
            }
            var column = TextColumn(slotCount: index.store.count)
            for row in rows { try column.set(Array(row.name.utf8), at: try #require(index.store.slot(for: row.id))) }
            var result = LiveResult(index: index, limit: 0)
            result.setFilter(needle: Array("team ".utf8), column: column)
            #expect(!result.filter!.hasView, "every name contains “team ”")
            // In runs, "team 12" is made from the index (3,000 rows in runs cost as about 300
            // alone, against the about 330 of "team 1"), "team 123" from the view before.
            for needle in ["team 1", "team 12", "team 123", "team 1"] {
                result.setFilter(needle: Array(needle.utf8))
                let kept = rows.filter { $0.name.contains(needle) }
                result.filtered._checkInvariants()
                #expect(Self.layout(result.filtered) == Self.layout(kept), "moved \(moved), needle \(needle)")
            }
        }
    }

    @Test("A change that would split a section throws and leaves the index as it was")
    func outOfOrder() throws {
        // Sorted by score only, sectioned by zone: zone 1 holds scores 5 and 3, zone 2 holds 1.
        func rowKey(_ zone: Int64, _ score: Int64) -> RowKey { RowKey(section: zone.columnValue, sort: [score.columnValue]) }
        let rows: [(id: RecordID, key: RowKey)] = [(1, rowKey(1, 5)), (2, rowKey(1, 3)), (3, rowKey(2, 1))]
        var index = try SectionedIndex(ascending: [false], unsectioned: false, sortedRows: rows, sectionName: SectionedIndex.sectionName)
        let before = Self.layout(index)
        // Zone 2's row between zone 1's: zone 1 would be split.
        #expect(throws: LiveResultsError.self) { try index.apply([(3, rowKey(2, 4))], sectionName: SectionedIndex.sectionName) }
        #expect(Self.layout(index) == before)
        index._checkInvariants()
        // Above them all, zone 2 comes first: the zones trade places, which is fine.
        let batch = try index.apply([(3, rowKey(2, 9))], sectionName: SectionedIndex.sectionName)
        #expect(Self.layout(index) == [Layout("2", [3]), Layout("1", [1, 2])])
        #expect(batch.sectionChanges.count == 2, "one zone is deleted and inserted again")
    }

    @Test("Without a section key there is one section, before, while and after it is empty")
    func unsectioned() throws {
        func key(_ score: Int64) -> RowKey { RowKey(section: .null, sort: [score.columnValue]) }
        var index = SectionedIndex(ascending: [true], unsectioned: true)
        #expect(index.sections.count == 1 && index.rowCount(inSection: 0) == 0)
        var batch = try index.apply([(1, key(3)), (2, key(1))], sectionName: SectionedIndex.sectionName)
        #expect(batch.sectionChanges.isEmpty)
        #expect(index.ids(inSection: 0, rows: 0..<2) == [2, 1])
        batch = try index.apply([(1, nil), (2, nil)], sectionName: SectionedIndex.sectionName)
        #expect(batch.sectionChanges.isEmpty)
        #expect(batch.rowChanges.map(\.kind) == [.delete, .delete])
        #expect(index.sections.count == 1 && index.rowCount(inSection: 0) == 0)
        index._checkInvariants()
        #expect(index.prefix(5, sectionName: SectionedIndex.sectionName).sections.count == 1)
    }

    @Test("Arthur leaves and Barbara becomes Cyril: Cyril is a move to the same place, Claire and Diane are not reported")
    func moveToTheSamePlace() throws {
        let rows = [Row(id: 1, section: 0, score: 0, name: "Arthur"), Row(id: 2, section: 0, score: 0, name: "Barbara"),
                    Row(id: 7, section: 0, score: 0, name: "Claire"), Row(id: 8, section: 0, score: 0, name: "Diane")]
        var index = try Self.index(rows)
        let cyril = Row(id: 2, section: 0, score: 0, name: "Cyril")
        let batch = try index.apply([(1, nil), (2, cyril.key)], sectionName: SectionedIndex.sectionName)
        #expect(batch.rowChanges == [
            RowChange(kind: .delete, id: 1, indexPath: ip(0, 0), newIndexPath: nil),
            RowChange(kind: .move, id: 2, indexPath: ip(0, 1), newIndexPath: ip(0, 1)),
        ])
    }

    @Test("The longest increasing run and the fewest moves")
    func runs() {
        #expect(SectionedIndex.longestIncreasingRun([]) == [])
        #expect(SectionedIndex.longestIncreasingRun([3, 1, 2]).map { [3, 1, 2][$0] } == [1, 2])
        #expect(SectionedIndex.longestIncreasingRun([0, 5, 1, 2, 6, 3]).count == 4)
        // Two rows of one gap trade places: one of them moves.
        let staying = [(id: RecordID(1), old: ip(0, 0), new: ip(0, 1)), (id: RecordID(2), old: ip(0, 1), new: ip(0, 0))]
        #expect(SectionedIndex.rowsThatMustMove(staying, changedOld: [ip(0, 0), ip(0, 1)], changedNew: [ip(0, 0), ip(0, 1)]).count == 1)
    }
}
