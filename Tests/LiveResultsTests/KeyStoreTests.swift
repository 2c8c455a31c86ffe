import Foundation
import GRDB
import Testing
@testable import LiveResults

@Suite("KeyStore")
struct KeyStoreTests {
    @Test("Slots are reused after removals, and ids find their slots")
    func slots() {
        var store = KeyStore(ascending: [true])
        for id: RecordID in 1...5 { store.store(id: id, section: 0) { _ in id.databaseValue } }
        #expect(store.count == 5)
        let slotOfThree = store.slot(for: 3)
        store.remove(id: 3)
        #expect(store.slot(for: 3) == nil)
        #expect(store.count == 4)
        store._checkInvariants()
        let reused = store.store(id: 9, section: 0) { _ in 9.databaseValue }
        #expect(reused == slotOfThree, "the freed slot is taken first")
        #expect(store.slot(for: 9) == reused)
        // Storing an id again updates its slot in place.
        let again = store.store(id: 9, section: 0) { _ in 10.databaseValue }
        #expect(again == reused && store.count == 5)
        #expect(store.sortValues(at: again) == [10.databaseValue])
        store._checkInvariants()
    }

    @Test("Sparse ids switch the id map to a dictionary without losing a row")
    func sparseIDs() {
        var store = KeyStore(ascending: [true])
        for id: RecordID in 1...100 { store.store(id: id, section: 0) { _ in id.databaseValue } }
        store.store(id: 1 << 40, section: 0) { _ in 0.databaseValue }
        store.store(id: -7, section: 0) { _ in 0.databaseValue }
        store._checkInvariants()
        #expect(store.count == 102)
        for id: RecordID in [1, 50, 100, 1 << 40, -7] { #expect(store.slot(for: id).map { store.ids[$0] } == id) }
    }

    @Test("A column starts as integers or texts and widens to any values, comparing as SQLite does")
    func columnForms() {
        var column = KeyStore.Column()
        column.set(5.databaseValue, at: 0)
        column.set(2.databaseValue, at: 1)
        guard case .integers = column else { Issue.record("a column of integers is stored as integers"); return }
        #expect(column.compare(0, 1) > 0)
        column.set("text".databaseValue, at: 2)
        guard case .values = column else { Issue.record("a text among integers widens the column"); return }
        column.set(DatabaseValue.null, at: 3)
        #expect(column.count == 4)
        #expect(column.compare(3, 0) < 0, "NULL sorts first")
        #expect(column.compare(0, 2) < 0, "numbers before text")
        #expect(column.value(at: 2) == "text".databaseValue)

        var texts = KeyStore.Column()
        texts.set("é".databaseValue, at: 0)
        texts.set("e\u{301}".databaseValue, at: 1)
        guard case .texts = texts else { Issue.record("a column of texts is stored as texts"); return }
        #expect(texts.compare(0, 1) > 0, "compared by UTF-8 bytes: é (C3 A9) after e + U+0301 (65 …)")
        let gathered = texts.gather([1, 0])
        #expect(gathered.value(at: 0) == "e\u{301}".databaseValue)
    }

    @Test("Rows compare by their values under each direction, then by id")
    func order() {
        var store = KeyStore(ascending: [false, true])
        let a = store.store(id: 1, section: 0) { [3.databaseValue, "b".databaseValue][$0] }
        let b = store.store(id: 2, section: 0) { [3.databaseValue, "a".databaseValue][$0] }
        let c = store.store(id: 3, section: 0) { [4.databaseValue, "z".databaseValue][$0] }
        let d = store.store(id: 4, section: 0) { [3.databaseValue, "a".databaseValue][$0] }
        #expect(store.compare(c, a) < 0, "more first")
        #expect(store.compare(b, a) < 0, "then names ascending")
        #expect(store.compare(b, d) < 0, "then ids")
    }
}
