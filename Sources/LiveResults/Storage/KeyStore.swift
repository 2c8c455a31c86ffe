/// The sort values of every row, stored by column in slots, compactly: a column of integers
/// takes 1 to 8 bytes a row (`PackedIntegers`), a column of short texts 16, and a column equal
/// to the section value (the first sort column of a sectioned result) nothing at all,
/// instead of an array per row.
///
/// Slots are reused after deletes. Ids map to slots through a dense table while ids are
/// dense (the usual rowids), and through a dictionary otherwise.
struct KeyStore {

    let ascending: [Bool]
    private(set) var columns: [Column]
    /// The id stored in each slot.
    private(set) var ids = PackedIntegers()
    /// The section (by number) of each slot; -1 for a free slot.
    private(set) var sectionOfSlot = PackedIntegers()
    /// Section values by their number (`sectionNumber(for:)`), and the numbers by value.
    private(set) var sectionValues: [ColumnValue] = []
    private var sectionNumbers: [ColumnValue: Int32] = [:]
    private var freeSlots: [Int32] = []
    private var denseSlots: FlatArray<Int32> = []           // id → slot + 1 (0: absent), while ids are dense
    private var sparseSlots: [RecordID: Int32]?    // id → slot, once they are not
    private(set) var count = 0
    /// Sections through a relationship: the directions of their order values (`SectionRow.order`);
    /// nil for sections keyed by a column's value, which sort as their rows do.
    let sectionOrder: [Bool]?
    /// Through a relationship, the related row of each section number (nil: not known, or
    /// deleted). Every related row is here, a section of rows or not.
    private(set) var sectionRows: [SectionRow?] = []

    init(ascending: [Bool], sectionOrder: [Bool]? = nil) {
        self.ascending = ascending
        self.sectionOrder = sectionOrder
        columns = ascending.map { _ in Column() }
    }

    /// A store holding `ids[i]` with `columns[c]`'s value i in slot i, in section
    /// `sectionOfSlot[i]`, a number standing for `sectionValues[number]`. Nil when the arrays
    /// disagree in length, an id repeats, or a section number or value is out of place.
    /// `denseSlots`, when given, is `denseSlots(of: ids)` kept from before (the section cache
    /// keeps it: filling it anew writes all over a large table, in the order of the rows);
    /// it is checked for its size and range only.
    init?(ascending: [Bool], ids: PackedIntegers, sectionOfSlot: PackedIntegers, sectionValues: [ColumnValue], columns: [Column], denseSlots: FlatArray<Int32>? = nil,
          sectionOrder: [Bool]? = nil) {
        guard columns.count == ascending.count, columns.allSatisfy({ $0.count == ids.count }), sectionOfSlot.count == ids.count else { return nil }
        self.init(ascending: ascending, sectionOrder: sectionOrder)
        for value in sectionValues {
            let known = self.sectionValues.count
            guard Int(sectionNumber(for: value)) == known else { return nil } // a value twice
        }
        if let numbers = sectionOfSlot.bounds, numbers.lowerBound < 0 || numbers.upperBound >= sectionValues.count { return nil }
        self.columns = columns
        self.ids = ids
        self.sectionOfSlot = sectionOfSlot
        expectedCount = ids.count
        count = ids.count
        guard !ids.isEmpty else { return }
        if let denseSlots {
            guard Self.isDenseTable(denseSlots, of: ids) else { return nil }
            self.denseSlots = denseSlots
        } else {
            guard mapEverySlot() else { return nil }
        }
    }

    /// Maps the id of every slot to its slot, all at once: through a dense table while ids are
    /// dense, a dictionary otherwise. False (the map left partly made) when an id repeats.
    /// Every slot must be in use.
    private mutating func mapEverySlot() -> Bool {
        if let dense = Self.denseSlots(of: ids) {
            guard let table = dense else { return false } // an id repeats
            denseSlots = table
            sparseSlots = nil
            return true
        }
        var sparse: [RecordID: Int32] = [:]
        sparse.reserveCapacity(ids.count)
        var repeated = false
        ids.forEach { slot, id in
            if sparse.updateValue(Int32(slot), forKey: id) != nil { repeated = true }
        }
        denseSlots = []
        sparseSlots = sparse
        return !repeated
    }

    /// Maps every id appended with `store(…, mapsID: false)` to its slot, in one pass over
    /// the ids once a fetch's rows are all in: a lookup and a write at a random place of a
    /// table at every row cost a fetch more than its other work on the row.
    mutating func mapAppendedIDs() {
        precondition(freeSlots.isEmpty, "ids are mapped at once only after a fetch, which frees no slot")
        // Rows come from one table, ids are its rowids: none repeats.
        precondition(mapEverySlot(), "an id was fetched twice")
    }

    /// How many rows are expected, so ids up to a few times that stay in the dense table.
    private var expectedCount = 0

    mutating func reserveCapacity(_ capacity: Int) {
        expectedCount = max(expectedCount, capacity)
        for i in columns.indices { columns[i].reserveCapacity(capacity) }
        ids.reserveCapacity(capacity)
        sectionOfSlot.reserveCapacity(capacity)
    }

    // MARK: - Sections

    /// The number standing for a section value (the same for values SQLite finds equal).
    mutating func sectionNumber(for value: ColumnValue) -> Int32 {
        let exact = value
        if let number = sectionNumbers[exact] { return number }
        let number = Int32(sectionValues.count)
        sectionNumbers[exact] = number
        sectionValues.append(value)
        return number
    }

    /// The number of a section value already numbered; nil otherwise.
    func sectionNumberIfKnown(_ value: ColumnValue) -> Int32? {
        sectionNumbers[value]
    }

    /// Through a relationship: sets the related row of a section value (nil: it was deleted).
    mutating func setSectionRow(_ row: SectionRow?, for value: ColumnValue) {
        let number = Int(sectionNumber(for: value))
        if sectionRows.count <= number { sectionRows.append(contentsOf: repeatElement(nil, count: number + 1 - sectionRows.count)) }
        sectionRows[number] = row
    }

    /// The related row of a section number; nil when unknown or without a relationship.
    func sectionRow(_ number: Int32) -> SectionRow? {
        number >= 0 && Int(number) < sectionRows.count ? sectionRows[Int(number)] : nil
    }

    /// Takes every related row `other` knows.
    mutating func copySectionRows(from other: KeyStore) {
        for (number, row) in other.sectionRows.enumerated() where row != nil { setSectionRow(row, for: other.sectionValues[number]) }
    }

    /// The related rows that differ from `fresh` (every related row now), as a commit gives them:
    /// the new and changed ones, and nil for those no longer there.
    func sectionRowChanges(to fresh: [(id: ColumnValue, row: SectionRow)]) -> [(id: ColumnValue, row: SectionRow?)] {
        guard sectionOrder != nil else { return [] }
        var changes: [(id: ColumnValue, row: SectionRow?)] = []
        var present = Set<Int32>()
        for (value, row) in fresh {
            let number = sectionNumberIfKnown(value)
            if let number { present.insert(number) }
            if number.flatMap(sectionRow) != row { changes.append((value, row)) }
        }
        for number in sectionRows.indices where sectionRows[number] != nil && !present.contains(Int32(number)) {
            changes.append((sectionValues[number], nil))
        }
        return changes
    }

    /// The section number of a used slot; -1 for a free one.
    @inline(__always)
    func section(ofSlot slot: Int) -> Int32 {
        Int32(truncatingIfNeeded: sectionOfSlot[slot])
    }

    // MARK: - Ids and slots

    @inline(__always)
    func slot(for id: RecordID) -> Int? {
        Self.slot(for: id, dense: denseSlots, sparse: sparseSlots)
    }

    /// The slot of each id as it is now (see `SlotMap`), for a read of a column that looks up
    /// every row's id in turn, at random. A table still in a cache file's pages is first moved
    /// into memory of its own: a file's pages are small ones only (`FlatArray.moveOutOfFile`),
    /// and lookups at random over them miss the processor's address cache far more often.
    mutating func slotMapForReading() -> SlotMap {
        denseSlots.moveOutOfFile()
        return SlotMap(dense: denseSlots, sparse: sparseSlots, slotCount: ids.count)
    }

    private mutating func map(_ id: RecordID, to slot: Int32?) {
        if sparseSlots == nil {
            let dense = id >= 0 && Self.isDenseID(id, rowCount: max(count, expectedCount))
            if dense {
                if Int(id) >= denseSlots.count {
                    denseSlots.append(repeating: 0, count: Int(id) + 1 - denseSlots.count)
                }
                denseSlots[Int(id)] = slot.map { $0 + 1 } ?? 0
                return
            }
            // Ids are too sparse for a table: switch to a dictionary.
            var dictionary: [RecordID: Int32] = [:]
            for (index, stored) in denseSlots.enumerated() where stored != 0 { dictionary[RecordID(index)] = stored - 1 }
            sparseSlots = dictionary
            denseSlots = []
        }
        sparseSlots?[id] = slot
    }

    /// Stores a row's sort values and section; returns its slot. With `firstValueIsSection`
    /// (the caller read the section value from the first sort column), the first sort value
    /// is the section's and is not asked for. `utf8` may give a text value of a column of
    /// texts as its bytes, when they are exactly those `sortValues` would hold (no `String`
    /// is made); nil asks `sortValues`. `mapsID: false` (a fetch's rows, each a new id)
    /// appends the row in a new slot without looking its id up or mapping it: the caller maps
    /// them all with `mapAppendedIDs()` before the store is read.
    @discardableResult
    mutating func store(id: RecordID, section: Int32, firstValueIsSection: Bool = false, sortValues: (Int) -> ColumnValue,
                        utf8: (Int) -> UnsafeRawBufferPointer? = { _ in nil }, mapsID: Bool = true) -> Int {
        let slot: Int
        if mapsID, let existing = self.slot(for: id) {
            slot = existing
            sectionOfSlot.set(Int64(section), at: slot)
        } else if mapsID, let free = freeSlots.popLast() {
            slot = Int(free)
            count += 1
            ids.set(id, at: slot)
            sectionOfSlot.set(Int64(section), at: slot)
        } else {
            // A new slot (every row of a fetch): each array is written once.
            slot = ids.count
            ids.append(id)
            sectionOfSlot.append(Int64(section))
            count += 1
        }
        for c in columns.indices {
            if columns[c].isTexts, let bytes = utf8(c), columns[c].setText(bytes, at: slot) { continue }
            set(column: c, at: slot, isSectionValue: firstValueIsSection && c == 0) { sortValues(c) }
        }
        if mapsID { map(id, to: Int32(slot)) }
        return slot
    }

    /// Stores one sort value of the row in `slot`, whose section is already set. The first
    /// column of a sectioned result holds nothing while every value equals its row's section
    /// value; the first value that does not writes the column out in full. `isSectionValue`
    /// says that the value is the section's (known without reading it, or comparing).
    private mutating func set(column c: Int, at slot: Int, isSectionValue: Bool, value: () -> ColumnValue) {
        if case .sectionKey(let count) = columns[c] {
            if isSectionValue || SQLiteOrdering.compare(value(), sectionValue(ofSlot: slot)) == 0 {
                if slot == count { columns[c] = .sectionKey(count: count + 1) }
                return
            }
            writeOutSectionKeyColumn(c)
        } else if c == 0, slot == 0, columns[c].count == 0, isSectionValue || SQLiteOrdering.compare(value(), sectionValue(ofSlot: slot)) == 0 {
            columns[c] = .sectionKey(count: 1)
            return
        }
        columns[c].set(isSectionValue ? sectionValue(ofSlot: slot) : value(), at: slot)
    }

    /// The section value of a used slot.
    private func sectionValue(ofSlot slot: Int) -> ColumnValue {
        sectionValues[Int(section(ofSlot: slot))]
    }

    /// Turns a `sectionKey` column into one that holds its values, when a row's value differs
    /// from its section value (a request whose first sort column is not the section key but
    /// began with rows whose values were).
    private mutating func writeOutSectionKeyColumn(_ c: Int) {
        var column = Column()
        column.reserveCapacity(ids.count)
        let filler = sectionValues.first ?? .null // for free slots, which are never read
        for slot in 0..<columns[c].count {
            let number = section(ofSlot: slot)
            column.set(number < 0 ? filler : sectionValues[Int(number)], at: slot)
        }
        columns[c] = column
    }

    /// Forgets a row.
    mutating func remove(id: RecordID) {
        guard let slot = slot(for: id) else { return }
        map(id, to: nil)
        sectionOfSlot.set(-1, at: slot)
        freeSlots.append(Int32(slot))
        count -= 1
    }

    /// The value of sort column `c` in a slot.
    func value(column c: Int, at slot: Int) -> ColumnValue {
        columns[c].isSectionKey ? sectionValue(ofSlot: slot) : columns[c].value(at: slot)
    }

    /// Verifies the store's invariants (a clear-box check): arrays of one length, every used
    /// slot found from its id, every free slot marked free and free once.
    func _checkInvariants() {
        precondition(sectionOfSlot.count == ids.count, "one section per slot")
        precondition(columns.allSatisfy { $0.count == ids.count }, "one value per slot in every column")
        let free = Set(freeSlots)
        precondition(free.count == freeSlots.count, "a slot is free twice")
        precondition(count == ids.count - freeSlots.count, "count out of date")
        precondition(sectionNumbers.count == sectionValues.count, "one number per section value")
        for c in columns.indices where columns[c].isSectionKey { precondition(c == 0, "only the first column stands for the section") }
        for slot in 0..<ids.count {
            if free.contains(Int32(slot)) {
                precondition(section(ofSlot: slot) == -1, "free slot \(slot) still has a section")
            } else {
                precondition(self.slot(for: ids[slot]) == slot, "slot map out of date for slot \(slot)")
                precondition(sectionValues.indices.contains(Int(section(ofSlot: slot))), "slot \(slot) has no section")
            }
        }
        precondition(sparseSlots == nil || denseSlots.isEmpty, "ids map through one table")
    }
}
