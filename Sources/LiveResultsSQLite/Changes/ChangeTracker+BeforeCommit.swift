import GRDB
import LiveResults

// A commit made through `liveResultsWrite` has the trackers observing its connection read the
// changed rows' keys inside the transaction, after its last statement, instead of in a read
// transaction of their own right after the commit.
//
// The connection itself reaches them, so that nothing outside it keeps which trackers observe
// which connection: GRDB calls its observers inside a transaction only through
// `notifyChanges(in:)`, which names a table, so each connection a tracker observes gets a
// temporary table of that name (nothing is ever written to it; it is the connection's own,
// the file is not changed). `liveResultsWrite` notifies it, and GRDB calls every tracker that
// observes it, and them alone, on the writer's queue.

extension ChangeTracker {
    /// The temporary table whose notification is the moment before a commit.
    static let beforeCommitTable = "liveresults_before_commit"

    /// Lets `liveResultsWrite` on `db`'s connection reach this tracker, which observes it.
    /// Leaves things as they were when the connection refuses (a read-only one): the commits'
    /// keys are then read after them, as for a plain `write`.
    func listenBeforeCommits(on db: Database) {
        connection = db
        try? db.execute(sql: "CREATE TEMP TABLE IF NOT EXISTS \(Self.beforeCommitTable.quotedDatabaseIdentifier)(unused)")
    }

    /// Has every tracker observing `db`'s connection read, inside the open transaction, the
    /// keys its commit is about to need. Runs on the writer's queue, last in the transaction;
    /// does nothing on a connection no tracker observes.
    static func prepareCommit(of db: Database) {
        try? db.notifyChanges(in: Table(beforeCommitTable))
    }

    /// GRDB's call for `notifyChanges(in:)` (see `prepareCommit(of:)`).
    func databaseDidChange() {
        guard let connection else { return }
        prepareCommit(connection)
    }
}
