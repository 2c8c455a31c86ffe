import Foundation

/// How a store takes a change back (`TeamChange.undoPlan`) or makes a change taken back again
/// (`TeamChange.redoPlan`), decided from the team as it is now. The rules (README, "Undo"):
/// neither ever overwrites somebody else's later change.
public enum UndoPlan: Equatable, Sendable {
    /// Take one win off the team with this id: a decrement, which commutes with others' taps.
    case takeWin(teamID: Int64)
    /// Give the team with this id one more win (a tap's redo is a tap again).
    case giveWin(teamID: Int64)
    /// Delete the team, which is exactly as the change left it.
    case delete(Team)
    /// Insert the team again, with its id, name, zone and wins.
    case insert(Team)
    /// Put back the fields the change changed (`current` with them restored).
    case restore(Team)

    /// The team's id.
    public var teamID: Int64? {
        switch self {
        case .takeWin(let id), .giveWin(let id): id
        case .delete(let team), .insert(let team), .restore(let team): team.id
        }
    }

    /// The change this plan makes to `current` (the team as it is, read under the write's
    /// lock), as its history entry records it: the values it actually writes.
    public func change(_ action: TeamChange.Action, undid: TeamChange.Action? = nil, current: Team?) -> TeamChange {
        switch self {
        case .takeWin, .giveWin:
            var after = current
            if case .takeWin = self { after?.wins -= 1 } else { after?.wins += 1 }
            return TeamChange(action: action, before: current, after: after, undid: undid)
        case .delete(let team): return TeamChange(action: action, before: team, after: nil, undid: undid)
        case .insert(let team): return TeamChange(action: action, before: nil, after: team, undid: undid)
        case .restore(let team): return TeamChange(action: action, before: current, after: team, undid: undid)
        }
    }

    /// The name the team takes back, for a plan that brings back or renames a team (its
    /// freedom is the store's to check, `checkName(heldBy:)`).
    public var nameTaken: String? {
        switch self {
        case .insert(let team), .restore(let team): team.teamName
        case .takeWin, .giveWin, .delete: nil
        }
    }

    /// Throws the plan's refusal when `holder` (the team that has the plan's team's name,
    /// ignoring case and normalisation, if any) is another team: a team brought back or
    /// renamed back must not take a name taken since.
    public func checkName(heldBy holder: Team?) throws {
        guard let holder, holder.id != teamID else { return }
        switch self {
        case .insert:
            throw Refusal("A team named “\(WorldCupError.quotable(holder.teamName))” exists again, so the deleted one was not brought back.")
        case .restore:
            throw Refusal(TeamValidation.nameTaken(by: holder.teamName).description)
        case .takeWin, .giveWin, .delete:
            return
        }
    }
}

extension TeamChange {
    /// How to take this change back, given the team with its id as it is now (`current`, nil
    /// when there is none), or the refusal that says why it cannot be:
    /// - a tap: one win off, whoever tapped since, while the team exists and has a win;
    /// - an add: the team goes, unless it was tapped, renamed or moved since;
    /// - a delete: the team comes back as it was, with its id, unless the id is back already
    ///   (the name's freedom is the store's to check, `UndoPlan.checkName(heldBy:)`);
    /// - an edit: the fields it changed come back, unless one of them has changed since.
    ///
    /// An undo itself is not taken back (redo makes the change again).
    public func undoPlan(current: Team?) throws -> UndoPlan {
        let name = WorldCupError.quotable(teamName)
        switch action {
        case .tap:
            guard let current, let id = current.id else { throw Refusal("\(name) no longer exists, so its win cannot be taken back.") }
            guard current.wins > 0 else { throw Refusal("\(name) has no win left to take back.") }
            return .takeWin(teamID: id)
        case .add:
            guard let current, let after else { throw Refusal("\(name) is gone already, so there is nothing to take back.") }
            guard Self.sameValues(current, after) else {
                throw Refusal("\(WorldCupError.quotable(current.teamName)) has changed since it was added (\(current.wins) \(current.wins == 1 ? "win" : "wins") now), so it was kept: delete it with d if it should go.")
            }
            return .delete(current)
        case .delete:
            guard let before else { throw Refusal("There is nothing to bring back.") }
            guard current == nil else { throw Refusal("\(name) is back already.") }
            return .insert(before)
        case .edit:
            guard let current, let before, let after else { throw Refusal("\(name) no longer exists, so the edit cannot be taken back.") }
            return .restore(try Self.fields(of: current, from: after, to: before) { how in
                Refusal("\(WorldCupError.quotable(current.teamName)) has been \(how) since the edit, so the edit was not taken back.")
            })
        case .undo:
            throw Refusal("An undo is not taken back by another undo: redo it instead.")
        case .renameZone, .moveZone, .mergeZone:
            throw Refusal("A zone's change is taken back by its zone's rules (ZonePlan).")
        case .reset:
            throw Refusal("A reset is not taken back: the teams before it are gone.")
        }
    }

    /// For an undo: how to make the change it took back again, given the team with its id as
    /// it is now, or the refusal that says why it cannot be. The undo's own guard: nothing the
    /// redo would overwrite may have changed since the undo.
    /// - a tap: one more win again (taps commute), while the team exists;
    /// - an add: the team comes back with its id (so its later changes can be redone too),
    ///   unless the id is back already (and its name is free: the store checks);
    /// - a delete: the team goes again, unless it was changed since it came back;
    /// - an edit: the fields come back as the edit set them, unless one changed since the undo.
    public func redoPlan(current: Team?) throws -> UndoPlan {
        guard action == .undo, let undid else { throw Refusal("Only an undo can be redone.") }
        let name = WorldCupError.quotable(teamName)
        switch undid {
        case .tap:
            guard let current, let id = current.id else { throw Refusal("\(name) no longer exists, so its win cannot be given back.") }
            return .giveWin(teamID: id)
        case .add:
            guard let before else { throw Refusal("There is nothing to bring back.") }
            guard current == nil else { throw Refusal("\(name) is back already.") }
            return .insert(before)
        case .delete:
            guard let current, let after else { throw Refusal("\(name) is gone already.") }
            guard Self.sameValues(current, after) else {
                throw Refusal("\(WorldCupError.quotable(current.teamName)) has changed since it was brought back, so it was kept.")
            }
            return .delete(current)
        case .edit:
            guard let current, let before, let after else { throw Refusal("\(name) no longer exists, so the edit cannot be made again.") }
            return .restore(try Self.fields(of: current, from: after, to: before) { how in
                Refusal("\(WorldCupError.quotable(current.teamName)) has been \(how) since the undo, so the edit was not made again.")
            })
        case .undo, .reset:
            throw Refusal("An undo is not made again: undo the change instead.")
        case .renameZone, .moveZone, .mergeZone:
            throw Refusal("A zone's change is made again by its zone's rules (ZonePlan).")
        }
    }

    /// `current` with each field that differs between `from` and `to` set to `to`'s, or the
    /// refusal (`changedSince`, given how) when that field of `current` is no longer `from`'s.
    private static func fields(of current: Team, from: Team, to: Team, changedSince: (String) -> Refusal) throws -> Team {
        var result = current
        if from.teamName != to.teamName {
            guard current.teamName == from.teamName else { throw changedSince("renamed") }
            result.teamName = to.teamName
        }
        if from.qualifyingZone != to.qualifyingZone {
            guard current.qualifyingZone == from.qualifyingZone else { throw changedSince("moved") }
            result.qualifyingZone = to.qualifyingZone
        }
        if from.wins != to.wins {
            guard current.wins == from.wins else { throw changedSince("tapped") }
            result.wins = to.wins
        }
        return result
    }

    private static func sameValues(_ one: Team, _ other: Team) -> Bool {
        one.teamName == other.teamName && one.qualifyingZone == other.qualifyingZone && one.wins == other.wins
    }
}
