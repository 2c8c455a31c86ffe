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

    /// The history entries the effects of `u` and Ctrl-R name.
    func entries(_ effects: [BoardEffect]) -> [Int64?] {
        effects.map { effect in
            switch effect {
            case .undo(let change), .redo(let change): change.entryID
            default: nil
            }
        }
    }

    /// A change as the store returns it: with the id of its history entry.
    func recorded(_ action: TeamChange.Action, before: Team?, after: Team?, undid: TeamChange.Action? = nil, entry: Int64) -> TeamChange {
        TeamChange(action: action, before: before, after: after, undid: undid, entryID: entry)
    }

    @Test("u asks to take back this board's last change by its entry, newest first; Ctrl-R makes it again; each says so")
    func undoAndRedo() {
        var model = PureBoard(data).model
        #expect(press(.character("u"), on: &model).isEmpty)
        #expect(model.status?.text == "Nothing to undo: this board has no change left to take back.")
        var tapped = ghana
        tapped.wins = 1
        let spain = Team(id: 3, teamName: "Spain", qualifyingZone: "Europe", imageName: "spain-flag", wins: 2)
        _ = model.update(.tapped(recorded(.tap, before: ghana, after: tapped, entry: 10)), data: data, now: 0)
        _ = model.update(.deleted(recorded(.delete, before: spain, after: nil, entry: 11)), data: data, now: 0)
        #expect(entries(press(.character("u"), on: &model)) == [11])
        _ = model.update(.undid(entry: 11, undo: recorded(.undo, before: nil, after: spain, undid: .delete, entry: 12)), data: data, now: 0)
        #expect(model.status?.text == "Undid: Deleted Spain.")
        #expect(entries(press(.character("u"), on: &model)) == [10], "then the one before")
        _ = model.update(.undid(entry: 10, undo: recorded(.undo, before: tapped, after: ghana, undid: .tap, entry: 13)), data: data, now: 0)
        #expect(model.status?.text == "Undid: Ghana +1 win.")
        #expect(entries(press(.control("r"), on: &model)) == [13], "redo: the last change taken back first")
        _ = model.update(.redid(entry: 13, redo: recorded(.tap, before: ghana, after: tapped, entry: 14)), data: data, now: 0)
        #expect(model.status?.text == "Redid: Ghana +1 win.")
        #expect(entries(press(.character("u"), on: &model)) == [14], "a redo is taken back by its own entry")
        #expect(entries(press(.control("r"), on: &model)) == [12])
        _ = model.update(.redoRefused(entry: 12, "A team named “Spain” already exists."), data: data, now: 0)
        #expect(press(.control("r"), on: &model).isEmpty)
        #expect(model.status?.text == "Nothing to redo.")
    }

    @Test("A refused undo says why and is dropped: the next u reaches the change before")
    func refusedUndo() {
        var model = PureBoard(data).model
        _ = model.update(.added(recorded(.add, before: nil, after: ghana, entry: 1)), data: data, now: 0)
        var tapped = ghana
        tapped.wins = 1
        _ = model.update(.tapped(recorded(.tap, before: ghana, after: tapped, entry: 2)), data: data, now: 0)
        #expect(entries(press(.character("u"), on: &model)) == [2])
        _ = model.update(.undoRefused(entry: 2, "Ghana has no win left to take back."), data: data, now: 0)
        #expect(model.status == BoardModel.StatusMessage(text: "Ghana has no win left to take back.", isError: true, expiry: BoardModel.errorSeconds))
        #expect(entries(press(.character("u"), on: &model)) == [1])
    }

    @Test("A failed undo or redo (a lost connection, a lock) keeps the change: the sentence says to try again, and u asks for it again")
    func failedUndoKeepsTheChange() {
        var model = PureBoard(data).model
        var tapped = ghana
        tapped.wins = 1
        _ = model.update(.tapped(recorded(.tap, before: ghana, after: tapped, entry: 5)), data: data, now: 0)
        #expect(entries(press(.character("u"), on: &model)) == [5])
        _ = model.update(.undoFailed("The connection to the PostgreSQL server at db:5432 was lost."), data: data, now: 0)
        #expect(model.status?.text == "The connection to the PostgreSQL server at db:5432 was lost: press u to try again.")
        #expect(model.status?.isError == true)
        #expect(entries(press(.character("u"), on: &model)) == [5], "still there")
        _ = model.update(.undid(entry: 5, undo: recorded(.undo, before: tapped, after: ghana, undid: .tap, entry: 6)), data: data, now: 0)
        #expect(entries(press(.control("r"), on: &model)) == [6])
        _ = model.update(.redoFailed("The database stayed busy for too long; try again."), data: data, now: 0)
        #expect(model.status?.text == "The database stayed busy for too long; try again: press Ctrl-R to try again.")
        #expect(entries(press(.control("r"), on: &model)) == [6], "still there")
    }

    @Test("An outcome names its entry: an undo's answer that comes after a later change drops the right one")
    func outcomesNameTheirEntries() {
        func change(_ entry: Int64) -> TeamChange { recorded(.tap, before: nil, after: ghana, entry: entry) }
        var stack = OwnChanges()
        stack.record(change(1))
        stack.record(change(2))
        stack.didUndo(2, by: change(3))
        stack.record(change(4))
        #expect(stack.done.map(\.entryID) == [1, 4] && stack.undone.isEmpty, "a new change empties what can be redone")
        stack.didRefuseUndo(1)
        #expect(stack.done.map(\.entryID) == [4])
        stack.didUndo(4, by: change(5))
        stack.didRedo(5, by: change(6))
        #expect(stack.done.map(\.entryID) == [6] && stack.undone.isEmpty, "a redo does not empty what can be redone, and can be taken back")
        stack.didUndo(6, by: change(7))
        stack.didRefuseRedo(7)
        #expect(stack.done.isEmpty && stack.undone.isEmpty)
    }

    @Test("A refusal is told from a failure by its type: only a rule's refusal drops the change")
    func refusalOrFailure() {
        let tap = recorded(.tap, before: nil, after: ghana, entry: 9)
        let refusal = BoardEffect.undo(tap).outcome(of: Refusal("Korea +1 win was already taken back by a@pc."))
        guard case .undoRefused(entry: 9, "Korea +1 win was already taken back by a@pc.") = refusal else { Issue.record("a refusal: \(refusal)"); return }
        let failure = BoardEffect.undo(tap).outcome(of: WorldCupError("The database stayed busy for too long; try again."))
        guard case .undoFailed = failure else { Issue.record("a failure: \(failure)"); return }
        let redoFailure = BoardEffect.redo(tap).outcome(of: WorldCupError("lost"))
        guard case .redoFailed = redoFailure else { Issue.record("a failure: \(redoFailure)"); return }
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
        _ = model.update(.edited(TeamChange(action: moved.action, before: moved.before, after: moved.after, entryID: 21)), data: data, now: 0)
        #expect(model.dialog == nil)
        #expect(model.status?.text == "Edited Ghana: zone Africa → Europe.")
        #expect(entries(press(.character("u"), on: &model)) == [21])
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
        _ = model.update(.tapped(recorded(.tap, before: nil, after: ghana, entry: 1)), data: data, now: 0)
        for key in [Key.character("u"), .character("e"), .control("r")] {
            #expect(press(key, on: &model).isEmpty)
            #expect(model.status?.text == ReadOnlyBoard.asked.refusal.description)
            #expect(model.dialog == nil)
        }
    }
}
