import Synchronization

/// How a connection's own writes reach its controllers before the commit, on every store.
///
/// A controller learns of other connections' commits from the change log, after they commit.
/// A write through the connection the controller reads with can do better: it knows what it
/// changes, so it tells the change feeds of that connection's controllers itself, and the
/// change is queued by the time the write returns. The writer's next
/// `processPendingChanges()` then delivers it with no read of its own.
///
/// Each feed registers under a key that names what its writes go through, and a write asks
/// for the listeners under its key:
/// - SQLite: the connection (GRDB's `Database`). `liveResultsWrite` has the trackers of its
///   connection read the changed rows' keys inside the transaction, just before it commits.
///   This registry is process-wide, because GRDB's connection keeps nothing of ours.
/// - PostgreSQL: the table, in a registry of the `PostgresReader` to which a `PostgresWriter` hands
///   the feeds the rows its statement returned.
///
/// Listeners are held weakly: a feed whose controller refetched or went away drops out by
/// itself. Safe to use from any thread.
package final class OwnWrites<Key: Hashable & Sendable, Listener: AnyObject>: Sendable {
    private struct Weak: @unchecked Sendable { // Read and written only under the lock.
        weak var listener: Listener?
    }

    private let listenersByKey = Mutex<[Key: [Weak]]>([:])

    package init() {}

    /// Lets the writes under `key` reach `listener`.
    package func add(_ listener: Listener, under key: Key) {
        listenersByKey.withLock { listeners in
            listeners[key, default: []].removeAll { $0.listener == nil }
            listeners[key, default: []].append(Weak(listener: listener))
        }
    }

    /// Undoes `add(_:under:)`: the writes under `key` no longer reach `listener`.
    package func remove(_ listener: Listener, under key: Key) {
        listenersByKey.withLock { listeners in
            let kept = (listeners[key] ?? []).filter { $0.listener != nil && $0.listener !== listener }
            listeners[key] = kept.isEmpty ? nil : kept
        }
    }

    /// The live listeners of the writes under `key`, in the order they were added.
    ///
    /// Specialised here for SQLite's registry (connections, any listener): its store asks at
    /// every commit from another module, where this generic method would run unspecialised
    /// (its dictionary and weak references through witness tables).
    @_specialize(exported: true, where Key == ObjectIdentifier, Listener == AnyObject)
    package func listeners(under key: Key) -> [Listener] {
        listenersByKey.withLock { $0[key]?.compactMap(\.listener) ?? [] }
    }
}
