import Foundation
import GRDB
import LiveResults
import TerminalUI

/// Binds a `ResultsController` to a `TableView`: the "CoreDataTableViewController" of the
/// original sample, for any record type.
///
/// As the controller's delegate, it gathers each batch into one `TableUpdate` (Core Data's
/// index spaces, which `TableView.apply` takes as they are) and hands it over at the end of
/// the batch, with the sections as they are now; a reset hands over the sections alone.
final class ResultsTableBinding<Record: FetchableRecord & TableRecord>: ResultsControllerDelegate {
    /// What reaches the table.
    enum Change {
        /// One batch: apply it to the table.
        case batch(TableUpdate)
        /// The controller could not tell what changed: reload the table.
        case reset
    }

    /// Receives each batch or reset, after the controller holds the new result.
    var onChange: (Change) -> Void = { _ in }
    /// The section index title of a section name; nil keeps the controller's default.
    var indexTitle: (String) -> String? = { _ in nil }
    private var update: TableUpdate?

    /// The controller's sections, as a table shows them.
    static func tableSections(of controller: ResultsController<Record>) -> [TableSection] {
        controller.sections.map { TableSection(title: $0.name, rowCount: $0.numberOfObjects) }
    }

    func controllerWillChangeContent(_ controller: ResultsController<Record>) {
        update = TableUpdate()
    }

    func controller(_ controller: ResultsController<Record>, didChange section: SectionInfo, atSectionIndex sectionIndex: Int, for type: ChangeKind) {
        switch type {
        case .insert: update?.insertedSections.insert(sectionIndex)
        case .delete: update?.deletedSections.insert(sectionIndex)
        case .move, .update: break
        }
    }

    func controller(_ controller: ResultsController<Record>, didChangeRecordWithID id: RecordID, at indexPath: IndexPath?, for type: ChangeKind, newIndexPath: IndexPath?) {
        func position(_ path: IndexPath?) -> TablePosition? {
            path.map { TablePosition(section: $0.section, row: $0.row) }
        }
        switch (type, position(indexPath), position(newIndexPath)) {
        case let (.insert, _, new?): update?.insertedRows.append(new)
        case let (.delete, old?, _): update?.deletedRows.append(old)
        // A move may go to the same place (the row passed others while rows around it came
        // or went): the table redraws and flashes it all the same.
        case let (.move, old?, new?): update?.movedRows.append((old, new))
        case let (.update, old?, new?): update?.reloadedRows.append((old, new))
        default: break
        }
    }

    func controllerDidChangeContent(_ controller: ResultsController<Record>) {
        guard let update else { return }
        self.update = nil
        onChange(.batch(update))
    }

    func controllerDidResetContent(_ controller: ResultsController<Record>) {
        update = nil
        onChange(.reset)
    }

    func controller(_ controller: ResultsController<Record>, sectionIndexTitleForSectionName sectionName: String) -> String? {
        indexTitle(sectionName)
    }
}
