import GRDB
import Synchronization

/// The rows one commit touched, each with its key after the commit (nil: gone from the result).
///
/// This is the change record of the architecture: commits of this process produce it now,
/// and the same form can describe commits read from elsewhere.
struct CommittedChange: Sendable {
    var rows: [(id: RecordID, key: RowKey?)]
    /// The change log position the keys were read at (at least); nil without a log.
    var position: Int64?
}

/// What the tracker hands to its controller.
enum TrackedChange: Sendable {
    /// A commit, described row by row.
    case rows(CommittedChange)
    /// Something changed, but the tracker could not say what; the controller must refetch.
    case unknown
}

extension RowKey: @unchecked Sendable {} // DatabaseValue holds only values (Int64, Double, String, Data).

/// Watches one table for committed changes and queues a change record per commit.
///
/// Commits of this connection arrive through the transaction observer. When the table has a
/// `ChangeLog`, commits of other connections and processes are read from it: `pollOtherConnections`
/// (run periodically on the writer's queue) notices them with `PRAGMA data_version`, and a
/// commit of ours that finds entries before its own reads those first. Every key is read on
/// the writer's queue, so the queue holds changes in the order they were read, and applying
/// them in that order ends at the database's latest state.
///
/// GRDB calls the observer methods on the writer's queue; the controller takes the queue
/// from its own thread.
final class ChangeTracker: TransactionObserver, @unchecked Sendable { // Its state is used only on the writer's queue; `queue` is behind a mutex.
    private let query: KeyQuery
    private let notify: @Sendable () -> Void
    private var touched: Set<RecordID> = []
    private var rowIDsMayChange = false
    /// The names under which the rowid can be updated: rowid, its aliases, and an INTEGER PRIMARY KEY column.
    private let rowIDColumns: Set<String>
    private let lowercasedTableName: String
    private let queue = Mutex<[TrackedChange]>([])
    /// The last change log position whose changes are queued; nil when the table has no log.
    private var logPosition: Int64? {
        didSet { if let logPosition { readPosition.store(logPosition, ordering: .releasing) } }
    }
    /// `logPosition`, readable from any thread: a poller compares it with the log's position
    /// before it bothers the writer.
    let readPosition = Atomic<Int64>(0)
    /// The log positions this connection's open transaction wrote.
    private var ownLogPositions: ClosedRange<Int64>?
    /// `PRAGMA data_version` at the last poll: it changes when another connection commits.
    private var lastDataVersion: Int64?

    init(query: KeyQuery, rowIDColumn: String?, logPosition: Int64?, notify: @escaping @Sendable () -> Void) {
        self.query = query
        self.lowercasedTableName = query.tableName.lowercased()
        self.rowIDColumns = Set(["rowid", "_rowid_", "oid"] + (rowIDColumn.map { [$0.lowercased()] } ?? []))
        self.logPosition = logPosition
        self.notify = notify
        readPosition.store(logPosition ?? 0, ordering: .releasing)
    }

    /// True when changes of other connections are tracked through a change log.
    var readsChangeLog: Bool { logPosition != nil }

    /// Removes and returns the changes committed since the last call, oldest first.
    func takeChanges() -> [TrackedChange] {
        queue.withLock { changes in
            defer { changes.removeAll() }
            return changes
        }
    }

    private func enqueue(_ change: TrackedChange) {
        queue.withLock { $0.append(change) }
        notify()
    }

    func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool {
        if logPosition != nil, case .insert(let table) = eventKind, table == ChangeLog.tableName { return true }
        guard eventKind.tableName == query.tableName || eventKind.tableName.lowercased() == lowercasedTableName else { return false }
        // The update hook reports only the new rowid: an UPDATE that may change rowids
        // hides where rows came from, so such a commit is described as unknown.
        if case .update(_, let columns) = eventKind {
            let names = Set(columns.map { $0.lowercased() })
            if !names.isDisjoint(with: rowIDColumns) { rowIDsMayChange = true }
        }
        return true
    }

    func databaseDidChange(with event: DatabaseEvent) {
        if event.tableName == ChangeLog.tableName {
            let position = event.rowID
            ownLogPositions = ownLogPositions.map { min($0.lowerBound, position)...max($0.upperBound, position) } ?? position...position
        } else {
            touched.insert(event.rowID)
        }
    }

    func databaseDidCommit(_ db: Database) {
        var ids = touched
        var unknown = rowIDsMayChange
        touched.removeAll()
        rowIDsMayChange = false
        if let position = logPosition, let own = ownLogPositions {
            ownLogPositions = nil
            // Entries before ours come from other connections: they are queued first, as
            // their own batch.
            let before = own.lowerBound - 1
            if before > position {
                logPosition = before
                if let logged = try? ChangeLog.changedRowIDs(db, table: query.tableName, after: position, through: before) {
                    if !logged.isEmpty { enqueue(readKeys(db, ids: logged)) }
                } else {
                    enqueue(.unknown)
                }
            }
            // A rowid-changing update of ours is described by our own entries (old and new ids).
            if unknown, let logged = try? ChangeLog.changedRowIDs(db, table: query.tableName, after: own.lowerBound - 1, through: own.upperBound) {
                ids.formUnion(logged)
                unknown = false
            }
            logPosition = own.upperBound
        }
        guard !ids.isEmpty || unknown else { return }
        enqueue(unknown ? .unknown : readKeys(db, ids: ids))
    }

    func databaseDidRollback(_ db: Database) {
        touched.removeAll()
        rowIDsMayChange = false
        ownLogPositions = nil
    }

    /// Queues the commits of other connections found in the change log. Cheap when there
    /// are none: one `PRAGMA data_version`. Runs on the writer's queue.
    func pollOtherConnections(_ db: Database) {
        guard let position = logPosition else { return }
        do {
            let version = try Int64.fetchOne(db.cachedStatement(sql: "PRAGMA data_version"))
            guard version != lastDataVersion else { return }
            lastDataVersion = version
            let end = try ChangeLog.position(db)
            guard end > position else { return }
            logPosition = end
            guard let ids = try ChangeLog.changedRowIDs(db, table: query.tableName, after: position, through: end) else {
                enqueue(.unknown) // The entries were pruned: only a refetch can tell.
                return
            }
            if !ids.isEmpty { enqueue(readKeys(db, ids: ids)) }
        } catch {
            enqueue(.unknown)
        }
    }

    private func readKeys(_ db: Database, ids: Set<RecordID>) -> TrackedChange {
        let sorted = ids.sorted()
        do {
            let keys = try query.fetchKeys(db, ids: sorted)
            return .rows(CommittedChange(rows: sorted.map { ($0, keys[$0]) }, position: logPosition))
        } catch {
            return .unknown
        }
    }
}
