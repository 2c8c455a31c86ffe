import Foundation
import GRDB
import Testing
@testable import LiveResults
@testable import LiveResultsSQLite

@Suite("KeyStore")
struct KeyStoreTests {
    @Test("Slots are reused after removals, and ids find their slots")
    func slots() {
        var store = KeyStore(ascending: [true])
        _ = store.sectionNumber(for: .null)
        for id: RecordID in 1...5 { store.store(id: id, section: 0) { _ in id.columnValue } }
        #expect(store.count == 5)
        let slotOfThree = store.slot(for: 3)
        store.remove(id: 3)
        #expect(store.slot(for: 3) == nil)
        #expect(store.count == 4)
        store._checkInvariants()
        let reused = store.store(id: 9, section: 0) { _ in 9.columnValue }
        #expect(reused == slotOfThree, "the freed slot is taken first")
        #expect(store.slot(for: 9) == reused)
        // Storing an id again updates its slot in place.
        let again = store.store(id: 9, section: 0) { _ in 10.columnValue }
        #expect(again == reused && store.count == 5)
        #expect(store.sortValues(at: again) == [10.columnValue])
        store._checkInvariants()
    }

    @Test("A fetch's rows appended unmapped are found by id once mapped at once, dense or sparse")
    func appendedUnmapped() {
        for ids: [RecordID] in [[7, 3, 5, 1], [1 << 40, 3, -7]] {
            var store = KeyStore(ascending: [true])
            _ = store.sectionNumber(for: .null)
            for id in ids { store.store(id: id, section: 0, sortValues: { _ in id.columnValue }, mapsID: false) }
            #expect(store.slot(for: ids[0]) == nil, "nothing is mapped before mapAppendedIDs")
            store.mapAppendedIDs()
            for (slot, id) in ids.enumerated() { #expect(store.slot(for: id) == slot) }
            #expect(store.count == ids.count)
            store._checkInvariants()
        }
    }

    @Test("Sparse ids switch the id map to a dictionary without losing a row")
    func sparseIDs() {
        var store = KeyStore(ascending: [true])
        _ = store.sectionNumber(for: .null)
        for id: RecordID in 1...100 { store.store(id: id, section: 0) { _ in id.columnValue } }
        store.store(id: 1 << 40, section: 0) { _ in 0.columnValue }
        store.store(id: -7, section: 0) { _ in 0.columnValue }
        store._checkInvariants()
        #expect(store.count == 102)
        for id: RecordID in [1, 50, 100, 1 << 40, -7] { #expect(store.slot(for: id).map { store.ids[$0] } == id) }
    }

    @Test("A column starts as integers or texts and widens to any values, comparing as SQLite does")
    func columnForms() {
        var column = KeyStore.Column()
        column.set(5.columnValue, at: 0)
        column.set(2.columnValue, at: 1)
        guard case .integers = column else { Issue.record("a column of integers is stored as integers"); return }
        #expect(column.compare(0, 1) > 0)
        column.set("text".columnValue, at: 2)
        guard case .values = column else { Issue.record("a text among integers widens the column"); return }
        column.set(ColumnValue.null, at: 3)
        #expect(column.count == 4)
        #expect(column.compare(3, 0) < 0, "NULL sorts first")
        #expect(column.compare(0, 2) < 0, "numbers before text")
        #expect(column.value(at: 2) == "text".columnValue)

        var texts = KeyStore.Column()
        texts.set("é".columnValue, at: 0)
        texts.set("e\u{301}".columnValue, at: 1)
        guard case .texts = texts else { Issue.record("a column of texts is stored as texts"); return }
        #expect(texts.compare(0, 1) > 0, "compared by UTF-8 bytes: é (C3 A9) after e + U+0301 (65 …)")
        let gathered = texts.gather([1, 0])
        #expect(gathered.value(at: 0) == "e\u{301}".columnValue)
    }

    @Test("A first sort value known to be the section's is not asked for")
    func firstValueIsSection() {
        var store = KeyStore(ascending: [true, false])
        for (id, zone) in [(RecordID(1), "Africa"), (2, "Africa"), (3, "Europe")] {
            let section = store.sectionNumber(for: zone.columnValue)
            store.store(id: id, section: section, firstValueIsSection: true) { column in
                precondition(column == 1, "the first sort value was asked for")
                return id.columnValue
            }
        }
        store._checkInvariants()
        #expect(store.columns[0].isSectionKey)
        #expect(store.sortValues(at: store.slot(for: 3)!) == ["Europe".columnValue, 3.columnValue])
    }

    @Test("Texts given as bytes are stored as their values would be; other columns ask for values")
    func textsAsBytes() {
        var store = KeyStore(ascending: [false, true])
        _ = store.sectionNumber(for: .null)
        let names = ["Ghana", "Mali", "Togo"]
        let buffers = names.map { name in
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: name.utf8.count, alignment: 1)
            buffer.copyBytes(from: name.utf8)
            return buffer
        }
        defer { buffers.forEach { $0.deallocate() } }
        for (id, name) in names.enumerated() {
            store.store(id: RecordID(id), section: 0, sortValues: { [id.columnValue, name.columnValue][$0] }, utf8: { column in
                #expect(column == 1, "bytes are asked for text columns only")
                return UnsafeRawBufferPointer(buffers[id])
            })
        }
        store._checkInvariants()
        #expect((0..<3).map { store.sortValues(at: store.slot(for: RecordID($0))!) } == names.enumerated().map { [$0.offset.columnValue, $0.element.columnValue] })
    }

    @Test("A kept table from id to slot is taken when it fits the ids, and refused when it cannot")
    func keptDenseSlots() throws {
        let ids = PackedIntegers([5, 2, 9, 1])
        let table = try #require(KeyStore.denseSlots(of: ids) ?? nil)
        #expect(table == [0, 4, 2, 0, 0, 1, 0, 0, 0, 3])
        let sections = PackedIntegers(repeating: 0, count: 4)
        let column = { KeyStore.Column.integers(ids) }
        let store = try #require(KeyStore(ascending: [true], ids: ids, sectionOfSlot: sections, sectionValues: [.null], columns: [column()], denseSlots: table))
        store._checkInvariants()
        #expect(store.slot(for: 9) == 2 && store.slot(for: 3) == nil)
        var outOfRange = table
        outOfRange[9] = 5
        for wrong: FlatArray<Int32> in [FlatArray(table.dropLast()), table + [0], outOfRange, FlatArray(table.map { $0 == 3 ? 0 : $0 })] {
            let refused = KeyStore(ascending: [true], ids: ids, sectionOfSlot: sections, sectionValues: [.null], columns: [column()], denseSlots: wrong) == nil
            #expect(refused, "table \(wrong)")
        }
        #expect(KeyStore.denseSlots(of: PackedIntegers([3, 1, 3])).map { $0 == nil } == true, "an id twice")
        #expect(KeyStore.denseSlots(of: PackedIntegers([1, 1 << 40])) == nil, "too sparse for a table")
    }

    @Test("Rows compare by their values under each direction, then by id")
    func order() {
        var store = KeyStore(ascending: [false, true])
        _ = store.sectionNumber(for: .null)
        let a = store.store(id: 1, section: 0) { [3.columnValue, "b".columnValue][$0] }
        let b = store.store(id: 2, section: 0) { [3.columnValue, "a".columnValue][$0] }
        let c = store.store(id: 3, section: 0) { [4.columnValue, "z".columnValue][$0] }
        let d = store.store(id: 4, section: 0) { [3.columnValue, "a".columnValue][$0] }
        #expect(store.compare(c, a) < 0, "more first")
        #expect(store.compare(b, a) < 0, "then names ascending")
        #expect(store.compare(b, d) < 0, "then ids")
    }

    @Test("A column of integers takes the narrowest width its values allow")
    func narrowIntegers() {
        var column = KeyStore.Column()
        column.set(999.columnValue, at: 0)
        guard case .integers(let small) = column else { Issue.record("integers are stored as integers"); return }
        #expect(small.bytesPerElement == 2, "wins under 32,768 take two bytes")
        column.set(Int64(1 << 40).columnValue, at: 1)
        guard case .integers(let wide) = column else { Issue.record("a wide integer keeps the column integers"); return }
        #expect(wide.bytesPerElement == 8)
        #expect(column.value(at: 0) == 999.columnValue && column.value(at: 1) == Int64(1 << 40).columnValue)
        #expect(column.compare(0, 1) < 0)
    }

    /// A store like the board's: sections by zone, sorted by zone, wins (descending), name.
    static func board(_ rows: [(id: RecordID, zone: String, wins: Int, name: String)]) -> KeyStore {
        var store = KeyStore(ascending: [true, false, true])
        for row in rows {
            let section = store.sectionNumber(for: row.zone.columnValue)
            store.store(id: row.id, section: section) { [row.zone.columnValue, row.wins.columnValue, row.name.columnValue][$0] }
        }
        return store
    }

    @Test("A first sort column equal to the section value holds nothing, and reads and compares as the section")
    func sectionKeyColumn() {
        let store = Self.board([(1, "Europe", 3, "France"), (2, "Africa", 3, "Ghana"), (3, "Europe", 5, "Spain")])
        store._checkInvariants()
        #expect(store.columns[0].isSectionKey)
        #expect(!store.columns[1].isSectionKey && !store.columns[2].isSectionKey)
        #expect(store.sortValues(at: store.slot(for: 2)!) == ["Africa".columnValue, 3.columnValue, "Ghana".columnValue])
        let france = store.slot(for: 1)!, ghana = store.slot(for: 2)!, spain = store.slot(for: 3)!
        #expect(store.compare(ghana, france) < 0, "Africa before Europe, whatever the wins")
        #expect(store.compare(spain, france) < 0, "within Europe, more wins first")
    }

    @Test("A row whose first sort value is not its section value writes the column out in full")
    func sectionKeyWrittenOut() {
        var store = Self.board([(1, "Europe", 3, "France"), (2, "Africa", 3, "Ghana")])
        store.remove(id: 1) // a free slot among the written-out values
        #expect(store.columns[0].isSectionKey)
        let section = store.sectionNumber(for: "Asia".columnValue)
        let slot = store.store(id: 7, section: section) { ["Oceania".columnValue, 1.columnValue, "Fiji".columnValue][$0] }
        #expect(!store.columns[0].isSectionKey)
        store._checkInvariants()
        #expect(store.sortValues(at: slot) == ["Oceania".columnValue, 1.columnValue, "Fiji".columnValue])
        #expect(store.sortValues(at: store.slot(for: 2)!) == ["Africa".columnValue, 3.columnValue, "Ghana".columnValue])
        #expect(store.compare(store.slot(for: 2)!, slot) < 0, "Africa before Oceania, by the stored values now")
    }

    @Test("Equal values of different types stand for the section (1 and 1.0); so does NULL, until a value differs")
    func sectionKeyEquality() {
        var store = KeyStore(ascending: [true])
        let one = store.sectionNumber(for: 1.columnValue)
        store.store(id: 1, section: one) { _ in 1.0.columnValue }
        #expect(store.columns[0].isSectionKey, "SQLite orders 1 and 1.0 as equal")
        // An unsectioned result (every section value NULL) whose first rows sort by NULL.
        var nulls = KeyStore(ascending: [true])
        let null = nulls.sectionNumber(for: .null)
        nulls.store(id: 1, section: null) { _ in .null }
        #expect(nulls.columns[0].isSectionKey)
        nulls.store(id: 2, section: null) { _ in "x".columnValue }
        #expect(!nulls.columns[0].isSectionKey)
        nulls._checkInvariants()
        #expect(nulls.sortValues(at: nulls.slot(for: 1)!) == [.null])
        #expect(nulls.sortValues(at: nulls.slot(for: 2)!) == ["x".columnValue])
        #expect(nulls.compare(nulls.slot(for: 1)!, nulls.slot(for: 2)!) < 0)
    }

    @Test("A store rebuilt from arrays refuses a repeated id (dense or sparse) and an unknown section number")
    func rebuiltFromArrays() throws {
        func rebuilt(_ ids: [Int64], sections: [Int64] = [0, 0, 0]) -> KeyStore? {
            KeyStore(ascending: [true], ids: PackedIntegers(ids), sectionOfSlot: PackedIntegers(sections), sectionValues: ["A".columnValue],
                     columns: [.integers(PackedIntegers([3, 1, 2]))])
        }
        let dense = try #require(rebuilt([7, 5, 6]))
        dense._checkInvariants()
        #expect(dense.slot(for: 5) == 1 && dense.slot(for: 8) == nil)
        let sparse = try #require(rebuilt([1 << 40, -3, 6]))
        sparse._checkInvariants()
        #expect(sparse.slot(for: -3) == 1 && sparse.slot(for: 1 << 40) == 0)
        #expect(rebuilt([7, 5, 7]) == nil, "a repeated dense id")
        #expect(rebuilt([1 << 40, -3, 1 << 40]) == nil, "a repeated sparse id")
        #expect(rebuilt([1, 2, 3], sections: [0, 1, 0]) == nil, "a section number without a value")
        #expect(rebuilt([1, 2, 3], sections: [0, -1, 0]) == nil, "a free slot where every slot is used")
    }
}
