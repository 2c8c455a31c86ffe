import Synchronization

/// The ids of the history entries one store wrote (`TeamStore.ownEntries`): a board names
/// the changes of other programs, and shows its own as its own. Kept to the latest
/// `HistoryEntry.retainedCount`.
public final class OwnEntries: Sendable {
    private let ids = Mutex<Set<Int64>>([])

    public init() {}

    /// Records an entry this store wrote.
    public func insert(_ id: Int64) {
        ids.withLock { ids in
            ids.insert(id)
            if ids.count > HistoryEntry.retainedCount, let oldest = ids.min() { ids.remove(oldest) }
        }
    }

    /// Whether this store wrote the entry.
    public func contains(_ id: Int64) -> Bool {
        ids.withLock { $0.contains(id) }
    }
}
