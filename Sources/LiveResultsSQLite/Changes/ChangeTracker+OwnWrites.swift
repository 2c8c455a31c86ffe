import GRDB
import LiveResults

// How `liveResultsWrite` reaches the trackers of its connection, to read their keys inside the
// transaction, just before its commit.

extension ChangeTracker {
    /// The trackers observing each connection (by its `Database`), which `liveResultsWrite`
    /// on that connection reaches before its commit. Process-wide, because GRDB's connection
    /// keeps nothing of ours: the one way it reaches its observers inside a transaction
    /// (`notifyChanges(in:)`, through a temporary table) made the tap measurably slower
    /// (docs/BENCHMARKS.md, "The trackers' registry").
    /// Of any listener, the registry's one specialised form across the module border.
    static let ownWrites = OwnWrites<ObjectIdentifier, AnyObject>()

    /// Lets `liveResultsWrite` on `db`'s connection reach this tracker, which observes it.
    func register(on db: Database) {
        let connection = ObjectIdentifier(db)
        registeredConnection = connection
        Self.ownWrites.add(self, under: connection)
    }

    /// Undoes `register(on:)`: the tracker no longer observes its connection.
    func unregister() {
        guard let connection = registeredConnection else { return }
        registeredConnection = nil
        Self.ownWrites.remove(self, under: connection)
    }

    /// Has every tracker observing `db`'s connection read, inside the open transaction, the
    /// keys its commit is about to need. Runs on the writer's queue, last in the transaction.
    static func prepareCommit(of db: Database) {
        for case let tracker as ChangeTracker in ownWrites.listeners(under: ObjectIdentifier(db)) { tracker.prepareCommit(db) }
    }
}
