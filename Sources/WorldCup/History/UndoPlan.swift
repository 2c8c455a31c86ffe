import Foundation

/// How a store takes a change back, decided from the team as it is now (`TeamChange.undoPlan`).
/// The rules (README, "Undo"): an undo never overwrites somebody else's later change.
public enum UndoPlan: Equatable, Sendable {
    /// Take one win off the team with this id: a decrement, which commutes with others' taps.
    case takeWin(teamID: Int64)
    /// Delete the team, which is exactly as the add left it.
    case delete(Team)
    /// Insert the deleted team again, with its id, name, zone and wins.
    case insert(Team)
    /// Put back the fields the edit changed (`current` with them restored).
    case restore(Team)

    /// The team as the undo leaves it (nil when it deletes it).
    public var result: Team? {
        switch self {
        case .takeWin: nil
        case .delete: nil
        case .insert(let team), .restore(let team): team
        }
    }
}

extension TeamChange {
    /// How to take this change back, given the team with its id as it is now (`current`, nil
    /// when there is none), or the one sentence that says why it cannot be:
    /// - a tap: one win off, whoever tapped since, while the team exists and has a win;
    /// - an add: the team goes, unless it was tapped, renamed or moved since;
    /// - a delete: the team comes back as it was, with its id, unless the id is back already
    ///   (the name's freedom is the store's to check, `TeamValidation.nameTaken`);
    /// - an edit: the fields it changed come back, unless one of them has changed since.
    ///
    /// An undo itself is not taken back (redo makes the change again).
    public func undoPlan(current: Team?) throws -> UndoPlan {
        let name = WorldCupError.quotable(teamName)
        switch action {
        case .tap:
            guard let current, let id = current.id else { throw WorldCupError("\(name) no longer exists, so its win cannot be taken back.") }
            guard current.wins > 0 else { throw WorldCupError("\(name) has no win left to take back.") }
            return .takeWin(teamID: id)
        case .add:
            guard let current, let after else { throw WorldCupError("\(name) is gone already, so there is nothing to take back.") }
            guard current.teamName == after.teamName, current.qualifyingZone == after.qualifyingZone, current.wins == after.wins else {
                throw WorldCupError("\(WorldCupError.quotable(current.teamName)) has changed since it was added (\(current.wins) \(current.wins == 1 ? "win" : "wins") now), so it was kept: delete it with d if it should go.")
            }
            return .delete(current)
        case .delete:
            guard let before else { throw WorldCupError("There is nothing to bring back.") }
            guard current == nil else { throw WorldCupError("\(name) is back already.") }
            return .insert(before)
        case .edit:
            guard var restored = current, let before, let after else {
                throw WorldCupError("\(name) no longer exists, so the edit cannot be taken back.")
            }
            if before.teamName != after.teamName {
                guard restored.teamName == after.teamName else { throw changedSince(restored, "renamed") }
                restored.teamName = before.teamName
            }
            if before.qualifyingZone != after.qualifyingZone {
                guard restored.qualifyingZone == after.qualifyingZone else { throw changedSince(restored, "moved") }
                restored.qualifyingZone = before.qualifyingZone
            }
            if before.wins != after.wins {
                guard restored.wins == after.wins else { throw changedSince(restored, "tapped") }
                restored.wins = before.wins
            }
            return .restore(restored)
        case .undo:
            throw WorldCupError("An undo is not taken back by another undo: redo it instead.")
        }
    }

    /// The sentence for an edit whose field was changed by someone since.
    private func changedSince(_ current: Team, _ how: String) -> WorldCupError {
        WorldCupError("\(WorldCupError.quotable(current.teamName)) has been \(how) since the edit, so the edit was not taken back.")
    }

    /// The record of taking this change back by `plan` (`current`: the team before the undo).
    public func undone(by plan: UndoPlan, current: Team?) -> TeamChange {
        switch plan {
        case .takeWin:
            var after = current
            after?.wins -= 1
            return TeamChange(action: .undo, before: current, after: after, undid: action)
        case .delete(let team): return TeamChange(action: .undo, before: team, after: nil, undid: action)
        case .insert(let team): return TeamChange(action: .undo, before: nil, after: team, undid: action)
        case .restore(let team): return TeamChange(action: .undo, before: current, after: team, undid: action)
        }
    }
}
