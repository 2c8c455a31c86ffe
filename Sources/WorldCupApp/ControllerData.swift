import Foundation
import LiveResults
import TerminalUI
import WorldCup

/// The board's data, read from the results controller.
struct ControllerData: BoardData {
    let controller: ResultsController<Team>
    /// Where reading errors go (drawing cannot throw); nil: nowhere.
    var failures: ReadFailures?

    var tableSections: [TableSection] { ResultsTableBinding<Team>.tableSections(of: controller) }
    var sectionIndexTitles: [String] { controller.sectionIndexTitles }
    var teamCount: Int { controller.numberOfObjects }
    var isFilterPending: Bool { controller.isFilterPending }

    /// Whether a place is inside the result (cheap: drawing asks for every visible row).
    private func contains(_ position: TablePosition) -> Bool {
        (0..<controller.numberOfSections).contains(position.section)
            && (0..<controller.numberOfObjects(inSection: position.section)).contains(position.row)
    }

    func id(at position: TablePosition) -> RecordID? {
        contains(position) ? controller.id(at: IndexPath(row: position.row, section: position.section)) : nil
    }

    /// The team at a place, with its zone's name: the section's title (the controller's
    /// records are the team table's rows, which name their zone by id only).
    func team(at position: TablePosition) -> Team? {
        guard contains(position) else { return nil }
        do {
            var team = try controller.object(at: IndexPath(row: position.row, section: position.section))
            team.qualifyingZone = controller.sections[position.section].name
            return team
        } catch {
            failures?.record(error)
            return nil
        }
    }

    func position(of id: RecordID) -> TablePosition? {
        controller.indexPath(for: id).map { TablePosition(section: $0.section, row: $0.row) }
    }

    func sectionIdentifier(_ section: Int) -> String? {
        (0..<controller.numberOfSections).contains(section) ? controller.sections[section].identifier : nil
    }

    func section(forIndexTitle title: String, at index: Int) -> Int {
        controller.section(forSectionIndexTitle: title, at: index)
    }
}

/// The first error met while reading teams where no error can be thrown (drawing), kept for
/// the screen to report after the frame. A class: the board's data is a value, copied freely.
final class ReadFailures {
    private var first: (any Error)?

    func record(_ error: any Error) {
        if first == nil { first = error }
    }

    /// The first error recorded since the last call, if any.
    func take() -> (any Error)? {
        defer { first = nil }
        return first
    }
}
