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
        guard let undo = ownChanges.undone.last else {
            say("Nothing to redo.", now: now)
            return []
        }
        return [.redo(undo)]
    }

    /// Records a new change this board made (by its history entry), for `u`.
    mutating func recordOwn(_ change: TeamChange) {
        if change.entryID != nil { ownChanges.record(change) }
    }

    /// The outcome of an edit, an undo or a redo.
    mutating func updateForUndoAndEdit(_ event: BoardEvent, data: some BoardData, now: Double) {
        switch event {
        case .edited(let change):
            mode = .browsing
            recordOwn(change)
            select(change, data: data)
            say(change.summary, now: now)
        case .editRefused(let message):
            if case .editing(var form, let team) = mode {
                form.message = message
                form.messageIsHint = false
                mode = .editing(form, team: team)
            }
        case let .undid(entry, undo):
            ownChanges.didUndo(entry, by: undo)
            select(undo, data: data)
            say("Undid: " + (undo.undoneChange ?? undo).summary, now: now)
        case let .undoRefused(entry, message):
            ownChanges.didRefuseUndo(entry)
            say(message, isError: true, for: Self.errorSeconds, now: now)
        case let .redid(undo, redo):
            ownChanges.didRedo(undo, by: redo)
            select(redo, data: data)
            say("Redid: " + redo.summary, now: now)
        case let .redoRefused(undo, message):
            ownChanges.didRefuseRedo(undo)
            say(message, isError: true, for: Self.errorSeconds, now: now)
        case .undoFailed(let message):
            say(Self.keptAfter(message, key: "u"), isError: true, for: Self.errorSeconds, now: now)
        case .redoFailed(let message):
            say(Self.keptAfter(message, key: "Ctrl-R"), isError: true, for: Self.errorSeconds, now: now)
        default:
            break
        }
    }

    /// A failure's sentence, saying that the change is kept to be asked again with `key`.
    static func keptAfter(_ message: String, key: String) -> String {
        let base = message.hasSuffix(".") ? String(message.dropLast()) : message
        return "\(base): press \(key) to try again."
    }

    /// Puts the cursor on the changed team when it shows (the cursor stays on an edited team
    /// through a move to another zone).
    private mutating func select(_ change: TeamChange, data: some BoardData) {
        guard change.after != nil, let id = change.teamID, let position = data.position(of: id) else { return }
        table.select(position)
    }
}
