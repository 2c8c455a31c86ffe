import Foundation

/// Where a row belongs in a result: its section value and its sort values.
///
/// Two keys are equal only when SQLite would find every value equal (byte-exact text).
package struct RowKey: Equatable {
    package var section: ColumnValue
    package var sort: [ColumnValue]

    package init(section: ColumnValue, sort: [ColumnValue]) {
        self.section = section
        self.sort = sort
    }

    package static func == (a: RowKey, b: RowKey) -> Bool {
        SQLiteOrdering.compare(a.section, b.section) == 0
            && a.sort.count == b.sort.count
            && zip(a.sort, b.sort).allSatisfy { SQLiteOrdering.compare($0, $1) == 0 }
    }
}

/// The sorted, sectioned order of a result, holding ids and sort keys only.
///
/// Rows are ordered by their sort values under the directions of the sort descriptors,
/// then by id; sections by the order of their rows. Sort values live in a `KeyStore`;
/// sections hold slots. Applying a set of changed rows costs O(k log n) comparisons plus
/// the moves of array elements (for one row moving within its section, only the rows it
/// passes), and yields the change batch.
package struct SectionedIndex {
    struct Section {
        /// The number standing for the section's value (`sectionNumber(for:)`).
        var number: Int32
        var value: ColumnValue
        var name: String
        var slots: FlatArray<Int32>
        /// The slot of its first row when it was built from rows in result order (by a fetch or
        /// from a cache), whose slots then count up from it; nil otherwise (a view's section, one
        /// a change made). A row's slot minus it is about the row's place, as long as rows have
        /// moved only a little since: where a search for the row starts.
        var baseSlot: Int32? = nil
    }

    /// The ids and sort values of the rows, by slot.
    var store: KeyStore
    /// The sections in order; every one holds at least one row (but an unsectioned result's).
    var sections: [Section] = []
    /// The place of each numbered section.
    private(set) var placeOfSectionNumber: [Int32: Int] = [:]
    /// True for a result without a section key: it has exactly one section, even when empty.
    let isUnsectioned: Bool
    /// True for a view (`view(keeping:)`): its sections hold some of the slots of a store it
    /// shares with the index it was made from, and it never writes to that store. (Set only
    /// by `view(keeping:)`.)
    var isView = false

    var ascending: [Bool] { store.ascending }
    /// Section values by their number.
    var sectionValues: [ColumnValue] { store.sectionValues }

    /// Whether sections come through a relationship (`RelatedSections`): identified by their
    /// value (the related key), titled and ordered by their related row (`SectionRow`).
    var isRelated: Bool { store.sectionOrder != nil }

    /// An empty index. An unsectioned one holds its one (empty) section from the start, and
    /// every row's section value must be NULL. `sectionOrder`: sections through a relationship,
    /// ordered by their related rows' order values under these directions, then by value
    /// (set every related row with `setSectionRow` before rows arrive in its section).
    package init(ascending: [Bool], unsectioned: Bool, sectionOrder: [Bool]? = nil) {
        store = KeyStore(ascending: ascending, sectionOrder: sectionOrder)
        isUnsectioned = unsectioned
        if unsectioned {
            let number = self.sectionNumber(for: .null)
            placeOfSectionNumber[number] = 0
            sections = [Section(number: number, value: .null, name: "", slots: [])]
        }
    }

    /// Builds the index from rows already in result order.
    ///
    /// Fails with `sectionOutOfOrder` when a section value comes back after another section began.
    package init<Rows: Sequence>(ascending: [Bool], unsectioned: Bool, sortedRows: Rows, sectionName: (ColumnValue) -> String) throws
    where Rows.Element == (id: RecordID, key: RowKey) {
        self.init(ascending: ascending, unsectioned: unsectioned)
        for (id, key) in sortedRows {
            try appendSorted(id: id, section: key.section, sectionName: sectionName) { key.sort[$0] }
        }
        checkInvariantsInDebug()
    }

    /// Adds a row after all others; rows must come in result order. `firstValueIsSection`:
    /// the first sort value is `value` (read from the same column), so it is not asked for.
    /// `mapsID: false`: a fetch's row, whose id `mapFetchedIDs()` maps later (`KeyStore.store`).
    package mutating func appendSorted(id: RecordID, section value: ColumnValue, sectionName: (ColumnValue) -> String,
                                       firstValueIsSection: Bool = false, mapsID: Bool = true, sortValues: (Int) -> ColumnValue) throws {
        let number = self.sectionNumber(for: value)
        if sections.last?.number != number {
            if placeOfSectionNumber[number] != nil { throw Self.outOfOrder(sectionName(value), id: id) }
            placeOfSectionNumber[number] = sections.count
            sections.append(Section(number: number, value: value, name: newSectionName(value, sectionName), slots: []))
        }
        let slot = store.store(id: id, section: number, firstValueIsSection: firstValueIsSection, sortValues: sortValues, mapsID: mapsID)
        if sections[sections.count - 1].slots.isEmpty { sections[sections.count - 1].baseSlot = Int32(slot) }
        sections[sections.count - 1].slots.append(Int32(slot))
    }

    /// Adds a row after all others, in the same section as the last row (the caller knows).
    /// `utf8`: text values as their bytes; `mapsID` as in `appendSorted` (`KeyStore.store`).
    package mutating func appendToLastSection(id: RecordID, firstValueIsSection: Bool = false, mapsID: Bool = true, sortValues: (Int) -> ColumnValue,
                                      utf8: (Int) -> UnsafeRawBufferPointer? = { _ in nil }) {
        let last = sections.count - 1
        let slot = store.store(id: id, section: sections[last].number, firstValueIsSection: firstValueIsSection, sortValues: sortValues, utf8: utf8,
                               mapsID: mapsID)
        sections[last].slots.append(Int32(slot))
    }

    /// Maps the ids of the rows appended with `mapsID: false` to their slots, once a fetch's
    /// rows are all in (`KeyStore.mapAppendedIDs()`).
    package mutating func mapFetchedIDs() {
        store.mapAppendedIDs()
    }

    package mutating func reserveCapacity(_ capacity: Int) {
        store.reserveCapacity(capacity)
    }

    /// The index as plain arrays in result order: each section's value and row count, and the
    /// slots of the rows in order, from which `store.ids.gather(slots)` and each of
    /// `store.columns`' `gather(slots)` make one entry per row (one array at a time: the cache
    /// writes each and lets it go). `init(sections:ids:columns:)` rebuilds the index.
    func exported() -> (sections: [(value: ColumnValue, count: Int)], slots: [Int32]) {
        (sections.filter { !$0.slots.isEmpty }.map { ($0.value, $0.slots.count) }, sections.flatMap(\.slots))
    }

    /// Rebuilds an index from `exported()`'s arrays, trusting their order. Nil when they do
    /// not describe an index: counts that disagree, an id or a section value that repeats.
    /// `denseSlots`: `KeyStore.denseSlots(of: ids)`, when it was kept (see `KeyStore.init`).
    /// Through a relationship, `sectionOrder` and `sectionRows` (every related row) order and
    /// title the sections; nil when the described order is not theirs.
    init?(ascending: [Bool], unsectioned: Bool, sections described: [(value: ColumnValue, count: Int)], ids: PackedIntegers, columns: [KeyStore.Column],
          denseSlots: FlatArray<Int32>? = nil, sectionOrder: [Bool]? = nil, sectionRows: [(id: ColumnValue, row: SectionRow)] = [],
          sectionName: (ColumnValue) -> String) {
        self.init(ascending: ascending, unsectioned: unsectioned, sectionOrder: sectionOrder)
        for (value, row) in sectionRows { store.setSectionRow(row, for: value) }
        if unsectioned {
            guard described.count <= 1, described.allSatisfy({ $0.value.isNull }) else { return nil }
            sections = []
            placeOfSectionNumber = [:]
        }
        var sectionOfSlot = PackedIntegers()
        sectionOfSlot.reserveCapacity(ids.count)
        var start: Int32 = 0
        for (value, count) in described {
            let number = self.sectionNumber(for: value)
            guard placeOfSectionNumber[number] == nil, count > 0, Int(start) + count <= ids.count else { return nil }
            placeOfSectionNumber[number] = sections.count
            sections.append(Section(number: number, value: value, name: newSectionName(value, sectionName), slots: FlatArray(count: count) { slots in
                nonisolated(unsafe) let slots = slots
                ParallelChunks.forEach(count) { rows in
                    for row in rows { slots[row] = start &+ Int32(truncatingIfNeeded: row) }
                }
            }, baseSlot: start))
            sectionOfSlot.append(Int64(number), count: count)
            start += Int32(count)
        }
        guard Int(start) == ids.count,
              var store = KeyStore(ascending: ascending, ids: ids, sectionOfSlot: sectionOfSlot, sectionValues: store.sectionValues, columns: columns,
                                   denseSlots: denseSlots, sectionOrder: sectionOrder) else { return nil }
        store.copySectionRows(from: self.store)
        self.store = store
        if isRelated, (try? checkSectionOrder()) == nil { return nil }
        if unsectioned && sections.isEmpty {
            let number = self.sectionNumber(for: .null)
            placeOfSectionNumber[number] = 0
            sections = [Section(number: number, value: .null, name: "", slots: [])]
        }
        checkInvariantsInDebug()
    }

    /// Through a relationship: the related row of a section value, nil once it is deleted.
    /// A store sets every related row at a fetch. A section of rows takes the new title (and
    /// keeps its place: `apply` moves sections whose order changed).
    package mutating func setSectionRow(_ row: SectionRow?, for value: ColumnValue) {
        store.setSectionRow(row, for: value)
        let number = store.sectionNumber(for: value)
        if let row, let s = placeOfSectionNumber[number] { sections[s].name = row.title }
    }

    /// The name of a new section of `value`: its related row's title, or `sectionName`'s.
    func newSectionName(_ value: ColumnValue, _ sectionName: (ColumnValue) -> String) -> String {
        guard isRelated else { return sectionName(value) }
        return store.sectionRow(store.sectionNumberIfKnown(value) ?? -1)?.title ?? sectionName(value)
    }

    /// What identifies section `s` across batches: its name, or through a relationship its
    /// value's text (the related key).
    func identifier(ofSection s: Int) -> String {
        isRelated ? Self.sectionName(sections[s].value) : sections[s].name
    }

    /// The number standing for a section value (the same for byte-equal values).
    mutating func sectionNumber(for value: ColumnValue) -> Int32 {
        store.sectionNumber(for: value)
    }

    /// The name of the section of a section value: its text (NULL gives "").
    package static func sectionName(_ value: ColumnValue) -> String {
        switch value {
        case .null: return ""
        case .integer(let int): return String(int)
        case .real(let double): return String(double)
        case .text(let string): return string
        case .blob(let data): return data.map { String(format: "%02x", $0) }.joined()
        }
    }

    static func outOfOrder(_ name: String, id: RecordID) -> LiveResultsError {
        LiveResultsError(.sectionOutOfOrder, """
            Out of order section name “\(name)” at row \(id): \
            the first sort descriptor must order rows like the section key.
            """)
    }

    /// Rebuilds the place of each section after sections were inserted or removed.
    mutating func reindexSections() {
        placeOfSectionNumber.removeAll(keepingCapacity: true)
        for (index, section) in sections.enumerated() { placeOfSectionNumber[section.number] = index }
    }

    /// Verifies every invariant of the index and its key store (a clear-box check).
    func _checkInvariants() {
        store._checkInvariants()
        var seen = 0
        var seenSlots = Set<Int32>()
        if isUnsectioned { precondition(sections.count == 1 && sections[0].value.isNull, "an unsectioned result has one section") }
        for (s, section) in sections.enumerated() {
            precondition(isUnsectioned || !section.slots.isEmpty, "empty section \(s)")
            precondition(placeOfSectionNumber[section.number] == s, "section lookup out of date")
            for (r, slot) in section.slots.enumerated() {
                precondition(store.section(ofSlot: Int(slot)) == section.number, "section of slot \(slot) out of date")
                precondition(store.slot(for: store.ids[Int(slot)]) == Int(slot), "slot map out of date")
                precondition(!isView || seenSlots.insert(slot).inserted, "a view holds slot \(slot) twice")
                if r > 0 {
                    precondition(store.compare(Int(section.slots[r - 1]), Int(slot)) < 0, "rows out of order in section \(s)")
                }
                seen += 1
            }
        }
        precondition(isView ? seen <= store.count : seen == store.count, "the store holds rows that are not in a section")
        precondition(placeOfSectionNumber.count == sections.count)
        precondition((try? checkSectionOrder()) != nil, "a section's rows sort before the previous section's")
    }

    /// Runs `_checkInvariants()` in builds with `LIVERESULTS_INTERNAL_CHECKS` (debug builds and
    /// the tests); nothing otherwise. Called after every mutation that can break one.
    @inline(__always)
    package func checkInvariantsInDebug() {
        #if LIVERESULTS_INTERNAL_CHECKS
        _checkInvariants()
        #endif
    }
}
