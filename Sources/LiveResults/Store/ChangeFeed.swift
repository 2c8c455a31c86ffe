import Foundation

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
    /// Looks for commits of other connections at these intervals from now on (the
    /// controller's `changeLogPollInterval` and `minimumChangeLogLookInterval`, set after
    /// its fetch).
    func retune(pollInterval: Duration, minimumLookInterval: Duration)
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
    /// Through a relationship (`StoreQuery.relatedSections`): the related rows the commit
    /// inserted or changed (with their new title and order) or deleted (nil), by key. The
    /// rows whose membership a related row's insert or delete changed (an inner join) are in
    /// `rows`: the store reads the rows whose foreign key names it. A related row changed in
    /// place costs no row read.
    package var sections: [(id: ColumnValue, row: SectionRow?)]
    /// The ids of `rows` whose values the commit did not change: read only because their
    /// related row appeared or went, or written with the values they had (an UPDATE that sets
    /// a column to what it holds, through a way the change log cannot skip). Such a row is
    /// reported only when its key differs from the one the result holds: it came in, left,
    /// or changed place or section (rule 6).
    package var unchangedRows: Set<RecordID> = []
    /// The change log position the keys were read at (at least); nil without a log.
    package var position: Int64?
    /// Whether the connection's own writes made the commit, or another connection.
    package var origin: ChangeOrigin
    /// A test of the commit against the result before it is applied, when the store cannot
    /// be sure `rows` names every row the commit removed; nil when it can.
    package var check: (any CommitCheck)?
    /// Whole rows of `rows` as the commit left them, where the store has them already (a
    /// write's answer): the controller keeps them decoded (`RecordDecoder`) instead of reading
    /// them again when they are drawn. Empty when the store has none.
    package var records: [RecordID: RecordColumns] = [:]
    /// What the writers of the commits said of themselves, one note a commit, when each
    /// said one (`ChangeBatch.notes`); nil otherwise.
    package var notes: [String]?

    package init(rows: [(id: RecordID, key: RowKey?)], sections: [(id: ColumnValue, row: SectionRow?)] = [], position: Int64? = nil,
                 origin: ChangeOrigin = .elsewhere, check: (any CommitCheck)? = nil) {
        self.rows = rows
        self.sections = sections
        self.position = position
        self.origin = origin
        self.check = check
    }
}

/// A row's columns by name, each value as the store reads it for a record: what a store's
/// `RecordDecoder` makes a controller's record of.
package typealias RecordColumns = [String: ColumnValue]

/// A test a store attaches to a commit whose rows may not name every row it removed: the
/// controller runs it against its result before applying the commit, and fetches again and
/// compares when it fails.
package protocol CommitCheck: Sendable {
    /// Whether `rows` (the commit's rows and their keys after it) account for the result after
    /// the commit, given the result before it: `count` rows, `contains` saying which ids.
    func holds(for rows: [(id: RecordID, key: RowKey?)], count: Int, contains: (RecordID) -> Bool) -> Bool
}

/// What a change feed hands to its controller.
package enum TrackedChange: Sendable {
    /// A commit, described row by row.
    case rows(CommittedChange)
    /// The keys after a commit are unknown, but every row whose data changed is among
    /// `touched` (a rowid changed, or its keys could not be read): refetch, and report those,
    /// as a batch of `origin`.
    case refetch(touched: Set<RecordID>, origin: ChangeOrigin = .elsewhere)
    /// Nothing is known of what changed (the change log went back, or was pruned without a
    /// summary): refetch, and tell the delegate to reload.
    case reset
}

