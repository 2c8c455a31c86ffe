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

/// Where a reader of the change log stands: every entry up to `position` has been read,
/// except the entries of the transactions that were still running at the last read.
///
/// Positions come from a sequence, so transactions commit out of position order: A takes
/// position 1 and stays open, B takes position 2 and commits; a reader that only remembered
/// "read up to 2" would never read 1. A read's snapshot says which transactions were still
/// running: their entries, whatever their positions, come later, so the cursor keeps them.
/// Those are the snapshot's `pg_snapshot_xip` *and* every transaction from its `xmax` on:
/// PostgreSQL's xmax is one past the newest transaction that had finished, not the next id
/// to be given, so a transaction with a newer id may be running and is not listed (A gets
/// xid 10, B xid 11; B takes position 1, A position 2 and commits: a read then has xmax 11
/// and no running transaction, yet B's entry 1 is still to come). Every other entry at or
/// below the highest position read was visible to that read (a transaction that had not
/// started then takes higher positions), so it was read. Each entry is read exactly once, as
/// soon as its transaction commits: no reader waits for a long transaction elsewhere to end.
/// (Entries of transactions that rolled back are never visible.)
public struct ChangeLogCursor: Hashable, Sendable {
    /// Every entry at or below it has been read, but those of `inProgress`.
    public var position: Int64
    /// The transactions listed as running at the last read, in order.
    public var inProgress: [UInt64]
    /// Transactions from this id on had not committed at the last read (its snapshot's
    /// xmax); `UInt64.max`: none but `inProgress`.
    public var unfinishedFrom: UInt64

    /// A cursor after `position`, waiting for the entries of `inProgress` and of the
    /// transactions from `unfinishedFrom` on.
    public init(position: Int64, inProgress: [UInt64] = [], unfinishedFrom: UInt64 = .max) {
        self.position = position
        self.inProgress = inProgress.sorted()
        self.unfinishedFrom = unfinishedFrom
    }

    /// Whether a read at this cursor takes `entry`, one of the entries its snapshot sees.
    public func reads(_ entry: ChangeLogEntry) -> Bool {
        entry.position > position || inProgress.contains(entry.xid) || entry.xid >= unfinishedFrom
    }

    /// Of `visible` (the log's entries a read's snapshot sees, in any order), those a reader at
    /// this cursor reads, in position order, and the cursor after that read, taken in `snapshot`.
    public func advance(over visible: [ChangeLogEntry], snapshot: ChangeLogSnapshot) -> (read: [ChangeLogEntry], cursor: ChangeLogCursor) {
        let read = visible.filter(reads).sorted { $0.position < $1.position }
        return (read, after(read.last?.position, snapshot: snapshot))
    }

    /// The cursor after a read in `snapshot` whose highest position was `lastPosition` (nil:
    /// it read no entry).
    public func after(_ lastPosition: Int64?, snapshot: ChangeLogSnapshot) -> ChangeLogCursor {
        ChangeLogCursor(position: max(position, lastPosition ?? position), inProgress: snapshot.running,
                        unfinishedFrom: snapshot.unfinishedFrom)
    }

    /// Whether every entry of transaction `xid` has been read (or never will be: it rolled
    /// back): the last read's snapshot saw it finished.
    public func hasRead(transaction xid: UInt64) -> Bool {
        ChangeLogSnapshot(running: inProgress, unfinishedFrom: unfinishedFrom).hasFinished(xid)
    }

    /// Whether pruning may have deleted an entry this cursor has not read: one at or below
    /// the pruned position after ours, or one of a transaction we wait for that is as old as
    /// the newest transaction pruned.
    public func mayHaveMissedEntries(prunedThrough mark: PrunedMark) -> Bool {
        position < mark.position || inProgress.contains { $0 <= mark.xid } || unfinishedFrom <= mark.xid
    }
}

/// What a read's snapshot says of the transactions that had not committed when it was taken.
public struct ChangeLogSnapshot: Hashable, Sendable {
    /// The transactions it lists as running (`pg_snapshot_xip`).
    public var running: [UInt64]
    /// Transactions from this id on had not committed either (`pg_snapshot_xmax`).
    public var unfinishedFrom: UInt64

    /// A snapshot with these fields.
    public init(running: [UInt64] = [], unfinishedFrom: UInt64 = .max) {
        self.running = running
        self.unfinishedFrom = unfinishedFrom
    }

    /// Whether transaction `xid` had finished (committed or rolled back) when it was taken:
    /// older than `unfinishedFrom` and not running.
    public func hasFinished(_ xid: UInt64) -> Bool {
        xid < unfinishedFrom && !running.contains(xid)
    }

    /// The snapshot of `pg_snapshot`'s text form, `xmin:xmax:xip,xip,…`; nil for other text.
    public init?(text: String) {
        let fields = text.split(separator: ":", omittingEmptySubsequences: false)
        guard fields.count == 3, let xmax = UInt64(fields[1]) else { return nil }
        let running = fields[2].split(separator: ",").map { UInt64($0) }
        guard !running.contains(nil) else { return nil }
        self.init(running: running.compactMap { $0 }, unfinishedFrom: xmax)
    }
}

/// What pruning deleted: entries at or below `position`, of transactions up to `xid`.
public struct PrunedMark: Hashable, Sendable {
    /// The highest position pruning deleted.
    public var position: Int64
    /// The newest transaction whose entries pruning deleted.
    public var xid: UInt64

    /// A mark of entries pruned through `position`, of transactions up to `xid`.
    public init(position: Int64, xid: UInt64) {
        self.position = position
        self.xid = xid
    }
}
