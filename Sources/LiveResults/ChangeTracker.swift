import GRDB
import Synchronization

/// The rows one commit touched, each with its key after the commit (nil: gone from the result).
///
/// This is the change record of the architecture: commits of this process produce it now,
/// and the same form can describe commits read from elsewhere.
struct CommittedChange: Sendable {
    var rows: [(id: RecordID, key: RowKey?)]
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
/// GRDB calls the observer methods on the writer's queue; the controller takes the queue
/// from its own thread.
final class ChangeTracker: TransactionObserver, @unchecked Sendable { // `touched` is only used on the writer's queue; `queue` is behind a mutex.
    private let query: KeyQuery
    private let notify: @Sendable () -> Void
    private var touched: Set<RecordID> = []
    private var rowIDsMayChange = false
    /// The names under which the rowid can be updated: rowid, its aliases, and an INTEGER PRIMARY KEY column.
    private let rowIDColumns: Set<String>
    private let lowercasedTableName: String
    private let queue = Mutex<[TrackedChange]>([])

    init(query: KeyQuery, rowIDColumn: String?, notify: @escaping @Sendable () -> Void) {
        self.query = query
        self.lowercasedTableName = query.tableName.lowercased()
        self.rowIDColumns = Set(["rowid", "_rowid_", "oid"] + (rowIDColumn.map { [$0.lowercased()] } ?? []))
        self.notify = notify
    }

    /// Removes and returns the changes committed since the last call, oldest first.
    func takeChanges() -> [TrackedChange] {
        queue.withLock { changes in
            defer { changes.removeAll() }
            return changes
        }
    }

    func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool {
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
        touched.insert(event.rowID)
    }

    func databaseDidCommit(_ db: Database) {
        guard !touched.isEmpty else { return }
        let ids = touched.sorted()
        touched.removeAll()
        let change: TrackedChange
        if rowIDsMayChange {
            rowIDsMayChange = false
            change = .unknown
        } else {
            do {
                let keys = try query.fetchKeys(db, ids: ids)
                change = .rows(CommittedChange(rows: ids.map { ($0, keys[$0]) }))
            } catch {
                change = .unknown
            }
        }
        queue.withLock { $0.append(change) }
        notify()
    }

    func databaseDidRollback(_ db: Database) {
        touched.removeAll()
        rowIDsMayChange = false
    }
}
