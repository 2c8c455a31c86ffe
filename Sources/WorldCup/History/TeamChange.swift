import Foundation

/// One change a person made to the teams or the zones: what a board keeps to take it back
/// (`u`), and what the history records. A tap's `before` and `after` are the team around its
/// win; an add has no `before`, a delete no `after`. A change of a zone (a rename, a move, a
/// merge, or an undo or redo of one) has no team: `zone` says what it did.
public struct TeamChange: Hashable, Sendable {
    /// What was done, as the history and `worldcup history --json` name it.
    public enum Action: String, Codable, CaseIterable, Sendable {
        case tap, add, delete, edit, undo
        /// A zone renamed, moved, or merged into another (`zone` says how).
        case renameZone, moveZone, mergeZone
        /// The whole board put back to the seed (`worldcup reset`): no team of its own, and
        /// never taken back (the teams before it are gone).
        case reset

        /// Whether the action changes a zone rather than a team.
        public var isZone: Bool { [.renameZone, .moveZone, .mergeZone].contains(self) }
    }

    public var action: Action
    /// The team before the change (nil for an add).
    public var before: Team?
    /// The team after the change (nil for a delete).
    public var after: Team?
    /// For an undo: the action it took back.
    public var undid: Action?
    /// The id of the history entry that records the change, once made (`TeamStore` returns
    /// it with every change): what an undo or a redo names, so that the entry taken back is
    /// the one this change made, never one found by its author and team.
    public var entryID: Int64?
    /// For a change of a zone (or its undo): what it did to the zone, in one entry.
    public var zone: ZoneChange?

    public init(action: Action, before: Team?, after: Team?, undid: Action? = nil, entryID: Int64? = nil) {
        self.action = action
        self.before = before
        self.after = after
        self.undid = undid
        self.entryID = entryID
    }

    /// A change of a zone: `action` (a zone's, or an undo with `undid` a zone's) and what it wrote.
    public init(action: Action, zone: ZoneChange, undid: Action? = nil, entryID: Int64? = nil) {
        self.init(action: action, before: nil, after: nil, undid: undid, entryID: entryID)
        self.zone = zone
    }

    /// The entry of a reset: every team and zone replaced by the seed's (`Action.reset`).
    public static var reset: TeamChange { TeamChange(action: .reset, before: nil, after: nil) }

    /// Whether the change is a zone's (or the undo of one).
    public var isZoneChange: Bool { zone != nil }

    /// For an undo, the change it took back (its before and after swapped); nil otherwise.
    /// "Undid: " says its `summary`.
    public var undoneChange: TeamChange? {
        undid.map { undid in
            var change = TeamChange(action: undid, before: after, after: before)
            change.zone = zone?.reversed
            return change
        }
    }

    /// The team after the change (before it, for a delete): every recorded change has one.
    public var team: Team {
        guard let team = after ?? before else { preconditionFailure("a change without a team: \(self)") }
        return team
    }

    /// The team's id.
    public var teamID: Int64? { after?.id ?? before?.id }

    /// The team's name after the change (before it, for a delete); for a zone's change, the
    /// zone's name after it (before it, for a merge).
    public var teamName: String { zone?.name ?? (after ?? before)?.teamName ?? "" }

    /// The change as a clause a status line shows after "Undid: " or an author's name:
    /// "Ghana +1 win.", "Added Ghana to Africa.", "Ghana renamed Gahna → Ghana.".
    public var summary: String {
        if let zone { return zoneSummary(zone) }
        let name = WorldCupError.quotable(teamName)
        switch action {
        case .tap:
            return "\(name) +1 win."
        case .add:
            return "Added \(name) to \(WorldCupError.quotable(after?.qualifyingZone ?? ""))."
        case .delete:
            return "Deleted \(name)."
        case .edit:
            return "Edited \(name): " + editedFields.joined(separator: ", ") + "."
        case .undo:
            switch undid {
            case .tap: return "\(name) −1 win (undo)."
            case .add: return "Took back the add of \(name)."
            case .delete: return "Brought back \(name)."
            case .edit, .undo, .renameZone, .moveZone, .mergeZone, .reset, nil: return "Edited \(name) back: " + editedFields.joined(separator: ", ") + "."
            }
        case .renameZone, .moveZone, .mergeZone:
            return "Changed the zone \(name)."
        case .reset:
            return "Reset the board to the seed's teams."
        }
    }

    /// A zone's change as a clause: "Renamed Africa to CAF.", "Moved CAF to position 3.",
    /// "Merged africa into Africa (2 teams).", and their undos.
    private func zoneSummary(_ zone: ZoneChange) -> String {
        let before = WorldCupError.quotable(zone.before?.name ?? ""), after = WorldCupError.quotable(zone.after?.name ?? "")
        let into = WorldCupError.quotable(zone.into?.name ?? "")
        let teams = "\(zone.teamIDs.count) \(zone.teamIDs.count == 1 ? "team" : "teams")"
        switch (action == .undo ? undid : action) ?? action {
        case .renameZone:
            return action == .undo ? "Renamed \(before) back to \(after)." : "Renamed \(before) to \(after)."
        case .moveZone:
            let position = (zone.after?.position ?? 0) + 1
            return action == .undo ? "Moved \(after) back to position \(position)." : "Moved \(after) to position \(position)."
        case .mergeZone:
            return action == .undo ? "Took \(after) back out of \(into) (\(teams))." : "Merged \(before) into \(into) (\(teams))."
        default:
            return "Changed the zone \(WorldCupError.quotable(zone.name))."
        }
    }

    /// What an edit (or the undo of one) changed, as "name Gahna → Ghana", "zone …", "wins 3 → 4".
    var editedFields: [String] {
        guard let before, let after else { return [] }
        var fields: [String] = []
        if before.teamName != after.teamName {
            fields.append("name \(WorldCupError.quotable(before.teamName)) → \(WorldCupError.quotable(after.teamName))")
        }
        if before.qualifyingZone != after.qualifyingZone {
            fields.append("zone \(WorldCupError.quotable(before.qualifyingZone)) → \(WorldCupError.quotable(after.qualifyingZone))")
        }
        if before.wins != after.wins { fields.append("wins \(before.wins) → \(after.wins)") }
        return fields.isEmpty ? ["nothing"] : fields
    }
}
