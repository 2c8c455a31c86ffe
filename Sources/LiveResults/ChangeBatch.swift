import Foundation

/// The id of a row: its SQLite rowid.
public typealias RecordID = Int64

/// The kind of one change, with Core Data's meaning.
public enum ChangeKind: Hashable, Sendable {
    /// The row (or section) is in the new result only.
    case insert
    /// The row (or section) is in the old result only.
    case delete
    /// The row changed and its order relative to the unchanged rows changed.
    case move
    /// The row changed and kept its order relative to the unchanged rows.
    case update
}

/// A section inserted (at its index in the new result) or deleted (at its index in the old one).
public struct SectionChange: Hashable, Sendable {
    /// `.insert` or `.delete`.
    public var kind: ChangeKind
    /// The section's index: in the new result for an insert, in the old one for a delete.
    public var index: Int
    /// The section's name.
    public var name: String
}

/// A row inserted, deleted, moved or updated.
///
/// `indexPath` is the row's place in the old result (nil for an insert); `newIndexPath` its
/// place in the new result (nil for a delete). An update and a move carry both; they may be
/// equal for a move (the row passed others while rows around it came or went) and may differ
/// for an update (it kept its order, but rows before it came or went).
public struct RowChange: Hashable, Sendable {
    /// What happened to the row.
    public var kind: ChangeKind
    /// The row's id.
    public var id: RecordID
    /// The row's place in the old result; nil for an insert.
    public var indexPath: IndexPath?
    /// The row's place in the new result; nil for a delete.
    public var newIndexPath: IndexPath?
}

/// Where the commits of a batch were made.
public enum ChangeOrigin: Hashable, Sendable {
    /// Through the connection the controller reads with, in this process: on SQLite its
    /// `DatabaseWriter`, on PostgreSQL `PostgresWriter.write` (`OwnWrites`). The change was
    /// queued when the write returned.
    case ownWrites
    /// Anywhere else: other connections and processes, read from the change log.
    case elsewhere
}

/// Everything one commit changed in a result, in the form a batch-updating table view needs.
public struct ChangeBatch: Hashable, Sendable {
    /// Section deletes (old indices, descending), then section inserts (new indices, ascending).
    public var sectionChanges: [SectionChange] = []
    /// Row deletes, inserts, moves and updates.
    public var rowChanges: [RowChange] = []

    /// True when nothing in the result changed.
    public var isEmpty: Bool { sectionChanges.isEmpty && rowChanges.isEmpty }
}
