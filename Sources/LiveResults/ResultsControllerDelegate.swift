import Foundation
import GRDB

/// Receives the changes of a results controller, one batch per commit:
/// `controllerWillChangeContent`, section changes, row changes, `controllerDidChangeContent`.
///
/// Index paths follow Core Data's spaces: deletes and old places refer to the result before
/// the batch, inserts and new places to the result after it. Every method has a default
/// that does nothing.
public protocol ResultsControllerDelegate<Record>: AnyObject {
    associatedtype Record: FetchableRecord & TableRecord

    /// A batch begins.
    func controllerWillChangeContent(_ controller: ResultsController<Record>)

    /// A section was inserted (at its new index) or deleted (at its old index).
    func controller(_ controller: ResultsController<Record>, didChange section: SectionInfo, atSectionIndex sectionIndex: Int, for type: ChangeKind)

    /// A row was inserted, deleted, moved or updated.
    func controller(_ controller: ResultsController<Record>, didChangeRecordWithID id: RecordID, at indexPath: IndexPath?, for type: ChangeKind, newIndexPath: IndexPath?)

    /// A batch ends; the controller now answers with the new result.
    func controllerDidChangeContent(_ controller: ResultsController<Record>)
}

extension ResultsControllerDelegate {
    public func controllerWillChangeContent(_ controller: ResultsController<Record>) {}
    public func controller(_ controller: ResultsController<Record>, didChange section: SectionInfo, atSectionIndex sectionIndex: Int, for type: ChangeKind) {}
    public func controller(_ controller: ResultsController<Record>, didChangeRecordWithID id: RecordID, at indexPath: IndexPath?, for type: ChangeKind, newIndexPath: IndexPath?) {}
    public func controllerDidChangeContent(_ controller: ResultsController<Record>) {}
}

/// One section of a result.
public struct SectionInfo: Hashable, Sendable {
    /// The section's name: the text of its section key value.
    public var name: String
    /// The title shown for the section in an index: by default its capitalised first letter.
    public var indexTitle: String
    /// How many rows the section holds (zero for a deleted section).
    public var numberOfObjects: Int
}
