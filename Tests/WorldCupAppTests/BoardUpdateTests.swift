import Foundation
import LiveResults
import Testing
import TerminalUI
import WorldCup
@testable import WorldCupApp

/// A board's data held in arrays: no database, no controller.
struct ArrayData: BoardData {
    var zones: [(name: String, teams: [Team])]

    var tableSections: [TableSection] { zones.map { TableSection(title: $0.name, rowCount: $0.teams.count) } }
    var sectionIndexTitles: [String] { zones.map { String($0.name.prefix(2)) } }
    var teamCount: Int { zones.reduce(0) { $0 + $1.teams.count } }

    func team(at position: TablePosition) -> Team? {
        guard zones.indices.contains(position.section), zones[position.section].teams.indices.contains(position.row) else { return nil }
        return zones[position.section].teams[position.row]
    }

    func id(at position: TablePosition) -> RecordID? { team(at: position)?.id }

    func position(of id: RecordID) -> TablePosition? {
        for (s, zone) in zones.enumerated() {
            if let row = zone.teams.firstIndex(where: { $0.id == id }) { return TablePosition(section: s, row: row) }
        }
        return nil
    }

    func section(forIndexTitle title: String, at index: Int) -> Int { sectionIndexTitles.firstIndex(of: title) ?? index }

    static let sample = ArrayData(zones: [
        ("Africa", [Team(id: 1, teamName: "Algeria", qualifyingZone: "Africa", imageName: "algeria-flag"),
                    Team(id: 2, teamName: "Ghana", qualifyingZone: "Africa", imageName: "ghana-flag")]),
        ("Europe", [Team(id: 3, teamName: "Spain", qualifyingZone: "Europe", imageName: "spain-flag", wins: 2)]),
    ])
}

/// The board's update on its own: keys in, effects and model out, without a database or a
/// terminal.
@Suite("BoardModel.update")
struct BoardUpdateTests {
    let data = ArrayData.sample

    func board() -> BoardModel {
        var model = BoardModel()
        _ = model.update(.refetched(wanted: nil), data: data, now: 0)
        _ = model.update(.resized(width: 80, height: 24), data: data, now: 0)
        return model
    }

    func press(_ keys: Key..., on model: inout BoardModel, now: Double = 0) -> [BoardEffect] {
        keys.flatMap { model.update(.key($0), data: data, now: now) }
    }

    @Test("Enter asks for a tap of the team under the cursor; its outcome is said and fades")
    func tap() {
        var model = board()
        #expect(press(.down, .enter, on: &model) == [.tap(2)])
        _ = model.update(.tapped(Team(id: 2, teamName: "Ghana", qualifyingZone: "Africa", imageName: "ghana-flag", wins: 1)), data: data, now: 10)
        #expect(model.status?.text == "Ghana: 1 win.")
        #expect(model.nextDeadline == 10 + BoardModel.confirmationSeconds)
        _ = model.update(.tick, data: data, now: 10 + BoardModel.confirmationSeconds)
        #expect(model.status == nil)
    }

    @Test("+ opens the dialog with the zone suggested; Enter asks to add; a refusal stays in the dialog")
    func add() {
        var model = board()
        _ = press(.character("+"), on: &model)
        #expect(model.dialog?.values == ["", "Africa"])
        var effects = press(.character("W"), .tab, .character("O"), .character("c"), on: &model)
        #expect(effects.isEmpty)
        effects = press(.enter, on: &model)
        #expect(effects == [.add(name: "W", zone: "Oc")], "the typed zone replaces the suggestion")
        _ = model.update(.addRefused("A team named “W” already exists."), data: data, now: 0)
        #expect(model.dialog?.message == "A team named “W” already exists.")
        _ = model.update(.added(Team(id: 3, teamName: "Spain", qualifyingZone: "Europe", imageName: "")), data: data, now: 0)
        #expect(model.dialog == nil)
        #expect(model.table.cursor == TablePosition(section: 1, row: 0))
    }

    @Test("d asks y/N: y asks to delete, anything else keeps the team; the question does not fade")
    func delete() {
        var model = board()
        #expect(press(.character("d"), on: &model).isEmpty)
        #expect(model.isAskingToDelete && model.status?.text == "Delete Algeria? y/N" && model.nextDeadline == nil)
        _ = model.update(.changedElsewhere, data: data, now: 0)
        #expect(model.status?.text == "Delete Algeria? y/N", "a note from elsewhere does not hide the question")
        #expect(press(.character("y"), on: &model) == [.delete(id: 1, name: "Algeria")])
        _ = press(.character("d"), on: &model)
        #expect(press(.character("n"), on: &model).isEmpty)
        #expect(model.status?.text == "Kept Algeria.")
    }

    @Test("The filter asks for a fetch per edit, keeps the cursor's team, and Esc clears it")
    func filter() {
        var model = board()
        _ = press(.down, on: &model)
        #expect(press(.character("/"), on: &model).isEmpty)
        #expect(model.isEditingFilter)
        #expect(model.editsFilterText(.character("g")) && !model.editsFilterText(.down))
        let effects = press(.character("g"), on: &model)
        guard case .refetch(let filter, let wanted)? = effects.first else { Issue.record("no fetch: \(effects)"); return }
        #expect(filter?.text == "g" && wanted == 2)
        #expect(press(.enter, on: &model).isEmpty)
        #expect(!model.isEditingFilter && model.filter?.text == "g")
        guard case .refetch(nil, _)? = press(.escape, on: &model).first else { Issue.record("Esc does not fetch every team"); return }
        #expect(model.filter == nil)
    }

    @Test("Only one mode at a time: the help swallows the key that closes it, q in it quits")
    func help() {
        var model = board()
        _ = press(.character("?"), on: &model)
        #expect(model.help != nil)
        #expect(press(.enter, on: &model).isEmpty, "Enter closes the help without tapping")
        #expect(model.help == nil && !model.wantsToQuit)
        _ = press(.character("?"), .character("q"), on: &model)
        #expect(model.wantsToQuit)
    }

    @Test("A reset reloads the table and puts the cursor back on its team")
    func reset() {
        var model = board()
        _ = press(.end, on: &model)
        var moved = data
        moved.zones.swapAt(0, 1)
        _ = model.update(.reset(selection: 3), data: moved, now: 0)
        #expect(model.table.cursor == TablePosition(section: 0, row: 0))
        #expect(model.leader?.teamName == "Spain")
    }
}
