import Foundation
import Testing
@testable import LiveResults
import TerminalUI
@testable import WorldCupApp
import WorldCup

/// The controller's batch as the table's update: sections through a relationship move and are
/// renamed, and the table's cursor follows a row whose section moved.
@Suite("ResultsTableBinding: section moves and updates")
struct TableBindingTests {
    @Test("A section move and a section update reach the table, and a row travels with its moved section")
    func sectionMoveAndUpdate() {
        var batch = ChangeBatch()
        batch.sectionChanges = [SectionChange(kind: .move, index: 2, newIndex: 0, name: "CAF", identifier: "3"),
                                SectionChange(kind: .update, index: 0, newIndex: 1, name: "UEFA", identifier: "1")]
        batch.rowChanges = [RowChange(kind: .move, id: 7, indexPath: IndexPath(row: 0, section: 2), newIndexPath: IndexPath(row: 1, section: 1))]
        let update = ResultsTableBinding<Team>.tableUpdate(batch)
        #expect(update.movedSections.map { [$0.from, $0.to] } == [[2, 0]])
        #expect(update.reloadedSections.map { [$0.from, $0.to] } == [[0, 1]])
        #expect(update.insertedSections.isEmpty && update.deletedSections.isEmpty)
        // The moved section's second row is first after the one that left it, in section 0.
        #expect(update.newPosition(of: TablePosition(section: 2, row: 1)) == TablePosition(section: 0, row: 0))
        #expect(update.newPosition(of: TablePosition(section: 0, row: 0)) == TablePosition(section: 1, row: 0))
        #expect(update.newPosition(of: TablePosition(section: 1, row: 0)) == TablePosition(section: 2, row: 0))

        var table = TableView()
        table.reload([TableSection(title: "UEFA", rowCount: 1), TableSection(title: "AFC", rowCount: 1), TableSection(title: "CAF", rowCount: 2)])
        table.layout(in: Rect(x: 0, y: 0, width: 40, height: 12))
        table.select(TablePosition(section: 2, row: 1))
        table.apply(update, sections: [TableSection(title: "CAF", rowCount: 1), TableSection(title: "UEFA", rowCount: 2), TableSection(title: "AFC", rowCount: 1)], now: 0)
        #expect(table.cursor == TablePosition(section: 0, row: 0), "the cursor stays on its row, which travelled with its section")
    }
}
