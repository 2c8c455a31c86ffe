import Foundation
import LiveResults
import TerminalUI
import TestSupport
import Testing
import WorldCup
@testable import WorldCupApp

/// `u`, Ctrl-R and `e` on the board's model alone: keys in, effects and model out.
@Suite("BoardModel: undo, redo, edit")
struct UndoAndEditTests {
    let data = ArrayData.sample
    let ghana = Team(id: 2, teamName: "Ghana", qualifyingZone: "Africa", imageName: "ghana-flag", wins: 0)

    func press(_ keys: Key..., on model: inout BoardModel) -> [BoardEffect] {
        keys.flatMap { model.update(.key($0), data: data, now: 0) }
    }

    @Test("u asks to take back this board's last change, newest first; Ctrl-R makes it again; each says so")
    func undoAndRedo() {
        var model = PureBoard(data).model
        #expect(press(.character("u"), on: &model).isEmpty)
        #expect(model.status?.text == "Nothing to undo: this board has no change left to take back.")
        var tapped = ghana
        tapped.wins = 1
        _ = model.update(.tapped(tapped), data: data, now: 0)
        _ = model.update(.deleted(Team(id: 3, teamName: "Spain", qualifyingZone: "Europe", imageName: "spain-flag", wins: 2)), data: data, now: 0)
        let deletion = TeamChange(action: .delete, before: Team(id: 3, teamName: "Spain", qualifyingZone: "Europe", imageName: "spain-flag", wins: 2), after: nil)
        #expect(press(.character("u"), on: &model) == [.undo(deletion)])
        _ = model.update(.undid(TeamChange(action: .undo, before: nil, after: deletion.before, undid: .delete)), data: data, now: 0)
        #expect(model.status?.text == "Undid: Deleted Spain.")
        let tap = TeamChange(action: .tap, before: ghana, after: tapped)
        #expect(press(.character("u"), on: &model) == [.undo(tap)], "then the one before")
        _ = model.update(.undid(TeamChange(action: .undo, before: tapped, after: ghana, undid: .tap)), data: data, now: 0)
        #expect(model.status?.text == "Undid: Ghana +1 win.")
        #expect(press(.control("r"), on: &model) == [.redo(tap)], "redo: the last change taken back first")
        _ = model.update(.redid(tap), data: data, now: 0)
        #expect(model.status?.text == "Redid: Ghana +1 win.")
        #expect(press(.control("r"), on: &model) == [.redo(deletion)])
        _ = model.update(.redoRefused("A team named “Spain” already exists."), data: data, now: 0)
        #expect(press(.control("r"), on: &model).isEmpty)
        #expect(model.status?.text == "Nothing to redo.")
    }

    @Test("A refused undo says why and is dropped: the next u reaches the change before")
    func refusedUndo() {
        var model = PureBoard(data).model
        _ = model.update(.added(ghana), data: data, now: 0)
        var tapped = ghana
        tapped.wins = 1
        _ = model.update(.tapped(tapped), data: data, now: 0)
        _ = press(.character("u"), on: &model)
        _ = model.update(.undoRefused("Ghana has no win left to take back."), data: data, now: 0)
        #expect(model.status == BoardModel.StatusMessage(text: "Ghana has no win left to take back.", isError: true, expiry: BoardModel.errorSeconds))
        #expect(press(.character("u"), on: &model) == [.undo(TeamChange(action: .add, before: nil, after: ghana))])
    }

    @Test("e opens the dialog with the team's name, zone and wins as suggestions; Enter asks to save only what changed")
    func edit() {
        var model = PureBoard(data).model
        _ = press(.down, on: &model)
        _ = press(.character("e"), on: &model)
        #expect(model.dialog?.values == ["Ghana", "Africa", "0"])
        #expect(model.dialog?.fields.allSatisfy(\.isSelected) == true, "each a suggestion: typing replaces it")
        let effects = press(.tab, .character("E"), .character("u"), .enter, on: &model)
        #expect(effects == [.edit(id: 2, name: nil, zone: "Eu", wins: nil)])
        _ = model.update(.editRefused("A team named “Brazil” already exists."), data: data, now: 0)
        #expect(model.dialog?.message == "A team named “Brazil” already exists.", "a refusal stays in the dialog")
        let moved = TeamChange(action: .edit, before: ghana, after: Team(id: 2, teamName: "Ghana", qualifyingZone: "Europe", imageName: "ghana-flag"))
        _ = model.update(.edited(moved), data: data, now: 0)
        #expect(model.dialog == nil)
        #expect(model.status?.text == "Edited Ghana: zone Africa → Europe.")
        #expect(press(.character("u"), on: &model) == [.undo(moved)])
    }

    @Test("The edit dialog checks the wins, and closes on nothing changed or Esc without a write")
    func editValidation() {
        var model = PureBoard(data).model
        _ = press(.down, .character("e"), .tab, .tab, on: &model)
        #expect(press(.character("x"), .enter, on: &model).isEmpty)
        #expect(model.dialog?.message == "The wins must be a whole number from 0 to \(Seed.maximumWins).")
        #expect(press(.control("u"), .character("-"), .character("1"), .enter, on: &model).isEmpty)
        #expect(model.dialog?.message == "The wins must be a whole number from 0 to \(Seed.maximumWins).")
        #expect(press(.control("u"), .character("0"), .enter, on: &model).isEmpty)
        #expect(model.dialog == nil && model.status?.text == "Ghana kept as it was: nothing changed.")
        _ = press(.character("e"), .character("X"), on: &model)
        #expect(press(.escape, on: &model).isEmpty)
        #expect(model.dialog == nil && model.status?.text == "Ghana kept as it was.")
        _ = press(.character("e"), .right, .character("!"), .tab, .tab, .control("u"), .character("7"), on: &model)
        #expect(press(.enter, on: &model) == [.edit(id: 2, name: "Ghana!", zone: nil, wins: 7)], "→ keeps the suggestion to edit at its end")
    }

    @Test("A read-only board refuses u, e and Ctrl-R on the status line, and asks for nothing")
    func readOnly() {
        var board = PureBoard(data)
        board.model.readOnly = .asked
        var model = board.model
        _ = model.update(.tapped(ghana), data: data, now: 0)
        for key in [Key.character("u"), .character("e"), .control("r")] {
            #expect(press(key, on: &model).isEmpty)
            #expect(model.status?.text == ReadOnlyBoard.asked.refusal.description)
            #expect(model.dialog == nil)
        }
    }
}
