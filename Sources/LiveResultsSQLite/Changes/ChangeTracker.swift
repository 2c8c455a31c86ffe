import GRDB
import LiveResults
import Synchronization

/// Watches one table for committed changes and queues a change record per commit.
///
/// Commits of this connection arrive through the transaction observer. When the table has a
/// `ChangeLog`, commits of other connections and processes are read from it: `pollOtherConnections`
/// (run periodically on the writer's queue) notices them with `PRAGMA data_version`, and a
/// commit of ours that finds entries before its own reads those first. Every key is read on
/// the writer's queue, so the queue holds changes in the order they were read, and applying
/// them in that order ends at the database's latest state.
///
/// Through a relationship (`RelatedSections`), the related table is watched too, by the same
/// observer and, when the log is installed on it as well, through the same log: a related row
/// changed in place is a section change with no row read; one inserted or deleted reads the
/// rows whose foreign key names it (`RelatedRows`).
///
/// GRDB calls the observer methods on the writer's queue; the controller takes the queue
/// from its own thread.
final class ChangeTracker: TransactionObserver, @unchecked Sendable { // Its state is used only on the writer's queue; `queue` is behind a mutex.
    let query: KeyQuery
    private let notify: @Sendable () -> Void
    /// Whether `notify` is called for this connection's own commits too (`Tracking`).
    private let notifiesOwnWrites: @Sendable () -> Bool
    /// The rowids the open transaction's events named, in event order, repeats kept (a
    /// commit sorts them once: cheaper than a set's hashing at every event).
    private var touched: [RecordID] = []
    /// The rowids of the open transaction's updates that left a row as it was, one entry an
    /// update (`watchUnchangedUpdates`; without a change log only).
    var unchangedUpdates: [RecordID] = []
    private var rowIDsMayChange = false
    /// The number of row events on the table, and of entries this transaction wrote to the
    /// change log: more entries than events means the log knows rows the events missed.
    private var tableEventCount = 0
    private var ownLogEntryCount = 0
    /// The columns of the table's unique indexes (primary key aside).
    private let uniqueColumns: SQLNames
    /// Whether the table has unique indexes, whose REPLACE conflicts remove rows silently.
    private let hasUniqueIndexes: Bool
    /// Set when a statement of the open transaction may have removed rows by REPLACE.
    private var mayHaveReplaced = false
    /// The names under which the rowid can be updated: rowid, its aliases, and an INTEGER PRIMARY KEY column.
    private let rowIDColumns: SQLNames
    private let tableName: SQLNames
    private let queue = Mutex<[TrackedChange]>([])
    /// The last change log position whose changes are queued; nil when the table has no log.
    var logPosition: Int64? {
        didSet { if let logPosition { readPosition.store(logPosition, ordering: .releasing) } }
    }
    /// `logPosition`, readable from any thread: a poller compares it with the log's position
    /// before it bothers the writer.
    let readPosition = Atomic<Int64>(0)
    /// The log positions this connection's open transaction wrote.
    private var ownLogPositions: ClosedRange<Int64>?
    /// `PRAGMA data_version` at the last poll: it changes when another connection commits.
    var lastDataVersion: Int64?
    /// The keys read inside the open transaction just before its commit (`liveResultsWrite`),
    /// with the number of events seen then: the commit uses them instead of a read of its own
    /// when no event came after.
    private var preparedKeys: (ids: [RecordID], rows: [(id: RecordID, key: RowKey?)], events: Int)?
    /// How many commits of this connection had their keys read after the commit, in a read
    /// transaction of their own (for tests: `liveResultsWrite` reads them before).
    private(set) var keyReadsAfterCommit = 0
    /// The connection whose `liveResultsWrite`s reach this tracker (`OwnWrites`); nil until registered.
    var registeredConnection: ObjectIdentifier?
    /// Without a change log, the connection's table that the update trigger names each row an
    /// UPDATE left as it was in (`watchUnchangedUpdates`).
    var unchangedRowsTable: String?

    /// Through a relationship: the related table's name, the related rows known, whether the
    /// log records the related table, and the rowids of related rows the open transaction
    /// touched (all of them to be read again when rowids may have changed, or REPLACE removed
    /// some: an insert or an update of a rowid).
    private let relatedTableName: SQLNames?
    /// The related table's rowid names and key column: an update of one may move a related
    /// row to another rowid, which the update hook does not tell.
    private let relatedKeyColumns: SQLNames
    var relatedRows: RelatedRows?
    private(set) var relatedIsLogged = false
    private var touchedRelated: [Int64] = []
    private var relatedNeedsFullRead = false

    /// Starts watching the related table (`query.related`) from the related rows as they are
    /// in `db`'s snapshot (the fetch's); `logged`: the change log records it too.
    func trackRelatedRows(_ db: Database, logged: Bool) throws {
        relatedRows = try RelatedRows(db, query: query)
        relatedIsLogged = logged && logPosition != nil
    }

    init(query: KeyQuery, rowIDColumn: String?, uniqueColumns: Set<String>?, logPosition: Int64?, tracking: Tracking) {
        self.query = query
        self.uniqueColumns = SQLNames(uniqueColumns ?? [])
        self.hasUniqueIndexes = uniqueColumns != nil
        self.tableName = SQLNames([query.tableName])
        self.relatedTableName = query.related.map { SQLNames([$0.table]) }
        self.relatedKeyColumns = SQLNames(["rowid", "_rowid_", "oid"] + (query.related.map { [$0.key] } ?? []))
        self.rowIDColumns = SQLNames(["rowid", "_rowid_", "oid"] + (rowIDColumn.map { [$0] } ?? []))
        self.logPosition = logPosition
        self.notify = tracking.notify
        self.notifiesOwnWrites = tracking.notifiesOwnWrites
        readPosition.store(logPosition ?? 0, ordering: .releasing)
    }

    // MARK: Keys read before the commit (ChangeTracker+OwnWrites)

    deinit {
        unregister()
    }

    /// Reads the keys of the rows the open transaction changed, when its commit would read
    /// exactly those (no rowid changed, nothing the log knows better, no row count needed).
    func prepareCommit(_ db: Database) {
        preparedKeys = nil
        guard !touched.isEmpty, touchedRelated.isEmpty, !relatedNeedsFullRead, !rowIDsMayChange, ownLogEntryCount <= tableEventCount, !mayHaveReplaced || logPosition != nil else { return }
        let ids = Self.sortedDistinct(touched)
        guard let rows = try? query.fetchKeys(db, ids: ids) else { return }
        preparedKeys = (ids, rows, eventCount)
    }

    /// The row events of the open transaction so far, the log's included.
    private var eventCount: Int { tableEventCount + ownLogEntryCount }

    // MARK: Commits

    /// True when changes of other connections are tracked through a change log.
    var readsChangeLog: Bool { logPosition != nil }

    /// Removes and returns the changes committed since the last call, oldest first.
    func takeChanges() -> [TrackedChange] {
        queue.withLock { changes in
            defer { changes.removeAll() }
            return changes
        }
    }

    func enqueue(_ change: TrackedChange?) {
        guard let change else { return }
        queue.withLock { $0.append(change) }
        if !Self.isOwn(change) || notifiesOwnWrites() { notify() }
    }

    /// Whether a change is of this connection's own commit (a reset is nobody's: it wakes).
    private static func isOwn(_ change: TrackedChange) -> Bool {
        switch change {
        case .rows(let commit): commit.origin == .ownWrites
        case .refetch(_, let origin): origin == .ownWrites
        case .reset: false
        }
    }

    func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool {
        if case .insert(let table) = eventKind {
            if logPosition != nil, table == ChangeLog.tableName { return true }
            // The connection's own table of unchanged rows, which no statement of the program writes.
            if table == unchangedRowsTable { return true }
        }
        if let relatedTableName, relatedTableName.contains(eventKind.tableName) {
            switch eventKind {
            case .insert: relatedNeedsFullRead = true // REPLACE may remove rows unreported
            case .update(_, let columns): if columns.contains(where: relatedKeyColumns.contains) { relatedNeedsFullRead = true }
            case .delete: break
            }
            return true
        }
        guard tableName.contains(eventKind.tableName) else { return false }
        // The update hook reports only the new rowid: an UPDATE that may change rowids hides
        // where rows came from. Inserts and updates of unique columns may remove rows by REPLACE,
        // which the update hook does not report at all.
        switch eventKind {
        case .insert:
            if hasUniqueIndexes { mayHaveReplaced = true }
        case .update(_, let columns):
            // Asked at every statement's execution: no string or set made of the columns.
            for column in columns {
                if rowIDColumns.contains(column) { rowIDsMayChange = true }
                if uniqueColumns.contains(column) { mayHaveReplaced = true }
            }
        case .delete:
            break
        }
        return true
    }

    func databaseDidChange(with event: DatabaseEvent) {
        // Of the log and the unchanged rows, only inserts are observed: without a relationship,
        // an update or a delete is the table's, and its name (a string made at each call) is
        // not asked.
        if case .insert = event.kind {
            let table = event.tableName
            if table == ChangeLog.tableName {
                let position = event.rowID
                ownLogPositions = ownLogPositions.map { min($0.lowerBound, position)...max($0.upperBound, position) } ?? position...position
                ownLogEntryCount += 1
                return
            }
            if table == unchangedRowsTable {
                unchangedUpdates.append(event.rowID)
                return
            }
        }
        if let relatedTableName, relatedTableName.contains(event.tableName) {
            touchedRelated.append(event.rowID)
            if relatedIsLogged { tableEventCount += 1 } // the log has an entry for it too
        } else {
            touched.append(event.rowID)
            tableEventCount += 1
        }
    }

    func databaseDidCommit(_ db: Database) {
        var ids = Self.sortedDistinct(touched)
        let unchanged = Self.unchangedRows(touched: touched, unchanged: unchangedUpdates)
        // The events name every row whose data changed, unless rowids changed (events give
        // only the new one) or REPLACE removed rows (no event at all).
        var complete = !rowIDsMayChange
        var mayHaveReplaced = self.mayHaveReplaced
        // An entry per event, unless the log knows rows the events missed, or an UPDATE left a
        // row as it was (an event, and no entry).
        let entriesMatchEvents = ownLogEntryCount == tableEventCount
        let ownLogPositions = self.ownLogPositions
        let prepared = preparedKeys?.events == eventCount ? preparedKeys : nil
        let relatedIDs: [Int64]?? = touchedRelated.isEmpty && !relatedNeedsFullRead ? .none : .some(relatedNeedsFullRead ? nil : Self.sortedDistinct(touchedRelated))
        resetTransactionState()
        // Other connections' entries found before ours, through a relationship: read with ours.
        var others: (ids: Set<RecordID>, related: Set<Int64>)?
        if let position = logPosition, let own = ownLogPositions {
            guard own.lowerBound > position else {
                // Our entries came at or before what we had read: the log was dropped and made
                // again meanwhile, so what happened in between cannot be known.
                logPosition = own.upperBound
                resyncRelatedRows(db)
                enqueue(.reset)
                return
            }
            // Entries before ours come from other connections: they are queued first, as
            // their own batch; through a relationship, with ours as one change (their related
            // rows can only be read as ours left them).
            let before = own.lowerBound - 1
            if before > position, relatedRows != nil {
                guard let entries = try? loggedRowIDs(db, after: position, through: before) else {
                    logPosition = own.upperBound
                    resyncRelatedRows(db)
                    enqueue(.reset)
                    return
                }
                others = entries
            } else if before > position {
                logPosition = before
                enqueue(readLog(db, after: position, through: before))
            }
            // Our own entries name exactly the rows whose data changed: old rowids and rows
            // REPLACE removed, which the events miss, and not the rows an UPDATE left as they
            // were, which the events name (the log's update trigger skips them). When there are
            // as many entries as events and no REPLACE, they name the same rows.
            if !complete || !entriesMatchEvents || mayHaveReplaced {
                if let logged = try? ChangeLog.changedRowIDs(db, table: query.tableName, after: own.lowerBound - 1, through: own.upperBound) {
                    ids = logged.sorted()
                    complete = true
                }
            }
            mayHaveReplaced = false // The log's conflict triggers recorded any such row.
            logPosition = own.upperBound
        } else if logPosition != nil, complete, !mayHaveReplaced {
            // The log recorded nothing: every UPDATE left its rows as they were.
            ids = []
        }
        let usesPrepared = prepared.map { $0.ids == ids && !mayHaveReplaced } ?? false
        // Through a relationship, a read after the commit is one state of the database with
        // the related rows (`readRelatedChange`); keys read inside the transaction are that
        // already, when no other connection's entries come with them.
        if relatedRows != nil, others != nil || relatedIDs != nil || (logPosition != nil && !ids.isEmpty && !usesPrepared) {
            guard complete else {
                resyncRelatedRows(db)
                enqueue(.refetch(touched: Set(ids), origin: .ownWrites))
                return
            }
            let related: Set<Int64>? // nil: every related row
            switch relatedIDs {
            case .some(.none): related = nil
            case .some(.some(let touched)): related = Set(touched).union(others?.related ?? [])
            case .none: related = others?.related ?? []
            }
            keyReadsAfterCommit += 1
            do {
                let change = try readRelatedChange(db, ids: Set(ids).union(others?.ids ?? []), relatedIDs: related, origin: others == nil ? .ownWrites : .elsewhere,
                                                   countingMatches: mayHaveReplaced)
                enqueue(others == nil ? Self.marking(change, unchanged: unchanged) : change)
            } catch {
                resyncRelatedRows(db)
                enqueue(.refetch(touched: Set(ids).union(others?.ids ?? []), origin: others == nil ? .ownWrites : .elsewhere))
            }
            return
        }
        guard !ids.isEmpty else { return }
        guard complete else {
            enqueue(.refetch(touched: Set(ids), origin: .ownWrites))
            return
        }
        if usesPrepared, let prepared {
            // Read inside the transaction, after its last statement: what the commit made.
            enqueue(Self.marking(.rows(CommittedChange(rows: prepared.rows, position: logPosition, origin: .ownWrites)), unchanged: unchanged))
        } else {
            keyReadsAfterCommit += 1
            enqueue(Self.marking(readKeys(db, ids: ids, origin: .ownWrites, countingMatches: mayHaveReplaced), unchanged: unchanged))
        }
    }

    func databaseDidRollback(_ db: Database) {
        resetTransactionState()
    }

    private func resetTransactionState() {
        touched.removeAll(keepingCapacity: true)
        unchangedUpdates.removeAll(keepingCapacity: true)
        rowIDsMayChange = false
        mayHaveReplaced = false
        ownLogPositions = nil
        tableEventCount = 0
        ownLogEntryCount = 0
        preparedKeys = nil
        touchedRelated.removeAll(keepingCapacity: true)
        relatedNeedsFullRead = false
    }

    /// Reads every related row again, after a reset or a failure (the refetch that follows
    /// catches the result up with them).
    func resyncRelatedRows(_ db: Database) {
        guard relatedRows != nil else { return }
        relatedRows = try? RelatedRows(db, query: query)
    }
}
