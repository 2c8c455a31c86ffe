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
    private let queue = Mutex<[TrackedChange]>([])

    init(query: KeyQuery, notify: @escaping @Sendable () -> Void) {
        self.query = query
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
        eventKind.tableName.lowercased() == query.tableName.lowercased()
    }

    func databaseDidChange(with event: DatabaseEvent) {
        touched.insert(event.rowID)
    }

    func databaseDidCommit(_ db: Database) {
        guard !touched.isEmpty else { return }
        let ids = touched.sorted()
        touched.removeAll()
        let change: TrackedChange
        do {
            let keys = try query.fetchKeys(db, ids: ids)
            change = .rows(CommittedChange(rows: ids.map { ($0, keys[$0]) }))
        } catch {
            change = .unknown
        }
        queue.withLock { $0.append(change) }
        notify()
    }

    func databaseDidRollback(_ db: Database) {
        touched.removeAll()
    }
}
