import Foundation
import Synchronization

/// Keeps the sorted, sectioned result of a fetch request live, and tells its delegate exactly
/// which sections and rows each commit inserted, deleted, moved and updated.
///
/// The controller is not thread-safe: create it, fetch, read and call `processPendingChanges()`
/// from one thread. Committed changes are queued from the database's writer and applied
/// incrementally when that thread calls `processPendingChanges()`; `onChangesAvailable` says
/// when there is something to apply.
///
/// Or, with no pumping, iterate `changes()` (or `snapshots()`): the sequence processes the
/// changes itself on the isolation that iterates it (one thread, task or actor at a time is
/// what the controller needs), each element a batch of the commits made since the last.
///
/// It holds only ids and sort keys for every row; whole records load in batches of
/// `fetchBatchSize` when they are asked for.
///
/// When the table has a `ChangeLog`, commits of other connections and processes are tracked
/// too (found by polling every `changeLogPollInterval`), and a `cacheName` persists the index
/// between launches: persistent tracking. Without a delegate nothing is tracked (a snapshot
/// at the fetch); with a delegate and no cache name, tracking lives in memory.
///
/// The parts: a `ResultsStore` reads keys and starts a `ChangeFeed` (SQLite in
/// LiveResultsSQLite, PostgreSQL in LiveResultsPostgres); `LiveResult` keeps the result in
/// memory and turns changes into batches (it knows no database); SQLite's store keeps the
/// index between launches in a `SectionCache`. `Record` is whatever the store's initializer
/// can decode (on SQLite, GRDB's `FetchableRecord & TableRecord`; on PostgreSQL, a
/// `ColumnRowRecord`): the controller itself only holds it.
public final class ResultsController<Record> {
    /// Where the rows live.
    let store: any ResultsStore
    /// The table the rows are read from, as the store's initializer named it (on SQLite,
    /// `Record.databaseTableName`).
    public let tableName: String
    /// Reads the whole records of those of some ids that still exist, by id: the store's
    /// decoding of its own rows into `Record`.
    let loadRecords: RecordLoader<Record>
    /// Decodes a row a commit brought whole (`CommittedChange.records`), as `loadRecords`
    /// would have read it; nil where the store brings none.
    let decodeRecord: RecordDecoder<Record>?
    /// What to fetch. A change takes effect at the next `performFetch()`.
    public var fetchRequest: ResultsRequest<Record>
    /// The column whose value splits the result into sections; nil for one unnamed section,
    /// or for sections through a relationship (`relatedSections`).
    public let sectionNameKeyPath: String?
    /// The related table whose rows are the sections (`init(database:fetchRequest:sections:…)`);
    /// nil for sections keyed by `sectionNameKeyPath`.
    public let relatedSections: RelatedSections?
    /// The name of the section cache file; nil for no cache. Used only with a `ChangeLog`,
    /// whose position tells whether the cache is still valid.
    public let cacheName: String?
    /// Where cache files live; nil for the user's cache directory (`$XDG_CACHE_HOME/liveresults`
    /// or `~/.cache/liveresults`).
    public let cacheDirectory: URL?
    /// How often the change log is checked for commits of other connections, as a safety net
    /// besides the store's wake-ups (on SQLite, inotify on the database's folder: the log is
    /// then checked 1 ms after writes, and at 20 times this interval). Zero turns the safety
    /// net off (`refresh()` still checks). Set after `performFetch()`, it applies from then on.
    public var changeLogPollInterval: Duration = .milliseconds(50) {
        didSet { feed?.retune(pollInterval: changeLogPollInterval, minimumLookInterval: minimumChangeLogLookInterval) }
    }
    /// The shortest time between two looks at the change log woken by writes. Zero (the
    /// default) looks 1 ms after every burst of writes, for the lowest latency; a screen that
    /// draws at most once a frame can give it a frame (1/60 s), so that a storm of commits
    /// from elsewhere is read in batches and costs a fraction of the CPU. A lone commit is
    /// seen after 1 ms either way. Set after `performFetch()`, it applies from then on.
    public var minimumChangeLogLookInterval: Duration = .zero {
        didSet { feed?.retune(pollInterval: changeLogPollInterval, minimumLookInterval: minimumChangeLogLookInterval) }
    }
    /// The filter applied in memory on top of the request (`setFilter(_:)`); nil for none.
    public internal(set) var filter: ResultsFilter?
    /// Where the last `performFetch()` took the result from.
    public internal(set) var lastFetchSource: FetchSource?
    /// Receives the changes. Tracking happens only when a delegate is set at `performFetch()`.
    public weak var delegate: (any ResultsControllerDelegate<Record>)?
    /// Called, on the database's writer thread, when committed changes wait to be processed.
    /// Set after `performFetch()`, it is called from then on.
    public var onChangesAvailable: (@Sendable () -> Void)? {
        get { wakeUp.state.withLock { $0.onChangesAvailable } }
        set { wakeUp.state.withLock { $0.onChangesAvailable = newValue } }
    }
    /// Whether `onChangesAvailable` is called for the commits of this controller's own writes
    /// (`ChangeOrigin.ownWrites`) as well as for those from elsewhere. An app that calls
    /// `processPendingChanges()` right after each of its writes, on the controller's thread,
    /// sets it false: the call would only wake it to find nothing left. Set after
    /// `performFetch()`, it applies from the next commit.
    public var notifiesOwnWrites: Bool {
        get { wakeUp.state.withLock { $0.notifiesOwnWrites } }
        set { wakeUp.state.withLock { $0.notifiesOwnWrites = newValue } }
    }
    /// `onChangesAvailable` and `notifiesOwnWrites`, which the feed asks for on its own thread
    /// at each commit, so that setting them after the fetch takes effect.
    private let wakeUp = WakeUpSettings()
    /// Receives, after each batch, a snapshot of the whole result (the snapshot form of the
    /// delegate). Building one costs O(n); the row-by-row delegate does not pay it.
    public var onSnapshot: ((ResultsSnapshot) -> Void)?

    /// The result, in memory.
    var result = LiveResult.unfetched
    /// What commits changed; nil when not tracking.
    private(set) var feed: (any ChangeFeed)?
    /// The change log position the index reflects at least.
    var appliedPosition: Int64?
    /// Whole records loaded so far, by id.
    var records: [RecordID: Record] = [:]
    /// The request of the last successful fetch (what a refetch repeats).
    var fetchedRequest: ResultsRequest<Record>?
    /// What the next `processPendingChanges` must do first, after changes failed to apply.
    var recovery = Recovery()
    /// The filter's column being read in the background (`prepareFilter(inColumn:)`); nil for none.
    var filterLoad: FilterColumnLoad?
    /// How many times the result was fetched again to catch up: a fallback that still reports
    /// exact events, so only this count shows (in tests) that the row-by-row path was missed.
    var refetchCount = 0
    /// How many times whole records were read from the store (tests: a row a commit brought
    /// whole is not read again).
    var recordReadCount = 0
    /// The async sequences iterating the controller (`changes()`, `snapshots()`).
    let streams = ChangeStreams()
    /// The thread the async sequences run their steps on, off Swift's cooperative pool.
    let storeThread = StoreThread()

    /// A controller over any store (the SQLite and PostgreSQL stores' initializers call it),
    /// reading `tableName` and decoding its records with `loadRecords`. `cacheName` and
    /// `cacheDirectory` only say what the store was given. With `relatedSections`,
    /// `sectionNameKeyPath` is ignored.
    package init(store: any ResultsStore, tableName: String, loadRecords: @escaping RecordLoader<Record>, decodeRecord: RecordDecoder<Record>? = nil,
                 fetchRequest: ResultsRequest<Record>, sectionNameKeyPath: String? = nil, relatedSections: RelatedSections? = nil,
                 cacheName: String? = nil, cacheDirectory: URL? = nil) {
        self.store = store
        self.tableName = tableName
        self.loadRecords = loadRecords
        self.decodeRecord = decodeRecord
        self.fetchRequest = fetchRequest
        self.sectionNameKeyPath = relatedSections == nil ? sectionNameKeyPath : nil
        self.relatedSections = relatedSections
        self.cacheName = cacheName
        self.cacheDirectory = cacheDirectory
    }

    deinit {
        filterLoad?.cancel()
        feed = nil
        // Written when the controller goes away (writing a million rows takes a while: not at
        // every fetch, such as each keystroke of a filter), unless the index may be wrong.
        if !recovery.needsRefetch { try? store.keep(result.index, at: appliedPosition) }
    }

    // MARK: - Fetching

    /// Fetches the result, and starts tracking changes when there is a delegate.
    ///
    /// Throws a `LiveResultsError` when the request has no sort descriptor, names a column
    /// the table lacks, or orders rows unlike the section key.
    ///
    /// - Complexity: O(n) for a result of n rows: the database sorts, and the controller keeps
    ///   the keys in one pass, in the order they come. From a section cache, O(n) to map and
    ///   check the file, plus O(k log n) to catch up with the k commits made since (a fetch
    ///   when they are many). Whole records are not read (`object(at:)` loads them).
    public func performFetch() throws {
        let request = fetchRequest
        guard !request.sortDescriptors.isEmpty else {
            throw LiveResultsError(.missingSortDescriptor, "The fetch request has no sort descriptor: a result needs at least one to have an order.")
        }
        let streams = streams
        let wakeUp = wakeUp
        // A sequence waits for every commit, its own process's too.
        let tracking = delegate == nil && !streams.hasSubscribers ? nil : Tracking(
            notify: { [weak streams] in wakeUp.state.withLock { $0.onChangesAvailable }?(); streams?.wake() },
            pollInterval: changeLogPollInterval, minimumLookInterval: minimumChangeLogLookInterval,
            notifiesOwnWrites: { [weak streams] in wakeUp.state.withLock { $0.notifiesOwnWrites } || streams?.hasSubscribers == true })
        let fetched = try store.fetch(storeQuery(request), tracking: tracking)
        feed = fetched.feed
        result = LiveResult(index: fetched.index, limit: request.fetchLimit)
        records.removeAll()
        fetchedRequest = request
        recovery = Recovery()
        dropFilterLoad() // it reads into the slots of the index just replaced
        try applyFilter(filter)
        lastFetchSource = fetched.source
        appliedPosition = fetched.position
    }

    func storeQuery(_ request: ResultsRequest<Record>) -> StoreQuery {
        StoreQuery(tableName: tableName, predicate: request.predicate, sortDescriptors: request.sortDescriptors, sectionColumn: sectionNameKeyPath,
                   relatedSections: relatedSections)
    }

    // MARK: - Tracking

    /// Whether commits made elsewhere reach the result now. False before tracking starts and,
    /// on a server, while the connection changes arrive on is being made again: the result
    /// then holds what it last knew, and catches up with exact events once it is back.
    /// `onChangesAvailable` is called when this changes.
    public var isLive: Bool { feed?.isLive ?? false }

    /// Nil while commits made elsewhere wake the controller as they happen; otherwise how
    /// often it reads to find them, slower than a wake-up: on PostgreSQL behind a pooler in
    /// transaction mode (PgBouncer's, a hosted `-pooler` host), where LISTEN hears nothing,
    /// the change log is read at the heartbeat. `onChangesAvailable` is called when it changes.
    public var changesPollInterval: Duration? { feed?.pollInterval }

    /// Stops following commits and closes the feed's connections (the last sequence ended).
    func stopTracking() { feed = nil }

    /// Looks for commits of other connections now, without waiting for the poller, then
    /// processes every pending change.
    ///
    /// - Complexity: One look at the store's change log, then as `processPendingChanges()`.
    public func refresh() throws {
        feed?.lookNow()
        try processPendingChanges()
    }

    /// Applies the changes committed since the last call, delivering one batch per commit.
    ///
    /// Each commit is applied to the result in memory, from the keys of the rows it touched
    /// that the store read with it (and, while a filter is on, one query for their filter
    /// values): no refetch. Without a delegate the changes are dropped and the result stays
    /// as it was fetched.
    ///
    /// - Complexity: O(k log n) comparisons for a commit that touched k of n rows, plus the
    ///   moves of the rows a changed row passes in its section. O(n), as a fetch, only for a
    ///   commit that cannot be applied row by row: the store could not say what it changed,
    ///   or it split a section.
    public func processPendingChanges() throws {
        try applyPreparedFilter()
        guard let feed else { return }
        var changes = feed.takeChanges()[...]
        guard delegate != nil || streams.hasSubscribers else { return }
        // A sequence's consumer asks for one batch covering every commit since it last looked.
        if streams.hasSubscribers { changes = changes.mergedIntoOne()[...] }
        do {
            if recovery.needsRefetch { try refetch() }
            while let change = changes.popFirst() {
                switch change {
                case .rows(let commit):
                    try apply(commit)
                case let .refetch(touched, origin):
                    recovery.unreportedIDs.formUnion(touched)
                    try refetch(origin: origin)
                case .reset:
                    recovery.needsReset = true
                    try refetch()
                }
            }
        } catch {
            // Remember what the undelivered commits touched, to report it once a refetch works.
            recovery.needsRefetch = true
            for change in changes {
                switch change {
                case .rows(let commit): recovery.unreportedIDs.formUnion(commit.rows.map(\.id))
                case .refetch(let touched, _): recovery.unreportedIDs.formUnion(touched)
                case .reset: recovery.needsReset = true
                }
            }
            throw error
        }
    }
}

/// Reads the whole records of those of `ids` that still exist, by id: how a store decodes its
/// rows into a controller's `Record`.
package typealias RecordLoader<Record> = (_ ids: [RecordID]) throws -> [RecordID: Record]

/// Decodes one row the store already holds (`CommittedChange.records`) into a controller's
/// `Record`, as its `RecordLoader` would have read it.
package typealias RecordDecoder<Record> = (_ columns: RecordColumns) throws -> Record

/// A controller's `onChangesAvailable` and `notifiesOwnWrites`, shared with its feed, which asks
/// for them on its own thread at each commit.
private final class WakeUpSettings: Sendable {
    struct State {
        var onChangesAvailable: (@Sendable () -> Void)?
        var notifiesOwnWrites = true
    }
    let state = Mutex(State())
}
