import Foundation

/// The id of a row: its SQLite rowid.
public typealias RecordID = Int64

/// The kind of one change, with Core Data's meaning.
public enum ChangeKind: Hashable, Sendable {
    /// The row (or section) is in the new result only.
    case insert
    /// The row (or section) is in the old result only.
    case delete
    /// The row changed and its order relative to the unchanged rows changed; or the section
    /// (through a relationship) had its related row changed and its order changed relative to
    /// the sections that did not move (only such sections move, as few as possible: a section
    /// whose related row did not change is never reported).
    case move
    /// The row changed and kept its order relative to the unchanged rows; or the section
    /// (through a relationship) kept its identity and place, and its related row's title or
    /// order changed (an order-only change too).
    case update
}

/// A section inserted (at its index in the new result), deleted (at its index in the old
/// one), moved or updated (from its old index to its new one).
///
/// Sections keyed by a column's value are only ever inserted and deleted: the value is their
/// identity. Sections through a relationship (`RelatedSections`) are identified by the related
/// row's key, so they can also move (their rows travel with them, unreported) and be updated
/// (a new title): events NSFetchedResultsController never sends.
public struct SectionChange: Hashable, Sendable {
    /// `.insert`, `.delete`, `.move` or `.update`.
    public var kind: ChangeKind
    /// The section's index: in the new result for an insert, in the old one otherwise.
    public var index: Int
    /// The section's index in the new result for a move and an update; nil otherwise.
    public var newIndex: Int?
    /// The section's name (its title through a relationship): the new one but for a delete.
    public var name: String
    /// What identifies the section across batches: its name for a column's value, the related
    /// row's key (as text) through a relationship. `ResultsSnapshot.sectionIdentifiers` holds the same.
    public var identifier: String

    /// A section change; `identifier` defaults to `name` (sections keyed by a column's value).
    public init(kind: ChangeKind, index: Int, newIndex: Int? = nil, name: String, identifier: String? = nil) {
        self.kind = kind
        self.index = index
        self.newIndex = newIndex
        self.name = name
        self.identifier = identifier ?? name
    }
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
    /// Section deletes (old indices, descending), section inserts (new indices, ascending),
    /// then section moves and updates (new indices, ascending).
    public var sectionChanges: [SectionChange] = []
    /// Row deletes, inserts, moves and updates.
    public var rowChanges: [RowChange] = []
    /// What the writers of the batch's commits said of themselves, one note a commit in
    /// commit order, when every one of them did and the note reached the controller with the
    /// commit (on PostgreSQL, `PostgresChangeLog.noteSetting`, carried by the commit's
    /// notification); empty otherwise (a commit read from the log, a refetch, SQLite). An
    /// application names who made a change from it without a query.
    public var notes: [String] = []

    /// True when nothing in the result changed.
    public var isEmpty: Bool { sectionChanges.isEmpty && rowChanges.isEmpty }
}
