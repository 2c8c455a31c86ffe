import Foundation
import GRDB

/// Keeps the sorted, sectioned result of a fetch request live, and tells its delegate exactly
/// which sections and rows each commit inserted, deleted, moved and updated.
///
/// The controller is not thread-safe: create it, fetch, read and call `processPendingChanges()`
/// from one thread. Committed changes are queued from the database's writer and applied
/// incrementally when that thread calls `processPendingChanges()`; `onChangesAvailable` says
/// when there is something to apply.
///
/// It holds only ids and sort keys for every row; whole records load in batches of
/// `fetchBatchSize` when they are asked for.
///
/// When the table has a `ChangeLog`, commits of other connections and processes are tracked
/// too (found by polling every `changeLogPollInterval`), and a `cacheName` persists the index
/// between launches: the third mode. Without a delegate nothing is tracked (the first mode);
/// with a delegate and no cache name, tracking lives in memory (the second).
public final class ResultsController<Record: FetchableRecord & TableRecord> {
    /// The database the records live in.
    public let database: any DatabaseWriter
    /// What to fetch. A change takes effect at the next `performFetch()`.
    public var fetchRequest: ResultsRequest<Record>
    /// The column whose value splits the result into sections; nil for one unnamed section.
    public let sectionNameKeyPath: String?
    /// The name of the section cache file; nil for no cache. Used only with a `ChangeLog`,
    /// whose position tells whether the cache is still valid.
    public let cacheName: String?
    /// Where cache files live; nil for the user's cache directory (`$XDG_CACHE_HOME/liveresults`
    /// or `~/.cache/liveresults`).
    public let cacheDirectory: URL?
    /// How often the change log is checked for commits of other connections. Where the
    /// database's folder can be watched (inotify), it is checked 1 ms after writes to
    /// it, and at 20 times this interval as a safety net. Set it before `performFetch()`;
    /// zero turns checking off (`refresh()` still checks).
    public var changeLogPollInterval: Duration = .milliseconds(50)
    /// Where the last `performFetch()` took the result from.
    public private(set) var lastFetchSource: FetchSource?
    /// Receives the changes. Tracking happens only when a delegate is set at `performFetch()`.
    public weak var delegate: (any ResultsControllerDelegate<Record>)?
    /// Called, on the database's writer thread, when committed changes wait to be processed.
    /// Set it before `performFetch()`.
    public var onChangesAvailable: (@Sendable () -> Void)?
    /// Receives, after each batch, a snapshot of the whole result (the snapshot form of the
    /// delegate). Building one costs O(n); the row-by-row delegate does not pay it.
    public var onSnapshot: ((ResultsSnapshot) -> Void)?

    /// Every matching row, in order.
    private var index: SectionedIndex
    /// With a `fetchLimit`, the first rows of `index`: what the controller shows and reports.
    private var window: SectionedIndex?
    /// The rows the controller shows.
    private var shown: SectionedIndex { window ?? index }
    private var tracker: ChangeTracker?
    private var poller: ChangeLogPoller?
    /// The cache file and what it must match, in the third mode.
    private var cache: (file: SectionCache, stamp: CacheStamp)?
    /// The change log position the index reflects at least, and the one the cache file has.
    private var appliedPosition: Int64?
    private var savedPosition: Int64?
    private var records: [RecordID: Record] = [:]
    private var fetchedRequest: ResultsRequest<Record>?
    /// Set when changes could not be applied; the next `processPendingChanges` refetches.
    private var needsRefetch = false
    /// Set when that refetch cannot know what changed and must end in a reset.
    private var needsReset = false
    /// Rows touched by commits that could not be delivered; reported by the next refetch.
    private var unreportedIDs: Set<RecordID> = []

    public init(database: any DatabaseWriter, fetchRequest: ResultsRequest<Record>, sectionNameKeyPath: String? = nil,
                cacheName: String? = nil, cacheDirectory: URL? = nil) {
        self.database = database
        self.fetchRequest = fetchRequest
        self.sectionNameKeyPath = sectionNameKeyPath
        self.cacheName = cacheName
        self.cacheDirectory = cacheDirectory
        self.index = SectionedIndex(ascending: [], unsectioned: false) // No sections before the first fetch.
    }

    deinit {
        poller?.cancel()
        if let tracker { database.remove(transactionObserver: tracker) }
        try? saveCache()
    }

    // MARK: - Fetching

    /// Fetches the result, and starts tracking changes when there is a delegate.
    ///
    /// Throws a `LiveResultsError` when the request has no sort descriptor, names a column
    /// the table lacks, or orders rows unlike the section key.
    public func performFetch() throws {
        let request = fetchRequest
        guard !request.sortDescriptors.isEmpty else {
            throw LiveResultsError(.missingSortDescriptor, "The fetch request has no sort descriptor: a result needs at least one to have an order.")
        }
        let query = KeyQuery(tableName: request.tableName, predicate: request.predicate, sortDescriptors: request.sortDescriptors, sectionColumn: sectionNameKeyPath)
        let tracking = delegate != nil
        let notify = onChangesAvailable
        let file = cacheName.map { SectionCache(name: $0, directory: cacheDirectory) }
        let fetched = try withReadableErrors {
            try database.writeWithoutTransaction { db -> Fetched in
                try checkColumns(db, request: request)
                let rowIDColumn = try db.primaryKey(request.tableName).rowIDColumn
                var fetched: Fetched?
                // One snapshot for the log position, the cache check and the rows; on the writer,
                // so no commit of ours falls between reading and observing.
                try db.inTransaction(.deferred) {
                    let position = try ChangeLog.isInstalled(on: request.tableName, in: db) ? try ChangeLog.position(db) : nil
                    let stamp = try position.flatMap { position in try file.map { _ in try self.stamp(db, request: request, query: query, position: position) } }
                    var source = FetchSource.database
                    var index: SectionedIndex
                    if let file, let stamp, let cached = try Self.loadCache(file, stamp: stamp, query: query, db: db) {
                        index = cached
                        source = .cache
                    } else {
                        index = try query.fetchIndex(db, sectionName: Self.sectionName)
                    }
                    let unique = tracking ? try Self.uniqueColumns(of: request.tableName, in: db) : nil
                    let tracker = tracking ? ChangeTracker(query: query, rowIDColumn: rowIDColumn, uniqueColumns: unique, logPosition: position) { notify?() } : nil
                    if let tracker { db.add(transactionObserver: tracker, extent: .observerLifetime) }
                    fetched = Fetched(index: index, tracker: tracker, position: position, stamp: stamp, source: source)
                    return .commit
                }
                return fetched!
            }
        }
        poller?.cancel()
        poller = nil
        if let tracker { database.remove(transactionObserver: tracker) }
        tracker = fetched.tracker
        index = fetched.index
        window = request.fetchLimit > 0 ? index.prefix(request.fetchLimit, sectionName: Self.sectionName) : nil
        records.removeAll()
        fetchedRequest = request
        needsRefetch = false
        needsReset = false
        unreportedIDs.removeAll()
        lastFetchSource = fetched.source
        appliedPosition = fetched.position
        if let tracker, tracker.readsChangeLog, changeLogPollInterval > .zero {
            poller = ChangeLogPoller(database: database, tracker: tracker, interval: changeLogPollInterval)
        }
        if let file, let stamp = fetched.stamp { cache = (file, stamp) } else { cache = nil }
        // The cache is written when the controller goes away (writing a million rows takes a
        // while: not at every fetch, such as each keystroke of a filter).
        savedPosition = fetched.source == .cache ? fetched.position : nil
    }

    /// The columns of the table's unique indexes (every column when one holds an expression);
    /// nil when it has none but its primary key.
    private static func uniqueColumns(of table: String, in db: Database) throws -> Set<String>? {
        let indexes = try ChangeLog.uniqueIndexes(of: table, in: db)
        guard !indexes.isEmpty else { return nil }
        let parts = indexes.joined()
        if parts.contains(where: { $0.column == nil }) { return Set(try db.columns(in: table).map(\.name)) }
        return Set(parts.compactMap(\.column))
    }

    private struct Fetched {
        var index: SectionedIndex
        var tracker: ChangeTracker?
        var position: Int64?
        var stamp: CacheStamp?
        var source: FetchSource
    }

    /// What a cache for this request must have been made from (position included).
    private func stamp(_ db: Database, request: ResultsRequest<Record>, query: KeyQuery, position: Int64) throws -> CacheStamp {
        let predicate = try request.predicate.map { predicate in
            let (sql, arguments) = try predicate.build(db)
            return sql + " -- " + arguments.description
        }
        return CacheStamp(
            table: request.tableName,
            schema: try Self.schemaFingerprint(db),
            sortDescriptors: request.sortDescriptors.map { $0.column + ($0.ascending ? " ASC" : " DESC") },
            predicate: predicate ?? "",
            sectionKeyPath: sectionNameKeyPath,
            databaseID: try ChangeLog.databaseID(db),
            position: position)
    }

    /// A hash of the whole schema's SQL. (Not `PRAGMA schema_version`: GRDB creates and drops a
    /// table each time it opens a pool without a WAL file, which bumps it at every launch.)
    private static func schemaFingerprint(_ db: Database) throws -> String {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325 // FNV-1a
        let rows = try Row.fetchCursor(db, sql: "SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name")
        while let row = try rows.next() {
            for index in 0..<4 {
                for byte in ((row[index] as String?) ?? "").utf8 { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
                hash = (hash ^ 0xFF) &* 0x0000_0100_0000_01B3
            }
        }
        return String(hash, radix: 16)
    }

    /// The cached index brought up to `stamp`'s position by replaying the change log, or nil
    /// when there is no usable cache (missing, stale, corrupt, foreign, or too far behind).
    private static func loadCache(_ file: SectionCache, stamp: CacheStamp, query: KeyQuery, db: Database) throws -> SectionedIndex? {
        guard let (cached, index) = file.load(matching: stamp, ascending: query.sortDescriptors.map(\.ascending), sectionName: sectionName),
              let changed = try ChangeLog.changedRowIDs(db, table: stamp.table, after: cached.position, through: stamp.position),
              changed.count <= max(1000, index.count / 4)
        else { return nil }
        var caughtUp = index
        let ids = changed.sorted()
        let keys = try query.fetchKeys(db, ids: ids)
        do {
            _ = try caughtUp.apply(ids.map { ($0, keys[$0]) }, sectionName: sectionName)
        } catch {
            return nil
        }
        return caughtUp
    }

    /// Writes the cache file when the index moved past the one on disk (third mode only).
    private func saveCache() throws {
        guard let cache, let position = appliedPosition, position != savedPosition, !needsRefetch else { return }
        var stamp = cache.stamp
        stamp.position = position
        try cache.file.write(SectionCache.encode(index, stamp: stamp))
        savedPosition = position
    }

    /// Removes the cache file named `name` (as given to a controller), or every cache file in
    /// the directory when `name` is nil. Call it before changing a cached controller's request.
    public static func deleteCache(named name: String?, in directory: URL? = nil) throws {
        try SectionCache.delete(named: name, directory: directory)
    }

    private func checkColumns(_ db: Database, request: ResultsRequest<Record>) throws {
        guard try db.tableExists(request.tableName) else {
            throw LiveResultsError(.unknownColumn(request.tableName), "There is no table named “\(request.tableName)”.")
        }
        let columns = Set(try db.columns(in: request.tableName).map { $0.name.lowercased() })
        let named = request.sortDescriptors.map(\.column) + (sectionNameKeyPath.map { [$0] } ?? [])
        for column in named where !columns.contains(column.lowercased()) && column.lowercased() != "rowid" {
            throw LiveResultsError(.unknownColumn(column), "The table “\(request.tableName)” has no column named “\(column)”.")
        }
    }

    private func withReadableErrors<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as DatabaseError {
            if let message = error.message, message.hasPrefix("no such column: ") {
                let column = String(message.dropFirst("no such column: ".count))
                throw LiveResultsError(.unknownColumn(column), "The fetch request names a column that does not exist: “\(column)”.")
            }
            throw LiveResultsError(.database, "The database could not run the fetch request: \(error.message ?? "\(error.resultCode)").")
        }
    }

    static func sectionName(_ value: DatabaseValue) -> String {
        switch value.storage {
        case .null: return ""
        case .int64(let int): return String(int)
        case .double(let double): return String(double)
        case .string(let string): return string
        case .blob(let data): return data.map { String(format: "%02x", $0) }.joined()
        }
    }

    // MARK: - Tracking

    /// Looks for commits of other connections now, without waiting for the poller, then
    /// processes every pending change.
    public func refresh() throws {
        if let tracker { database.writeWithoutTransaction { db in tracker.pollOtherConnections(db) } }
        try processPendingChanges()
    }

    /// Applies the changes committed since the last call, delivering one batch per commit.
    ///
    /// Each commit costs O(k log n) for the k rows it touched: no refetch. Without a delegate
    /// the changes are dropped and the result stays as it was fetched.
    public func processPendingChanges() throws {
        guard let tracker else { return }
        var changes = tracker.takeChanges()[...]
        guard delegate != nil else { return }
        do {
            if needsRefetch { try refetchAndDiff() }
            while let change = changes.popFirst() {
                switch change {
                case .rows(let commit):
                    try apply(commit)
                case .refetch(let touched):
                    unreportedIDs.formUnion(touched)
                    try refetchAndDiff()
                case .reset:
                    try refetchAndDiff(resetting: true)
                }
            }
        } catch {
            // Remember what the undelivered commits touched, to report it once a refetch works.
            needsRefetch = true
            for change in changes {
                switch change {
                case .rows(let commit): unreportedIDs.formUnion(commit.rows.map(\.id))
                case .refetch(let touched): unreportedIDs.formUnion(touched)
                case .reset: needsReset = true
                }
            }
            throw error
        }
    }

    /// Applies one commit row by row, or refetches when the commit removed rows it does not
    /// name or split a section.
    private func apply(_ commit: CommittedChange) throws {
        let ids = commit.rows.map(\.id)
        if let expected = commit.expectedCount {
            // Rows REPLACE removed are named nowhere: a count that disagrees finds them.
            let counted = commit.rows.reduce(index.count) { count, row in
                count + (row.key != nil ? 1 : 0) - (index.contains(row.id) ? 1 : 0)
            }
            if counted != expected {
                unreportedIDs.formUnion(ids)
                try refetchAndDiff()
                return
            }
        }
        do {
            for id in ids { records[id] = nil }
            let batch = try index.apply(commit.rows, sectionName: Self.sectionName)
            deliver(window == nil ? batch : try moveWindow(touched: ids))
            if let position = commit.position { appliedPosition = max(appliedPosition ?? 0, position) }
        } catch let error as LiveResultsError where error.kind == .sectionOutOfOrder {
            // The commit split a section; the index is as it was. A refetch says whether
            // the database really is out of order (then the error stands) or not.
            unreportedIDs.formUnion(ids)
            try refetchAndDiff()
        }
    }

    /// The fallback when a commit cannot be applied row by row: fetches the whole result and
    /// reports the rows whose place changed and the rows commits touched (`unreportedIDs`),
    /// whose other values may have changed. With `resetting`, nothing is known of what changed:
    /// the delegate is told to reload instead. Throws (and tries again at the next call) when
    /// the fresh result is itself invalid, such as a section out of order.
    private func refetchAndDiff(resetting: Bool = false) throws {
        guard let request = fetchedRequest else { return }
        needsRefetch = true
        if resetting { needsReset = true }
        let query = KeyQuery(tableName: request.tableName, predicate: request.predicate, sortDescriptors: request.sortDescriptors, sectionColumn: sectionNameKeyPath)
        let logged = tracker?.readsChangeLog == true
        let (fresh, position) = try withReadableErrors {
            try database.read { db in (try query.fetchAll(db), logged ? try ChangeLog.position(db) : nil) }
        }
        let freshIndex = try SectionedIndex(ascending: index.ascending, unsectioned: sectionNameKeyPath == nil, sortedRows: fresh, sectionName: Self.sectionName)
        records.removeAll()
        if needsReset {
            index = freshIndex
            if let limit = fetchedRequest?.fetchLimit, limit > 0 { window = index.prefix(limit, sectionName: Self.sectionName) }
            needsRefetch = false
            needsReset = false
            unreportedIDs.removeAll()
            if let position { appliedPosition = position }
            deliverReset()
            return
        }
        // Changed: rows whose place changed, and rows commits touched that were never reported.
        var changes: [(id: RecordID, key: RowKey?)] = []
        var present = Set<RecordID>()
        for (id, key) in fresh {
            present.insert(id)
            if index.key(for: id) != key || unreportedIDs.contains(id) { changes.append((id, key)) }
        }
        for id in index.allIDs where !present.contains(id) { changes.append((id, nil)) }
        let fullBatch = try index.apply(changes, sectionName: Self.sectionName)
        let batch = window == nil ? fullBatch : try moveWindow(touched: changes.map(\.id))
        needsRefetch = false
        unreportedIDs.removeAll()
        if let position { appliedPosition = max(appliedPosition ?? 0, position) }
        deliver(batch)
    }

    /// Brings the window of a limited request up to date with `index` after the rows in
    /// `touched` changed, and returns the batch in the window's index spaces.
    ///
    /// Besides the touched rows, only rows near the limit can enter or leave the window:
    /// k changes shift any other row by at most k places.
    private func moveWindow(touched: [RecordID]) throws -> ChangeBatch {
        guard var window, let limit = fetchedRequest?.fetchLimit else { return ChangeBatch() }
        var changes: [(id: RecordID, key: RowKey?)] = []
        var seen = Set<RecordID>()
        for id in touched where seen.insert(id).inserted {
            if let position = index.position(of: id), position < limit {
                changes.append((id, index.key(for: id)))
            } else if window.contains(id) {
                changes.append((id, nil))
            }
        }
        let shift = seen.count
        let nearLimit = min(index.count, max(0, limit - shift - 1))..<min(index.count, limit + shift + 1)
        for (position, id) in index.ids(inPositions: nearLimit) where !seen.contains(id) {
            if position < limit, !window.contains(id) {
                changes.append((id, index.key(for: id)))
            } else if position >= limit, window.contains(id) {
                changes.append((id, nil))
            }
        }
        let batch = try window.apply(changes, sectionName: Self.sectionName)
        self.window = window
        return batch
    }

    /// Tells the subscribers that the result was replaced wholesale.
    private func deliverReset() {
        onSnapshot?(snapshot(reloading: Set(shown.allIDs)))
        delegate?.controllerDidResetContent(self)
    }

    private func deliver(_ batch: ChangeBatch) {
        guard !batch.isEmpty else { return }
        if let onSnapshot {
            let reloaded = batch.rowChanges.filter { $0.kind == .update || $0.kind == .move }.map(\.id)
            onSnapshot(snapshot(reloading: Set(reloaded)))
        }
        guard let delegate else { return }
        delegate.controllerWillChangeContent(self)
        for change in batch.sectionChanges {
            let count = change.kind == .insert ? shown.rowCount(inSection: change.index) : 0
            let info = SectionInfo(name: change.name, indexTitle: sectionIndexTitle(forSectionName: change.name), numberOfObjects: count)
            delegate.controller(self, didChange: info, atSectionIndex: change.index, for: change.kind)
        }
        for change in batch.rowChanges {
            delegate.controller(self, didChangeRecordWithID: change.id, at: change.indexPath, for: change.kind, newIndexPath: change.newIndexPath)
        }
        delegate.controllerDidChangeContent(self)
    }

    // MARK: - Reading the result

    /// The sections of the result, in order.
    public var sections: [SectionInfo] {
        shown.sections.map { SectionInfo(name: $0.name, indexTitle: sectionIndexTitle(forSectionName: $0.name), numberOfObjects: $0.slots.count) }
    }

    /// The records of one section, in order (loaded now if they are not in memory).
    public func objects(inSection section: Int) throws -> [Record] {
        let ids = shown.ids(inSection: section, rows: 0..<shown.rowCount(inSection: section))
        let loaded = try load(ids.filter { records[$0] == nil })
        return ids.compactMap { records[$0] ?? loaded[$0] }
    }

    /// The whole result as section names and ids; `reloading` names the rows updated in place.
    public func snapshot(reloading: Set<RecordID> = []) -> ResultsSnapshot {
        ResultsSnapshot(
            sectionIdentifiers: shown.sections.map(\.name),
            itemIdentifiers: shown.sections.indices.map { shown.ids(inSection: $0, rows: 0..<shown.rowCount(inSection: $0)) },
            reloadedItemIdentifiers: reloading
        )
    }

    /// The number of rows in a section.
    public func numberOfObjects(inSection section: Int) -> Int {
        shown.rowCount(inSection: section)
    }

    /// The number of rows in the whole result.
    public var numberOfObjects: Int { shown.count }

    /// The id of the row at an index path.
    public func id(at indexPath: IndexPath) -> RecordID {
        shown.id(at: indexPath)
    }

    /// The place of a row in the result, or nil when it is not in it.
    public func indexPath(for id: RecordID) -> IndexPath? {
        shown.indexPath(for: id)
    }

    /// The record at an index path, loading it (and its neighbours, up to `fetchBatchSize`)
    /// when it is not in memory.
    public func object(at indexPath: IndexPath) throws -> Record {
        let id = shown.id(at: indexPath)
        if let record = records[id] { return record }
        let rowCount = shown.rowCount(inSection: indexPath.section)
        let batchSize = fetchRequest.fetchBatchSize > 0 ? fetchRequest.fetchBatchSize : rowCount
        let batch = try load(shown.ids(inSection: indexPath.section, rows: indexPath.row..<min(rowCount, indexPath.row + batchSize)))
        // Keep memory bounded: forget what was loaded before once there is much of it.
        if records.count + batch.count > max(4096, 64 * fetchRequest.fetchBatchSize) { records.removeAll() }
        records.merge(batch) { _, new in new }
        guard let record = batch[id] else {
            throw LiveResultsError(.database, "The row \(id) is no longer in the database.")
        }
        return record
    }

    /// All records of the result, in order.
    public var fetchedObjects: [Record] {
        get throws {
            let ids = shown.allIDs
            let loaded = try load(ids.filter { records[$0] == nil })
            return ids.compactMap { records[$0] ?? loaded[$0] }
        }
    }

    /// Reads whole records by id.
    private func load(_ ids: [RecordID]) throws -> [RecordID: Record] {
        guard !ids.isEmpty else { return [:] }
        let table = fetchRequest.tableName.quotedDatabaseIdentifier
        return try withReadableErrors {
            try database.read { db in
                var loaded: [RecordID: Record] = [:]
                var start = 0
                while start < ids.count {
                    let chunk = ids[start..<min(start + 500, ids.count)]
                    let sql = "SELECT rowid AS \"liveresults_rowid\", * FROM \(table) WHERE rowid IN (\(chunk.map(String.init).joined(separator: ",")))"
                    let cursor = try Row.fetchCursor(db, sql: sql)
                    while let row = try cursor.next() {
                        loaded[row[0]] = try Record(row: row)
                    }
                    start += 500
                }
                return loaded
            }
        }
    }

    // MARK: - Section index

    /// The titles of the section index, in section order, without repeats.
    public var sectionIndexTitles: [String] {
        var seen = Set<String>()
        return shown.sections.map { sectionIndexTitle(forSectionName: $0.name) }.filter { seen.insert($0).inserted }
    }

    /// The index title of a section name: the delegate's, or the name's capitalised first letter.
    public func sectionIndexTitle(forSectionName sectionName: String) -> String {
        delegate?.controller(self, sectionIndexTitleForSectionName: sectionName) ?? Self.indexTitle(for: sectionName)
    }

    /// The section a tap on an index title should show: the first section with that title.
    /// `sectionIndex` is the title's place in `sectionIndexTitles`, used when no section has it.
    public func section(forSectionIndexTitle title: String, at sectionIndex: Int) -> Int {
        if let section = shown.sections.firstIndex(where: { sectionIndexTitle(forSectionName: $0.name) == title }) {
            return section
        }
        return max(0, min(sectionIndex, shown.sections.count - 1))
    }

    /// The default index title of a section name: its capitalised first letter.
    public static func indexTitle(for sectionName: String) -> String {
        sectionName.first.map { String($0).uppercased() } ?? ""
    }
}
