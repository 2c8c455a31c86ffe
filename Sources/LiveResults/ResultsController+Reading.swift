import Foundation

// Reading the result: sections, ids, index paths, records (loaded lazily), the section index.

extension ResultsController {
    /// The sections of the result, in order.
    ///
    /// - Complexity: O(s) for s sections.
    public var sections: [SectionInfo] {
        let shown = result.shown
        return shown.sections.indices.map { s in
            let name = shown.sections[s].name
            return SectionInfo(name: name, identifier: shown.identifier(ofSection: s), indexTitle: sectionIndexTitle(forSectionName: name), numberOfObjects: shown.rowCount(inSection: s))
        }
    }

    /// The records of one section, in order (loaded now if they are not in memory).
    ///
    /// - Complexity: O(m) for a section of m rows, plus one query for those not in memory.
    public func objects(inSection section: Int) throws -> [Record] {
        let ids = result.shown.ids(inSection: section, rows: 0..<result.shown.rowCount(inSection: section))
        let loaded = try load(ids.filter { records[$0] == nil })
        return ids.compactMap { records[$0] ?? loaded[$0] }
    }

    /// The whole result as section identifiers and ids; `reloading` names the rows updated in
    /// place, `reloadingSections` the sections (by identifier) moved or updated.
    ///
    /// - Complexity: O(n) for n rows.
    public func snapshot(reloading: Set<RecordID> = [], reloadingSections: Set<String> = []) -> ResultsSnapshot {
        let shown = result.shown
        return ResultsSnapshot(
            sectionIdentifiers: shown.sections.indices.map { shown.identifier(ofSection: $0) },
            sectionNames: shown.sections.map(\.name),
            itemIdentifiers: shown.sections.indices.map { shown.ids(inSection: $0, rows: 0..<shown.rowCount(inSection: $0)) },
            reloadedItemIdentifiers: reloading,
            reloadedSectionIdentifiers: reloadingSections
        )
    }

    /// The number of sections, without building their `SectionInfo`s.
    public var numberOfSections: Int { result.shown.sections.count }

    /// The number of rows in a section.
    public func numberOfObjects(inSection section: Int) -> Int {
        result.shown.rowCount(inSection: section)
    }

    /// The number of rows in the whole result.
    ///
    /// - Complexity: O(1); O(s) for s sections while a filter is on.
    public var numberOfObjects: Int { result.shown.count }

    /// The id of the row at an index path.
    ///
    /// - Complexity: O(1).
    public func id(at indexPath: IndexPath) -> RecordID {
        result.shown.id(at: indexPath)
    }

    /// The place of a row in the result, or nil when it is not in it.
    ///
    /// - Complexity: O(log m) comparisons for a row of a section of m rows (a binary search
    ///   on the row's sort key).
    public func indexPath(for id: RecordID) -> IndexPath? {
        result.shown.indexPath(for: id)
    }

    /// The record at an index path, loading it when it is not in memory, with those of the
    /// next rows in result order (into the next sections too), up to `fetchBatchSize` in all,
    /// that are not in memory either: a cold window loads in one batch, however many sections
    /// it spans (a table's first screen is one query, not one a section: across a network,
    /// each is a round trip), and a record an update dropped from a loaded window loads alone.
    /// With no `fetchBatchSize`, the window is the rest of the row's section.
    ///
    /// - Complexity: O(1) for a record in memory; otherwise one query for at most
    ///   `fetchBatchSize` records.
    public func object(at indexPath: IndexPath) throws -> Record {
        let id = result.shown.id(at: indexPath)
        if let record = records[id] { return record }
        let window = window(from: indexPath)
        remember(try load(window.filter { records[$0] == nil }), keeping: window)
        guard let record = records[id] else {
            throw LiveResultsError(.database, "The row \(id) is no longer in the database.")
        }
        return record
    }

    /// The ids of the rows from `indexPath` on, in result order: `fetchBatchSize` of them
    /// (fewer at the end), or the rest of its section when there is no batch size.
    private func window(from indexPath: IndexPath) -> [RecordID] {
        let shown = result.shown
        let rowCount = shown.rowCount(inSection: indexPath.section)
        guard fetchRequest.fetchBatchSize > 0 else { return shown.ids(inSection: indexPath.section, rows: indexPath.row..<rowCount) }
        var window = shown.ids(inSection: indexPath.section, rows: indexPath.row..<min(rowCount, indexPath.row + fetchRequest.fetchBatchSize))
        var section = indexPath.section + 1
        while window.count < fetchRequest.fetchBatchSize, section < shown.sections.count {
            let rows = shown.rowCount(inSection: section)
            window += shown.ids(inSection: section, rows: 0..<min(rows, fetchRequest.fetchBatchSize - window.count))
            section += 1
        }
        return window
    }

    /// Keeps records just loaded in memory. Memory stays bounded: once there are many, those
    /// loaded before are forgotten, all but the ones of `window` (the rows being read).
    private func remember(_ loaded: [RecordID: Record], keeping window: [RecordID]) {
        if records.count + loaded.count > max(4096, 64 * fetchRequest.fetchBatchSize) {
            let kept = window.compactMap { id in records[id].map { (id, $0) } }
            records = Dictionary(uniqueKeysWithValues: kept)
        }
        records.merge(loaded) { _, new in new }
    }

    /// All records of the result, in order.
    ///
    /// - Complexity: O(n) for n rows, and a query for every record not in memory: for a
    ///   small result; a large one reads through `object(at:)`.
    public var fetchedObjects: [Record] {
        get throws {
            let ids = result.shown.allIDs
            let loaded = try load(ids.filter { records[$0] == nil })
            return ids.compactMap { records[$0] ?? loaded[$0] }
        }
    }

    /// Reads whole records by id.
    private func load(_ ids: [RecordID]) throws -> [RecordID: Record] {
        guard !ids.isEmpty else { return [:] }
        recordReadCount += 1
        return try loadRecords(ids)
    }

    // MARK: - Section index

    /// The titles of the section index, in section order, without repeats.
    ///
    /// - Complexity: O(s) for s sections.
    public var sectionIndexTitles: [String] {
        var seen = Set<String>()
        return result.shown.sections.map { sectionIndexTitle(forSectionName: $0.name) }.filter { seen.insert($0).inserted }
    }

    /// The index title of a section name: the delegate's, or the name's capitalised first letter.
    public func sectionIndexTitle(forSectionName sectionName: String) -> String {
        delegate?.controller(self, sectionIndexTitleForSectionName: sectionName) ?? Self.indexTitle(for: sectionName)
    }

    /// The section a tap on an index title should show: the first section with that title.
    /// `sectionIndex` is the title's place in `sectionIndexTitles`, used when no section has it.
    ///
    /// - Complexity: O(s) for s sections.
    public func section(forSectionIndexTitle title: String, at sectionIndex: Int) -> Int {
        if let section = result.shown.sections.firstIndex(where: { sectionIndexTitle(forSectionName: $0.name) == title }) {
            return section
        }
        return max(0, min(sectionIndex, result.shown.sections.count - 1))
    }

    /// The default index title of a section name: its capitalised first letter.
    public static func indexTitle(for sectionName: String) -> String {
        sectionName.first.map { String($0).uppercased() } ?? ""
    }
}
