import Foundation
import GRDB

/// Where a controller learns of commits: the seam between a store and the in-memory result.
///
/// A store's feed queues one `TrackedChange` per commit it learns of (its own connection's,
/// and other connections' where the store can see them), calls its wake-up when something
/// waits, and hands the queue over when the controller asks, on the controller's thread.
package protocol ChangeFeed: AnyObject {
    /// Removes and returns the changes committed since the last call, oldest first.
    func takeChanges() -> [TrackedChange]
    /// Looks for commits of other connections now, instead of at the next wake-up.
    func lookNow()
    /// Whether commits of other connections reach the feed now: false while the connection
    /// it hears them on is being made again. A change of it wakes the controller.
    var isLive: Bool { get }
    /// Nil when commits of other connections wake the feed as they happen; otherwise the
    /// interval at which the feed reads to find them, which is all it can do where wake-ups
    /// never come (PostgreSQL behind a transaction-mode pooler, which drops notifications).
    /// A change of it wakes the controller.
    var pollInterval: Duration? { get }
}

extension ChangeFeed {
    /// A feed with no connection to lose (SQLite's: the file is always there) is always live.
    package var isLive: Bool { true }
    /// A feed is woken by commits unless it says otherwise.
    package var pollInterval: Duration? { nil }
}

/// The rows one commit touched, each with its key after the commit (nil: gone from the result).
///
/// This is the change record of the architecture: commits of this process produce it, and so
/// do commits read from a change log, SQLite's or PostgreSQL's.
package struct CommittedChange: Sendable {
    package var rows: [(id: RecordID, key: RowKey?)]
    /// The change log position the keys were read at (at least); nil without a log.
    package var position: Int64?
    /// How many rows matched the request right after the commit, when the commit may have
    /// removed rows nobody reports (REPLACE conflict resolution on a table without a change
    /// log); nil when every changed row is in `rows`.
    package var expectedCount: Int?

    package init(rows: [(id: RecordID, key: RowKey?)], position: Int64? = nil, expectedCount: Int? = nil) {
        self.rows = rows
        self.position = position
        self.expectedCount = expectedCount
    }
}

/// What a change feed hands to its controller.
package enum TrackedChange: Sendable {
    /// A commit, described row by row.
    case rows(CommittedChange)
    /// The keys after a commit are unknown, but every row whose data changed is among
    /// `touched` (a rowid changed, or its keys could not be read): refetch, and report those.
    case refetch(touched: Set<RecordID>)
    /// Nothing is known of what changed (the change log went back, or was pruned without a
    /// summary): refetch, and tell the delegate to reload.
    case reset
}

