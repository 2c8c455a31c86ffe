import Foundation
import GRDB
import LiveResults

/// The change feed of an SQLite table: this connection's commits through a transaction
/// observer and, when the table has a `ChangeLog`, other connections' commits read from the
/// log by a poller woken by inotify (with a timer as the safety net).
///
/// Stops (removes its observer and its poller) when it goes away.
final class SQLiteChangeFeed: ChangeFeed {
    private let database: any DatabaseWriter
    let tracker: ChangeTracker
    private var poller: ChangeLogPoller?

    /// A feed over `tracker`, which must already observe `database` (added in the same
    /// transaction that read the result, so no commit falls in between). With a change log
    /// and a positive `pollInterval`, other connections' commits are looked for.
    init(database: any DatabaseWriter, tracker: ChangeTracker, pollInterval: Duration, minimumLookInterval: Duration) {
        self.database = database
        self.tracker = tracker
        retune(pollInterval: pollInterval, minimumLookInterval: minimumLookInterval)
    }

    /// Replaces the poller with one at these intervals (none for a zero `pollInterval`).
    func retune(pollInterval: Duration, minimumLookInterval: Duration) {
        poller?.cancel()
        poller = nil
        if tracker.readsChangeLog, pollInterval > .zero {
            poller = ChangeLogPoller(database: database, tracker: tracker, interval: pollInterval, minimumLookInterval: minimumLookInterval)
        }
    }

    deinit {
        poller?.cancel()
        tracker.unregister()
        database.remove(transactionObserver: tracker)
    }

    func takeChanges() -> [TrackedChange] {
        tracker.takeChanges()
    }

    func lookNow() {
        database.writeWithoutTransaction { db in tracker.pollOtherConnections(db) }
    }
}
