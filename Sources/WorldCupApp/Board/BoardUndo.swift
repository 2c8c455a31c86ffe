import LiveResults
import TerminalUI
import WorldCup

/// `u` takes back this board's last change, Ctrl-R makes it again, and their outcomes.
extension BoardModel {
    /// `u`: asks to take back the last change this board made, or says there is none.
    mutating func undoLast(now: Double) -> [BoardEffect] {
        guard let change = ownChanges.done.last else {
            say("Nothing to undo: this board has no change left to take back.", now: now)
            return []
        }
        return [.undo(change)]
    }

    /// Ctrl-R: asks to make the last change taken back again, or says there is none.
    mutating func redoLast(now: Double) -> [BoardEffect] {
        guard let change = ownChanges.undone.last else {
            say("Nothing to redo.", now: now)
            return []
        }
        return [.redo(change)]
    }

    /// The change a tap made, for the undo stack: the team around its win.
    static func tap(of team: Team) -> TeamChange {
        var before = team
        before.wins -= 1
        return TeamChange(action: .tap, before: before, after: team)
    }

    /// The outcome of an edit, an undo or a redo.
    mutating func updateForUndoAndEdit(_ event: BoardEvent, data: some BoardData, now: Double) {
        switch event {
        case .edited(let change):
            mode = .browsing
            ownChanges.record(change)
            select(change, data: data)
            say(change.summary, now: now)
        case .editRefused(let message):
            if case .editing(var form, let team) = mode {
                form.message = message
                form.messageIsHint = false
                mode = .editing(form, team: team)
            }
        case .undid(let undo):
            ownChanges.didUndo()
            select(undo, data: data)
            say("Undid: " + (undo.undoneChange ?? undo).summary, now: now)
        case .undoRefused(let message):
            ownChanges.didRefuseUndo()
            say(message, isError: true, for: Self.errorSeconds, now: now)
        case .redid(let change):
            ownChanges.didRedo(as: change)
            select(change, data: data)
            say("Redid: " + change.summary, now: now)
        case .redoRefused(let message):
            ownChanges.didRefuseRedo()
            say(message, isError: true, for: Self.errorSeconds, now: now)
        default:
            break
        }
    }

    /// Puts the cursor on the changed team when it shows (the cursor stays on an edited team
    /// through a move to another zone).
    private mutating func select(_ change: TeamChange, data: some BoardData) {
        guard change.after != nil, let id = change.teamID, let position = data.position(of: id) else { return }
        table.select(position)
    }
}
