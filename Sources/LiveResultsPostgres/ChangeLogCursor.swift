import LiveResults

/// One entry of the change log: a row of `table` that transaction `xid` inserted, updated or
/// deleted.
public struct ChangeLogEntry: Hashable, Sendable {
    /// The transaction that wrote the entry (a 64-bit `xid8`).
    public var xid: UInt64
    /// The entry's place in the log's sequence.
    public var position: Int64
    /// The table the row is in, as named to `PostgresChangeLog.install`.
    public var tableName: String
    /// The id of the row that changed (for an update that changed the id: one entry each);
    /// nil when every row may have (`TRUNCATE`).
    public var changedID: RecordID?

    /// An entry with these fields (as read from the log, or to test the cursor's rule).
    public init(xid: UInt64, position: Int64, tableName: String, changedID: RecordID?) {
        self.xid = xid
        self.position = position
        self.tableName = tableName
        self.changedID = changedID
    }
}

/// Where a reader of the change log stands: the last entry it read, as (xid, position).
///
/// Positions come from a sequence, so a transaction that took position 1 and commits after
/// one that took position 2 would be skipped by a reader that remembers "read up to 2".
/// Transaction ids order entries instead: every transaction older than a snapshot's `xmin`
/// (the oldest transaction still running) has finished, and no entry with such an xid can
/// ever appear again. So a reader reads, in (xid, position) order, the entries after its
/// cursor whose xid is below the current `xmin`: entries of running transactions (and of
/// anything younger than them) wait; every entry is read exactly once, whatever the order of
/// commits. (Entries of transactions that rolled back are never visible.) The price: one
/// long transaction anywhere in the cluster holds back every reader until it ends.
public struct ChangeLogCursor: Hashable, Sendable, Comparable {
    /// The xid of the last entry read.
    public var xid: UInt64
    /// The position of the last entry read.
    public var position: Int64

    /// A cursor just after the entry (xid, position); (0, 0) is before every entry.
    public init(xid: UInt64, position: Int64) {
        self.xid = xid
        self.position = position
    }

    /// The cursor of a reader whose result comes from a snapshot with this `xmin`: it reads
    /// every entry of that transaction and younger ones. Transactions between the snapshot's
    /// xmin and xmax that it already saw are read again, which is harmless: a reader reads
    /// the rows' current values.
    public static func start(snapshotXmin xmin: UInt64) -> ChangeLogCursor {
        // Positions start at 1: (xmin, 0) is before every entry of xmin.
        ChangeLogCursor(xid: xmin, position: 0)
    }

    /// Compares (xid, position) as a pair.
    public static func < (a: ChangeLogCursor, b: ChangeLogCursor) -> Bool {
        (a.xid, a.position) < (b.xid, b.position)
    }

    /// Whether a reader at this cursor reads `entry` when the oldest running transaction is `xmin`.
    public func reads(_ entry: ChangeLogEntry, xmin: UInt64) -> Bool {
        entry.xid < xmin && self < ChangeLogCursor(xid: entry.xid, position: entry.position)
    }

    /// Of `entries` (any rows of the log, in any order), those a reader at this cursor reads
    /// now that the oldest running transaction is `xmin`, in (xid, position) order, and the
    /// cursor after them.
    ///
    /// Every entry below `xmin` has been read then, so the cursor also moves up to just
    /// before `xmin`: the next read starts there even when nothing was read.
    public func advance(over entries: [ChangeLogEntry], xmin: UInt64) -> (read: [ChangeLogEntry], cursor: ChangeLogCursor) {
        let read = entries.filter { reads($0, xmin: xmin) }.sorted {
            ($0.xid, $0.position) < ($1.xid, $1.position)
        }
        var cursor = self
        if let last = read.last { cursor = ChangeLogCursor(xid: last.xid, position: last.position) }
        if xmin > 0 { cursor = max(cursor, ChangeLogCursor(xid: xmin - 1, position: .max)) }
        return (read, cursor)
    }
}
