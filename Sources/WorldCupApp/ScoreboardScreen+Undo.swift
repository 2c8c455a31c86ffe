import LiveResults
import WorldCup

/// The writes of `e`, `u` and Ctrl-R.
extension ScoreboardScreen {
    /// Makes an edit, an undo or a redo in the store; returns the event of its outcome.
    func ownWrite(_ effect: BoardEffect) throws -> BoardEvent {
        switch effect {
        case let .edit(id, name, zone, wins):
            return .edited(try scoreboard.edit(teamID: id, name: name, zone: zone, wins: wins))
        case .undo(let change):
            return .undid(try scoreboard.undo(change))
        case .redo(let change):
            return .redid(try redo(change))
        default:
            preconditionFailure("not an edit, an undo or a redo: \(effect)")
        }
    }

    /// Makes a change taken back again: one more win, the team added or deleted again, or
    /// the edit's fields set again. Returns the change as made (an add's team has a new id).
    private func redo(_ change: TeamChange) throws -> TeamChange {
        switch change.action {
        case .tap:
            let team = try scoreboard.tap(teamID: change.teamID ?? -1)
            return BoardModel.tap(of: team)
        case .add:
            let team = try scoreboard.add(name: change.teamName, zone: change.after?.qualifyingZone ?? "")
            return TeamChange(action: .add, before: nil, after: team)
        case .delete:
            return TeamChange(action: .delete, before: try scoreboard.delete(teamID: change.teamID ?? -1), after: nil)
        case .edit, .undo:
            guard let before = change.before, let after = change.after, let id = change.teamID else { return change }
            return try scoreboard.edit(teamID: id, name: before.teamName == after.teamName ? nil : after.teamName,
                                       zone: before.qualifyingZone == after.qualifyingZone ? nil : after.qualifyingZone,
                                       wins: before.wins == after.wins ? nil : after.wins)
        }
    }
}

extension BoardEffect {
    /// The event that says why this edit, undo or redo was refused.
    var refusal: (String) -> BoardEvent {
        switch self {
        case .edit: BoardEvent.editRefused
        case .redo: BoardEvent.redoRefused
        default: BoardEvent.undoRefused
        }
    }
}
