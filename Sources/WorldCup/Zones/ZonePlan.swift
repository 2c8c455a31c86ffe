/// How a store changes a zone, as a new change (`TeamStore.renameZone`, `moveZone`,
/// `mergeZone`) or to take one back or make it again (`ZoneChange.revertPlan`). Each is one
/// transaction with its one history entry; the SQL is each store's.
public enum ZonePlan: Equatable, Sendable {
    /// The zone (as it is) takes this name.
    case rename(Zone, to: String)
    /// The zone (as it is) goes to this position (0 first); the zones between shift by one.
    case move(Zone, to: Int)
    /// The zone's teams, all of them, go to `into`, and the zone goes.
    case merge(Zone, into: Zone)
    /// The zone is made again with its id, name and position, and the teams of `teamIDs`
    /// that are in `from` go back to it.
    case unmerge(Zone, from: Zone, teamIDs: [Int64])

    /// The action a new change of this plan is recorded as.
    public var action: TeamChange.Action {
        switch self {
        case .rename: .renameZone
        case .move: .moveZone
        case .merge, .unmerge: .mergeZone
        }
    }

    /// The name the plan gives a zone, whose freedom among the other zones the store checks
    /// (`checkName(heldBy:)`).
    public var nameTaken: String? {
        switch self {
        case .rename(_, let name): name
        case .unmerge(let zone, _, _): zone.name
        case .move, .merge: nil
        }
    }

    /// The zone the plan changes (or makes again).
    public var zone: Zone {
        switch self {
        case .rename(let zone, _), .move(let zone, _), .merge(let zone, _), .unmerge(let zone, _, _): zone
        }
    }

    /// Throws when `holder` (the zone with the plan's name, ignoring case and normalisation)
    /// is another zone: for a new rename, the merge to ask about (`ZoneMergeNeeded`); for an
    /// undo or a redo (`reverting`), a refusal.
    public func checkName(heldBy holder: Zone?, reverting: Revert?) throws {
        guard let holder, holder.id != zone.id, let name = nameTaken else { return }
        guard let reverting else { throw ZoneMergeNeeded(zone: zone, into: holder) }
        throw Refusal("A zone named \(quoted(holder.name)) exists again, so \(quoted(name)) was not \(reverting.done).")
    }

    /// The change as its entry records it, given what the store wrote: the zone after
    /// (`after`: nil for a merge), the zone the teams went to, and the teams moved.
    public func recorded(after: Zone?, into: Zone? = nil, teamIDs: [Int64] = []) -> ZoneChange {
        switch self {
        case .rename(let zone, _), .move(let zone, _): ZoneChange(before: zone, after: after)
        case .merge(let zone, let target): ZoneChange(before: zone, after: nil, into: into ?? target, teamIDs: teamIDs)
        case .unmerge(_, let from, _): ZoneChange(before: nil, after: after, into: into ?? from, teamIDs: teamIDs)
        }
    }
}

/// A name in a sentence: “Africa”, made safe (`WorldCupError.quotable`).
func quoted(_ name: String) -> String {
    "“\(WorldCupError.quotable(name))”"
}

extension Revert {
    /// How a refusal says what was not done: "taken back", "made again".
    var done: String { self == .undo ? "taken back" : "made again" }
}

extension ZoneChange {
    /// How to take back this change of `action` (an undo), or make again the change an undo
    /// took back (a redo: this is the undo's change, `action` the one it took back), given
    /// the zone with its id as it is now (`current`), the zone the teams went to (`into`, for
    /// a merge) and whether any of `teamIDs` that still exists is elsewhere than it
    /// (`teamsLeft`). The rule is the team's: nothing the revert would overwrite may have
    /// changed since; the values this change wrote must still be there.
    /// - a rename: the name comes back while the zone still has the name it was given;
    /// - a move: the position comes back while the zone is still where it was moved;
    /// - a merge: the zone comes back (its id, name and position) with the teams that went,
    ///   while it is not back already, the zone they went to exists and none of them left it;
    /// - a merge's undo, made again: the zone merges again while both still exist.
    public func revertPlan(_ action: TeamChange.Action, _ revert: Revert, current: Zone?, into: Zone?, teamsLeft: Bool = false) throws -> ZonePlan {
        let what: String
        switch action {
        case .renameZone: what = "rename"
        case .moveZone: what = "move"
        default: what = "merge"
        }
        let refused = "so the \(what) was not \(revert.done)"
        switch action {
        case .renameZone, .moveZone:
            guard let written = after, let wanted = before else { throw Refusal("There is nothing to take back.") }
            guard let current else { throw Refusal("The zone \(quoted(written.name)) no longer exists, \(refused).") }
            if action == .renameZone {
                guard current.name == written.name else {
                    throw Refusal("The zone \(quoted(written.name)) has been renamed since (\(quoted(current.name)) now), \(refused).")
                }
                return .rename(current, to: wanted.name)
            }
            guard current.position == written.position else {
                throw Refusal("The zone \(quoted(current.name)) has moved since (position \(current.position + 1) now), \(refused).")
            }
            return .move(current, to: wanted.position)
        default:
            if let gone = before, after == nil {
                // A merge, taken back: its zone comes back out of the one it went into.
                guard current == nil else { throw Refusal("The zone \(quoted(gone.name)) is back already.") }
                guard let into else { throw Refusal("The zone \(quoted(self.into?.name ?? "")) no longer exists, \(refused).") }
                guard !teamsLeft else {
                    throw Refusal("Teams of \(quoted(gone.name)) have left \(quoted(into.name)) since, \(refused).")
                }
                return .unmerge(gone, from: into, teamIDs: teamIDs)
            }
            // A merge's undo, made again (or taken back): the zone merges again.
            guard let back = after else { throw Refusal("There is nothing to take back.") }
            guard let current else { throw Refusal("The zone \(quoted(back.name)) no longer exists, \(refused).") }
            guard let into else { throw Refusal("The zone \(quoted(self.into?.name ?? "")) no longer exists, \(refused).") }
            return .merge(current, into: into)
        }
    }
}
