import Foundation

/// Receives the changes of a results controller, one batch per commit, in either of two forms:
/// row by row (`controllerWillChangeContent`, section changes, row changes,
/// `controllerDidChangeContent`), or whole (`controller(_:didChangeContentWith:from:)`, as
/// NSFetchedResultsController's `controller(_:didChangeContentWith:)`), which comes last and
/// says whose commits they were. Implement the form you need.
///
/// Index paths follow Core Data's spaces: deletes and old places refer to the result before
/// the batch, inserts and new places to the result after it. Every method has a default
/// that does nothing.
public protocol ResultsControllerDelegate<Record>: AnyObject {
    /// The record type of the controllers it receives changes from.
    associatedtype Record

    /// A batch begins.
    func controllerWillChangeContent(_ controller: ResultsController<Record>)

    /// A section was inserted (at its new index) or deleted (at its old index).
    func controller(_ controller: ResultsController<Record>, didChange section: SectionInfo, atSectionIndex sectionIndex: Int, for type: ChangeKind)

    /// A section was inserted (at its new index), deleted (at its old index), moved or updated
    /// (from `sectionIndex`, its old index, to `newSectionIndex`, its new one; nil for an insert
    /// or a delete). Moves and updates come only for sections through a relationship
    /// (`RelatedSections`): a moved section's rows travel with it and are not reported, and an
    /// updated one keeps its place and its related row changed (its title, or its order
    /// only). The default calls
    /// `controller(_:didChange:atSectionIndex:for:)`.
    func controller(_ controller: ResultsController<Record>, didChange section: SectionInfo, atSectionIndex sectionIndex: Int, for type: ChangeKind,
                    newSectionIndex: Int?)

    /// A row was inserted, deleted, moved or updated.
    func controller(_ controller: ResultsController<Record>, didChangeRecordWithID id: RecordID, at indexPath: IndexPath?, for type: ChangeKind, newIndexPath: IndexPath?)

    /// A batch ends; the controller now answers with the new result.
    func controllerDidChangeContent(_ controller: ResultsController<Record>)

    /// The whole batch, after its row-by-row methods: the controller now answers with the new
    /// result. `origin` says whether the controller's own writes made it (a write of this
    /// connection, shown as soon as the writer processes its changes) or another connection.
    func controller(_ controller: ResultsController<Record>, didChangeContentWith batch: ChangeBatch, from origin: ChangeOrigin)

    /// The controller could not tell what changed and now holds a freshly fetched result:
    /// reload everything (sections, counts and every visible row). It comes instead of a
    /// batch, outside `controllerWillChangeContent`/`controllerDidChangeContent`, and only
    /// when exact events cannot be known: the change log went back (it was dropped and made
    /// again) or was pruned past the controller's position by a log without a summary.
    /// No default: a consumer that ignored it would show a stale table.
    func controllerDidResetContent(_ controller: ResultsController<Record>)

    /// The index title of a section; nil keeps the default, the name's capitalised first letter.
    func controller(_ controller: ResultsController<Record>, sectionIndexTitleForSectionName sectionName: String) -> String?
}

extension ResultsControllerDelegate {
    public func controllerWillChangeContent(_ controller: ResultsController<Record>) {}
    public func controller(_ controller: ResultsController<Record>, didChange section: SectionInfo, atSectionIndex sectionIndex: Int, for type: ChangeKind) {}
    public func controller(_ controller: ResultsController<Record>, didChange section: SectionInfo, atSectionIndex sectionIndex: Int, for type: ChangeKind,
                           newSectionIndex: Int?) {
        self.controller(controller, didChange: section, atSectionIndex: sectionIndex, for: type)
    }
    public func controller(_ controller: ResultsController<Record>, didChangeRecordWithID id: RecordID, at indexPath: IndexPath?, for type: ChangeKind, newIndexPath: IndexPath?) {}
    public func controllerDidChangeContent(_ controller: ResultsController<Record>) {}
    public func controller(_ controller: ResultsController<Record>, didChangeContentWith batch: ChangeBatch, from origin: ChangeOrigin) {}
    public func controller(_ controller: ResultsController<Record>, sectionIndexTitleForSectionName sectionName: String) -> String? { nil }
}

/// One section of a result.
public struct SectionInfo: Hashable, Sendable {
    /// The section's name: the text of its section key value, or through a relationship the
    /// related row's title.
    public var name: String
    /// What identifies the section across batches: its name, or through a relationship the
    /// related row's key as text (`SectionChange.identifier`).
    public var identifier: String
    /// The title shown for the section in an index: by default its capitalised first letter.
    public var indexTitle: String
    /// How many rows the section holds (zero for a deleted section).
    public var numberOfObjects: Int
}

/// The whole result after a batch, for consumers that prefer to diff: the sections'
/// identifiers and the ids of their rows, in order, plus the rows updated in place.
public struct ResultsSnapshot: Hashable, Sendable {
    /// The section identifiers, in order: their names, or through a relationship the related
    /// rows' keys as text (a renamed section keeps its identifier).
    public var sectionIdentifiers: [String]
    /// The section names (titles), in order.
    public var sectionNames: [String]
    /// The ids of each section's rows, in order.
    public var itemIdentifiers: [[RecordID]]
    /// The rows whose content changed without a change of place (updates and moves).
    public var reloadedItemIdentifiers: Set<RecordID>
    /// The sections whose header must be drawn again: moved or updated (through a relationship).
    public var reloadedSectionIdentifiers: Set<String> = []
}
