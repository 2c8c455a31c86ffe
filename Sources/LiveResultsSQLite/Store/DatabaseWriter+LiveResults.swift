import GRDB
import LiveResults

extension DatabaseWriter {
    /// Runs `updates` in a transaction and commits it, as `write(_:)` does, and lets the results
    /// controllers tracking this database read the changed rows' keys inside the transaction,
    /// just before it commits, instead of in a read transaction of their own right after it.
    ///
    /// The events are exactly those of a plain `write(_:)`, which stays fine to use: this only
    /// saves each commit a read transaction (two locks on the write-ahead log's index, and
    /// SQLite's checks at the start of a read), a visible share of a one-row write. Commits of
    /// other connections and processes are seen through the change log as always. (The
    /// controllers of this connection are found through `OwnWrites`.)
    public func liveResultsWrite<T>(_ updates: (Database) throws -> T) throws -> T {
        try write { db in
            let value = try updates(db)
            ChangeTracker.prepareCommit(of: db)
            return value
        }
    }
}
