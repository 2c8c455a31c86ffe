import Foundation

/// A filter a result applies in memory: the column it reads, kept by slot of the result's
/// index, the bytes a row's value must contain, the slots that do, and the rows that pass.
///
/// While every row of the index passes (a filter that keeps matching everything as it is
/// typed), there is no view and the index itself is the filtered result. Otherwise a view
/// (`SectionedIndex.view(keepingSlotsIn:)`) holds the passing rows' slots, sharing the index's key
/// store (4 bytes a passing row; nothing copied), and commits are applied to it after the
/// index, so its batches are exact in its own index spaces.
struct RowFilter {
    /// The bytes a value must contain.
    var needle: [UInt8]
    /// The filter's column, by slot of the result's index.
    var column: TextColumn
    /// The slots of the index whose value contains the needle.
    var matches: Matches
    /// The rows that pass, parked (without the store: `view(over:)` lends it); nil while
    /// every row of the index does.
    private var parkedView: SectionedIndex?
    /// The states of this filter before its needle was extended (typed further), oldest
    /// first: erasing the end of the needle (Backspace) goes back to one of them without a
    /// search. Forgotten when a value changes (a commit changes rows, their values and the
    /// index's order). A state holds its matches, so the states kept are few (`earlierLimit`;
    /// a state's size: "The figures behind the code's limits" in docs/BENCHMARKS.md).
    private var earlier: [(needle: [UInt8], matches: Matches, parkedView: SectionedIndex?)] = []
    /// The most states `earlier` keeps.
    static let earlierLimit = 16

    init(needle: [UInt8], column: TextColumn, matches: Matches, view: SectionedIndex?) {
        self.needle = needle
        self.column = column
        self.matches = matches
        setView(view)
    }

    /// Whether some row of the index does not pass (there is a view).
    var hasView: Bool { parkedView != nil }

    /// The rows that pass, reading through `index`'s store; nil while every row does.
    func view(over index: SectionedIndex) -> SectionedIndex? {
        parkedView?.lending(index.store)
    }

    /// Takes the view out to change it (`setView` puts it back): changed in place, its
    /// slots are not copied.
    mutating func takeView(over index: SectionedIndex) -> SectionedIndex? {
        defer { parkedView = nil }
        return view(over: index)
    }

    /// Keeps a view of the passing rows (nil: every row passes), without its store.
    mutating func setView(_ view: SectionedIndex?) {
        parkedView = view?.parked
    }

    /// Records a slot's new value (nil: NULL, or the row left).
    mutating func set(_ value: [UInt8]?, at slot: Int) throws {
        earlier.removeAll()
        try column.set(value, at: slot)
        column.update(&matches, of: needle, atSlot: slot)
    }

    /// Before the needle becomes `next`: keeps the current state when `next` extends it, and
    /// forgets the kept states that `next` does not start with (it cannot be erased back to them).
    mutating func remember(before next: [UInt8]) {
        earlier.removeAll { !next.starts(with: $0.needle) }
        guard next.count > needle.count, next.starts(with: needle) else { return }
        earlier.append((needle, matches, parkedView))
        if earlier.count > Self.earlierLimit { earlier.removeFirst() }
    }

    /// Goes back to the state of `needle` kept before it was extended (forgetting those kept
    /// after it); false when none is kept.
    mutating func goBack(to needle: [UInt8]) -> Bool {
        guard let place = earlier.lastIndex(where: { $0.needle == needle }) else { return false }
        (self.needle, matches, parkedView) = earlier[place]
        earlier.removeSubrange(place...)
        return true
    }
}

extension LiveResult {
    /// The rows that pass the filter: the filter's view, or the whole index.
    var filtered: SectionedIndex { filter?.view(over: index) ?? index }

    /// Filters the result in memory by the values of `column` (by slot of the index) that
    /// contain `needle`. The window follows.
    mutating func setFilter(needle: [UInt8], column: TextColumn) {
        filter = nil
        let matches = column.matches(needle)
        filter = RowFilter(needle: needle, column: column, matches: matches, view: view(of: matches, narrowing: nil))
        refreshWindow()
    }

    /// Changes the needle of the filter, over the column it has.
    ///
    /// When the new needle contains the old one (it only narrows), only the rows that passed
    /// are tested again, and a needle typed one key further is decided from the positions
    /// where the old one was found. A needle it had before it was typed further (erased at its
    /// end) comes back as it was, unless a commit came in between; otherwise it is found
    /// afresh (in memory).
    mutating func setFilter(needle: [UInt8]) {
        guard var filter else { return }
        self.filter = nil
        defer { refreshWindow() }
        if filter.goBack(to: needle) { return self.filter = filter }
        filter.remember(before: needle)
        let narrows = Self.bytes(needle, contain: filter.needle)
        let matches = narrows
            ? filter.column.matches(needle, refining: filter.matches, previousNeedle: filter.needle)
            : filter.column.matches(needle)
        // Narrowing, the rows to walk through may be the previous view's, fewer than the index's.
        filter.setView(view(of: matches, narrowing: narrows ? filter.view(over: index) : nil))
        filter.needle = needle
        filter.matches = matches
        self.filter = filter
    }

    /// The view of the rows in `matches` (nil when every row of the index matches), made
    /// from the index or from `previous` (a view that holds every matching row), whichever
    /// costs less: a slot of the index in a run costs far less than one decided alone
    /// (`SectionedIndex.view(keepingSlotsIn:)`), so a large view whose matches come in runs
    /// is made from the index rather than from the many rows of the view before it.
    private func view(of matches: Matches, narrowing previous: SectionedIndex?) -> SectionedIndex? {
        guard matches.count < index.count else { return nil }
        guard let previous else { return index.view(keepingSlotsIn: matches.bits) }
        let indexCost = Double(index.count) * (1 - 0.9 * index.shareInRuns)
        return (indexCost < Double(previous.count) ? index : previous).view(keepingSlotsIn: matches.bits)
    }

    /// Removes the filter: the whole index is the result again. Its column (tens of
    /// megabytes at a million rows) is freed on another thread: giving that many pages back
    /// to the system takes longer than a frame.
    mutating func removeFilter() {
        guard let removed = filter else { return }
        filter = nil
        refreshWindow()
        DispatchQueue.global(qos: .utility).async { [freed = FreedElsewhere(consume removed)] in withExtendedLifetime(freed) {} }
    }

    /// Applies a commit's rows (their new keys, nil for rows that left) and their filter
    /// column values (`texts`, by id; a missing id is NULL) with the filter on, and returns
    /// the batch in the filtered result's index spaces. On `sectionOutOfOrder` nothing changes.
    mutating func applyFiltered(_ rows: [(id: RecordID, key: RowKey?)], sections: [(id: ColumnValue, row: SectionRow?)] = [],
                                texts: [RecordID: [UInt8]]) throws -> ChangeBatch {
        guard var filter else { return try index.apply(rows, sections: sections, sectionName: SectionedIndex.sectionName) }
        // Taken out while it changes, so that its arrays are not copied.
        self.filter = nil
        defer { self.filter = filter }
        let needle = filter.needle
        let passing: [(id: RecordID, key: RowKey?)] = rows.map { row in
            let passes = row.key != nil && texts[row.id].map { Self.bytes($0, contain: needle) } == true
            return (row.id, passes ? row.key : nil)
        }
        // A row that stays or comes in without passing ends "every row passes": the view is
        // made from the index as it was, before the commit.
        if !filter.hasView, zip(rows, passing).contains(where: { $0.key != nil && $1.key == nil }) {
            filter.setView(index.view(keepingSlotsIn: filter.matches.bits))
        }
        // Where the changed rows were in the view, read while the store holds the old keys.
        let viewChange = filter.view(over: index)?.prepareViewChange(passing)
        let leaving = rows.compactMap { $0.key == nil ? index.store.slot(for: $0.id) : nil }
        let batch = try index.apply(rows, sections: sections, sectionName: SectionedIndex.sectionName)
        for slot in leaving { try filter.set(nil, at: slot) }
        for row in rows where row.key != nil {
            guard let slot = index.store.slot(for: row.id) else { continue }
            try filter.set(texts[row.id], at: slot)
        }
        guard let viewChange, var view = filter.takeView(over: index) else { return batch }
        let viewBatch = view.applyViewChange(viewChange, sectionName: SectionedIndex.sectionName)
        filter.setView(view)
        return viewBatch
    }

    /// Whether `text` contains `needle`, byte for byte (as SQL's `instr`).
    static func bytes(_ text: [UInt8], contain needle: [UInt8]) -> Bool {
        guard needle.count <= text.count else { return false }
        guard !needle.isEmpty else { return true }
        return (0...(text.count - needle.count)).contains { start in
            text[start..<start + needle.count].elementsEqual(needle)
        }
    }
}

/// A value handed to another thread, which frees it when it lets go of it.
private final class FreedElsewhere<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: consuming Value) { self.value = value }
}
