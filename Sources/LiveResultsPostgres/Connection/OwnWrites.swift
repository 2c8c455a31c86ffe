import Synchronization

/// How the writes of a `PostgresWriter` reach the controllers of its reader before they are
/// notified.
///
/// A controller learns of other connections' commits from the change log, after they commit.
/// A write through the reader the controller reads with can do better: the rows its statement
/// returned say what it changed, so the writer hands them to the change feeds of that reader's
/// controllers itself, and the change is queued by the time the write returns. The writer's
/// next `processPendingChanges()` then delivers it with no read of its own.
///
/// Each feed registers under the table it reads (and a related table), in a registry of its
/// `PostgresReader`, and a write asks for the listeners under its table. (On SQLite the
/// connection itself reaches its trackers: `ChangeTracker+BeforeCommit` in LiveResultsSQLite.)
///
/// Listeners are held weakly: a feed whose controller refetched or went away drops out by
/// itself. Safe to use from any thread.
final class OwnWrites<Key: Hashable & Sendable, Listener: AnyObject>: Sendable {
    private struct Weak: @unchecked Sendable { // Read and written only under the lock.
        weak var listener: Listener?
    }

    private let listenersByKey = Mutex<[Key: [Weak]]>([:])

    init() {}

    /// Lets the writes under `key` reach `listener`.
    func add(_ listener: Listener, under key: Key) {
        listenersByKey.withLock { listeners in
            listeners[key, default: []].removeAll { $0.listener == nil }
            listeners[key, default: []].append(Weak(listener: listener))
        }
    }

    /// Undoes `add(_:under:)`: the writes under `key` no longer reach `listener`.
    func remove(_ listener: Listener, under key: Key) {
        listenersByKey.withLock { listeners in
            let kept = (listeners[key] ?? []).filter { $0.listener != nil && $0.listener !== listener }
            listeners[key] = kept.isEmpty ? nil : kept
        }
    }

    /// The live listeners of the writes under `key`, in the order they were added.
    func listeners(under key: Key) -> [Listener] {
        listenersByKey.withLock { $0[key]?.compactMap(\.listener) ?? [] }
    }
}
