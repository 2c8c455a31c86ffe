import Foundation
import LiveResults
import TerminalUI

/// Binds a `ResultsController` to a `TableView`: the "CoreDataTableViewController" of the
/// original sample, for any record type.
///
/// As the controller's delegate, it takes each batch whole and hands it over as one
/// `TableUpdate` (Core Data's index spaces, which `TableView.apply` takes as they are), with
/// whose commits it came from; a reset hands over the sections alone.
final class ResultsTableBinding<Record>: ResultsControllerDelegate {
    /// What reaches the table.
    enum Change {
        /// One batch, from this program's own writes or from elsewhere: apply it to the table.
        /// `notes`: what its commits' writers said of themselves (`ChangeBatch.notes`).
        case batch(TableUpdate, from: ChangeOrigin, notes: [String])
        /// The controller could not tell what changed: reload the table.
        case reset
    }

    /// Receives each batch or reset, after the controller holds the new result.
    var onChange: (Change) -> Void = { _ in }
    /// The section index title of a section name; nil keeps the controller's default.
    var indexTitle: (String) -> String? = { _ in nil }

    /// The controller's sections, as a table shows them.
    static func tableSections(of controller: ResultsController<Record>) -> [TableSection] {
        controller.sections.map { TableSection(title: $0.name, rowCount: $0.numberOfObjects) }
    }

    /// A controller's batch as a table's update: the same changes in the same index spaces.
    static func tableUpdate(_ batch: ChangeBatch) -> TableUpdate {
        var update = TableUpdate()
        for change in batch.sectionChanges {
            switch change.kind {
            case .insert: update.insertedSections.insert(change.index)
            case .delete: update.deletedSections.insert(change.index)
            // Sections through a relationship: a zone moved (its rows with it) or renamed.
            case .move: update.movedSections.append((change.index, change.newIndex ?? change.index))
            case .update: update.reloadedSections.append((change.index, change.newIndex ?? change.index))
            }
        }
        func position(_ path: IndexPath?) -> TablePosition? {
            path.map { TablePosition(section: $0.section, row: $0.row) }
        }
        for change in batch.rowChanges {
            switch (change.kind, position(change.indexPath), position(change.newIndexPath)) {
            case let (.insert, _, new?): update.insertedRows.append(new)
            case let (.delete, old?, _): update.deletedRows.append(old)
            // A move may go to the same place (the row passed others while rows around it came
            // or went): the table redraws and flashes it all the same.
            case let (.move, old?, new?): update.movedRows.append((old, new))
            case let (.update, old?, new?): update.reloadedRows.append((old, new))
            default: break
            }
        }
        return update
    }

    func controller(_ controller: ResultsController<Record>, didChangeContentWith batch: ChangeBatch, from origin: ChangeOrigin) {
        onChange(.batch(Self.tableUpdate(batch), from: origin, notes: batch.notes))
    }

    func controllerDidResetContent(_ controller: ResultsController<Record>) {
        onChange(.reset)
    }

    func controller(_ controller: ResultsController<Record>, sectionIndexTitleForSectionName sectionName: String) -> String? {
        indexTitle(sectionName)
    }
}
