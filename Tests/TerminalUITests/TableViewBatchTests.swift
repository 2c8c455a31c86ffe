import Testing
@testable import TerminalUI
import TestSupport

@Suite("TableView: applying batches")
struct TableViewUpdateTests {
    @Test("A moved row keeps the cursor and flashes until flashDuration has passed")
    func moveFollowsCursor() {
        let before = Model(sections: [("Africa", ["Algeria", "Cameroon", "Nigeria"]), ("Asia", ["Iran", "Japan"])])
        let after = Model(sections: [("Africa", ["Nigeria", "Algeria", "Cameroon"]), ("Asia", ["Iran", "Japan"])])
        var table = makeTable(before)
        table.select(pos(0, 2))
        var update = TableUpdate()
        update.movedRows = [(from: pos(0, 2), to: pos(0, 0))]
        table.apply(update, sections: after.tableSections, now: 10)
        #expect(table.cursor == pos(0, 0))
        #expect(after.name(table.cursor!) == "Nigeria")
        #expect(table.flashes == [pos(0, 0): 10 + TableView.flashDuration])
        #expect(table.nextFlashExpiry == 10.5)
        let remainAt104 = table.expireFlashes(now: 10.4)
        #expect(remainAt104)
        #expect(table.flashes.count == 1)
        let remainAt105 = table.expireFlashes(now: 10.5)
        #expect(!remainAt105)
        #expect(table.flashes.isEmpty)
        #expect(table.nextFlashExpiry == nil)
    }

    @Test("A move to the same index path: the row is redrawn and flashes, the cursor stays on it")
    func moveToTheSamePath() {
        // One commit deleted Arthur and renamed Barbara to Cyril, who passed Claire.
        let before = Model(sections: [("FR", ["Arthur", "Barbara", "Claire", "Diane"])])
        let after = Model(sections: [("FR", ["Claire", "Cyril", "Diane"])])
        var table = makeTable(before)
        table.select(pos(0, 1))
        var update = TableUpdate()
        update.deletedRows = [pos(0, 0)]
        update.movedRows = [(from: pos(0, 1), to: pos(0, 1))]
        #expect(update.newPosition(of: pos(0, 2)) == pos(0, 0), "Claire, unmoved, goes before Cyril")
        #expect(update.newPosition(of: pos(0, 3)) == pos(0, 2))
        table.apply(update, sections: after.tableSections, now: 10)
        #expect(table.cursor == pos(0, 1))
        #expect(after.name(table.cursor!) == "Cyril")
        #expect(table.flashes == [pos(0, 1): 10 + TableView.flashDuration])
        let grid = render(&table, after, now: 10)
        #expect(lines(grid)[1] == "  Claire                        Wins: 0")
        #expect(lines(grid)[2] == "▶ Cyril                         Wins: 1")
    }

    @Test("A flashing row is drawn in the flash style until it expires")
    func flashIsDrawn() {
        let before = Model(sections: [("Africa", ["Algeria", "Cameroon", "Nigeria"]), ("Asia", ["Iran", "Japan"])])
        let after = Model(sections: [("Africa", ["Nigeria", "Algeria", "Cameroon"]), ("Asia", ["Iran", "Japan"])])
        var table = makeTable(before)
        table.select(pos(1, 0))
        var update = TableUpdate()
        update.movedRows = [(from: pos(0, 2), to: pos(0, 0))]
        table.apply(update, sections: after.tableSections, now: 10)
        #expect(table.cursor == pos(1, 0))

        var grid = render(&table, after, now: 10)
        #expect(lines(grid)[1] == "  Nigeria                       Wins: 0")
        for x in 0..<39 { #expect(grid[x, 1].style == plainTheme.flash, "column \(x)") }
        #expect(grid[2, 2].style == plainTheme.row)
        #expect(grid[2, 5].style == plainTheme.cursor)

        grid = render(&table, after, now: 10.6)
        #expect(grid[2, 1].style == plainTheme.row)
        #expect(grid[35, 1].style == plainTheme.detail)
        let remain = table.expireFlashes(now: 10.6)
        #expect(!remain)
    }

    @Test("A flash follows its row through later batches")
    func flashFollowsRow() {
        var table = makeTable(Model.numbered([3]))
        var first = TableUpdate()
        first.movedRows = [(from: pos(0, 2), to: pos(0, 0))]
        table.apply(first, sections: Model.numbered([3]).tableSections, now: 10)
        var second = TableUpdate()
        second.insertedRows = [pos(0, 0)]
        table.apply(second, sections: Model.numbered([4]).tableSections, now: 10.25)
        #expect(table.flashes == [pos(0, 1): 10.5, pos(0, 0): 10.75])
        #expect(table.nextFlashExpiry == 10.5)
    }

    @Test("An inserted section before the cursor moves it with its row")
    func sectionInsert() {
        let before = Model(sections: [("Africa", ["Algeria", "Ghana", "Nigeria"]), ("Europe", ["France", "Spain"])])
        let after = Model(sections: [("Africa", ["Algeria", "Ghana", "Nigeria"]), ("Asia", ["Iran", "Japan"]), ("Europe", ["France", "Spain"])])
        var table = makeTable(before)
        table.select(pos(1, 1))
        var update = TableUpdate()
        update.insertedSections = [1]
        update.insertedRows = [pos(1, 0), pos(1, 1)]
        #expect(update.newPosition(of: pos(1, 1)) == pos(2, 1))
        table.apply(update, sections: after.tableSections, now: 0)
        #expect(table.cursor == update.newPosition(of: pos(1, 1)))
        #expect(after.name(table.cursor!) == "Spain")
        #expect(Set(table.flashes.keys) == [pos(1, 0), pos(1, 1)])
        let grid = render(&table, after, height: 10)
        #expect(lines(grid)[4] == " Asia")
        #expect(lines(grid)[9] == "▶ Spain                         Wins: 1")
    }

    @Test("A deleted section before the cursor moves it with its row")
    func sectionDelete() {
        let before = Model(sections: [("Africa", ["Algeria", "Ghana", "Nigeria"]), ("Asia", ["Iran", "Japan"]), ("Europe", ["France", "Spain"])])
        let after = Model(sections: [("Africa", ["Algeria", "Ghana", "Nigeria"]), ("Europe", ["France", "Spain"])])
        var table = makeTable(before)
        table.select(pos(2, 1))
        var update = TableUpdate()
        update.deletedSections = [1]
        update.deletedRows = [pos(1, 1), pos(1, 0)]
        #expect(update.newPosition(of: pos(2, 1)) == pos(1, 1))
        table.apply(update, sections: after.tableSections, now: 0)
        #expect(table.cursor == pos(1, 1))
        #expect(after.name(table.cursor!) == "Spain")
        #expect(table.flashes.isEmpty)
    }

    struct DeletionCase: Sendable, CustomTestStringConvertible {
        var name: String
        var before: [Int]
        var cursor: TablePosition
        var deletedSections: Set<Int> = []
        var deletedRows: [TablePosition]
        var after: [Int]
        var expected: TablePosition?
        var testDescription: String { name }
    }

    @Test("When the cursor's row is deleted the cursor lands on a nearby row", arguments: [
        DeletionCase(name: "last row of a section", before: [3, 2], cursor: pos(1, 1), deletedRows: [pos(1, 1)], after: [3, 1], expected: pos(1, 0)),
        DeletionCase(name: "first row of the table", before: [3, 2], cursor: pos(0, 0), deletedRows: [pos(0, 0)], after: [2, 2], expected: pos(0, 0)),
        DeletionCase(name: "middle row", before: [3, 2], cursor: pos(0, 1), deletedRows: [pos(0, 1)], after: [2, 2], expected: pos(0, 1)),
        DeletionCase(name: "only row of a middle section", before: [3, 1, 2], cursor: pos(1, 0), deletedSections: [1], deletedRows: [pos(1, 0)], after: [3, 2], expected: pos(1, 0)),
        DeletionCase(name: "whole last section", before: [3, 2], cursor: pos(1, 1), deletedSections: [1], deletedRows: [pos(1, 0), pos(1, 1)], after: [3], expected: pos(0, 2)),
        DeletionCase(name: "every row", before: [1, 1], cursor: pos(1, 0), deletedSections: [0, 1], deletedRows: [pos(0, 0), pos(1, 0)], after: [], expected: nil),
    ])
    func cursorRowDeleted(_ test: DeletionCase) {
        var table = makeTable(Model.numbered(test.before))
        table.select(test.cursor)
        #expect(table.cursor == test.cursor)
        var update = TableUpdate()
        update.deletedSections = test.deletedSections
        update.deletedRows = test.deletedRows
        #expect(update.newPosition(of: test.cursor) == nil)
        table.apply(update, sections: Model.numbered(test.after).tableSections, now: 0)
        #expect(table.cursor == test.expected)
        let grid = render(&table, Model.numbered(test.after))
        #expect(cursorLines(grid).count == (test.expected == nil ? 0 : 1))
    }

    @Test("Rows inserted into an empty table put the cursor on the first row")
    func insertIntoEmpty() {
        var table = TableView()
        table.reload([])
        var update = TableUpdate()
        update.insertedSections = [0]
        update.insertedRows = [pos(0, 0)]
        table.apply(update, sections: [TableSection(title: "Africa", rowCount: 1)], now: 0)
        #expect(table.cursor == pos(0, 0))
    }
}

// MARK: - TableUpdate.newPosition

struct PositionCase: Sendable, CustomTestStringConvertible {
    var name: String
    var update: TableUpdate
    var mapping: [(old: TablePosition, new: TablePosition?)]
    var testDescription: String { name }
}

func makeUpdate(deletedSections: Set<Int> = [], insertedSections: Set<Int> = [], deleted: [TablePosition] = [], inserted: [TablePosition] = [], moved: [(TablePosition, TablePosition)] = [], reloaded: [(TablePosition, TablePosition)] = [],
                movedSections: [(Int, Int)] = [], reloadedSections: [(Int, Int)] = []) -> TableUpdate {
    var update = TableUpdate()
    update.movedSections = movedSections.map { (from: $0.0, to: $0.1) }
    update.reloadedSections = reloadedSections.map { (from: $0.0, to: $0.1) }
    update.deletedSections = deletedSections
    update.insertedSections = insertedSections
    update.deletedRows = deleted
    update.insertedRows = inserted
    update.movedRows = moved.map { (from: $0.0, to: $0.1) }
    update.reloadedRows = reloaded.map { (from: $0.0, to: $0.1) }
    return update
}

@Suite("TableUpdate.newPosition")
struct TableUpdatePositionTests {
    @Test("Where unmentioned rows go", arguments: [
        PositionCase(name: "a delete shifts later rows up", update: makeUpdate(deleted: [pos(0, 1)]), mapping: [
            (pos(0, 0), pos(0, 0)), (pos(0, 1), nil), (pos(0, 2), pos(0, 1)), (pos(0, 5), pos(0, 4)), (pos(1, 3), pos(1, 3)),
        ]),
        PositionCase(name: "two deletes", update: makeUpdate(deleted: [pos(0, 3), pos(0, 1)]), mapping: [
            (pos(0, 0), pos(0, 0)), (pos(0, 2), pos(0, 1)), (pos(0, 4), pos(0, 2)),
        ]),
        PositionCase(name: "an insert shifts later rows down", update: makeUpdate(inserted: [pos(0, 0)]), mapping: [
            (pos(0, 0), pos(0, 1)), (pos(0, 2), pos(0, 3)), (pos(1, 0), pos(1, 0)),
        ]),
        PositionCase(name: "an insert after the row", update: makeUpdate(inserted: [pos(0, 5)]), mapping: [
            (pos(0, 2), pos(0, 2)), (pos(0, 4), pos(0, 4)), (pos(0, 5), pos(0, 6)),
        ]),
        PositionCase(name: "inserts in new index space", update: makeUpdate(inserted: [pos(0, 1), pos(0, 2)]), mapping: [
            (pos(0, 0), pos(0, 0)), (pos(0, 1), pos(0, 3)), (pos(0, 2), pos(0, 4)),
        ]),
        PositionCase(name: "a delete and an insert in one section", update: makeUpdate(deleted: [pos(0, 0)], inserted: [pos(0, 0)]), mapping: [
            (pos(0, 1), pos(0, 1)), (pos(0, 2), pos(0, 2)),
        ]),
        PositionCase(name: "a delete before and an insert after", update: makeUpdate(deleted: [pos(0, 0)], inserted: [pos(0, 3)]), mapping: [
            (pos(0, 1), pos(0, 0)), (pos(0, 3), pos(0, 2)), (pos(0, 4), pos(0, 4)),
        ]),
        PositionCase(name: "a move up within a section (a tap)", update: makeUpdate(moved: [(pos(0, 4), pos(0, 0))]), mapping: [
            (pos(0, 4), pos(0, 0)), (pos(0, 0), pos(0, 1)), (pos(0, 3), pos(0, 4)), (pos(0, 5), pos(0, 5)), (pos(1, 0), pos(1, 0)),
        ]),
        PositionCase(name: "a move down within a section", update: makeUpdate(moved: [(pos(0, 0), pos(0, 2))]), mapping: [
            (pos(0, 1), pos(0, 0)), (pos(0, 2), pos(0, 1)), (pos(0, 3), pos(0, 3)),
        ]),
        PositionCase(name: "a move across sections", update: makeUpdate(moved: [(pos(0, 1), pos(1, 0))]), mapping: [
            (pos(0, 0), pos(0, 0)), (pos(0, 2), pos(0, 1)), (pos(1, 0), pos(1, 1)), (pos(1, 2), pos(1, 3)),
        ]),
        PositionCase(name: "a reload in place", update: makeUpdate(reloaded: [(pos(0, 1), pos(0, 1))]), mapping: [
            (pos(0, 0), pos(0, 0)), (pos(0, 1), pos(0, 1)), (pos(0, 2), pos(0, 2)),
        ]),
        PositionCase(name: "a section inserted before", update: makeUpdate(insertedSections: [0], inserted: [pos(0, 0)]), mapping: [
            (pos(0, 0), pos(1, 0)), (pos(0, 1), pos(1, 1)), (pos(2, 3), pos(3, 3)),
        ]),
        PositionCase(name: "a section inserted after", update: makeUpdate(insertedSections: [1], inserted: [pos(1, 0)]), mapping: [
            (pos(0, 1), pos(0, 1)), (pos(1, 0), pos(2, 0)),
        ]),
        PositionCase(name: "two sections inserted", update: makeUpdate(insertedSections: [0, 2]), mapping: [
            (pos(0, 0), pos(1, 0)), (pos(1, 0), pos(3, 0)), (pos(2, 0), pos(4, 0)),
        ]),
        PositionCase(name: "a section deleted", update: makeUpdate(deletedSections: [1], deleted: [pos(1, 0), pos(1, 1)]), mapping: [
            (pos(0, 2), pos(0, 2)), (pos(1, 0), nil), (pos(1, 1), nil), (pos(2, 1), pos(1, 1)), (pos(3, 0), pos(2, 0)),
        ]),
        PositionCase(name: "a section deleted and another inserted", update: makeUpdate(deletedSections: [0], insertedSections: [1]), mapping: [
            (pos(0, 0), nil), (pos(1, 2), pos(0, 2)), (pos(2, 0), pos(2, 0)),
        ]),
        PositionCase(name: "a section inserted and rows deleted in a later one", update: makeUpdate(insertedSections: [0], deleted: [pos(1, 0)]), mapping: [
            (pos(1, 1), pos(2, 0)), (pos(0, 1), pos(1, 1)),
        ]),
        PositionCase(name: "a section moved to the top: its rows travel, the others shift down", update: makeUpdate(movedSections: [(2, 0)]), mapping: [
            (pos(2, 0), pos(0, 0)), (pos(2, 3), pos(0, 3)), (pos(0, 1), pos(1, 1)), (pos(1, 0), pos(2, 0)), (pos(3, 0), pos(3, 0)),
        ]),
        PositionCase(name: "a section moved down, a row moved out of it and one into another", update: makeUpdate(
            moved: [(pos(0, 0), pos(2, 0))], movedSections: [(0, 1)]), mapping: [
            (pos(0, 1), pos(1, 0)), (pos(1, 0), pos(0, 0)), (pos(2, 0), pos(2, 1)), (pos(0, 0), pos(2, 0)),
        ]),
        PositionCase(name: "a section renamed in place, another deleted before it", update: makeUpdate(deletedSections: [0], reloadedSections: [(1, 0)]), mapping: [
            (pos(1, 2), pos(0, 2)), (pos(0, 0), nil), (pos(2, 0), pos(1, 0)),
        ]),
    ])
    func newPositions(_ test: PositionCase) {
        for (old, new) in test.mapping {
            #expect(test.update.newPosition(of: old) == new, "\(old)")
        }
    }

    @Test("Changed rows are the inserts and the destinations of moves and reloads")
    func changedRows() {
        let update = makeUpdate(deleted: [pos(0, 0)], inserted: [pos(1, 1)], moved: [(pos(0, 3), pos(0, 0))], reloaded: [(pos(2, 0), pos(2, 0))])
        #expect(update.changedRows == [pos(1, 1), pos(0, 0), pos(2, 0)])
    }
}
