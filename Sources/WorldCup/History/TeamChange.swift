import Foundation

/// One change a person made to the teams: what a board keeps to take it back (`u`), and what
/// the history records. A tap's `before` and `after` are the team around its win; an add has
/// no `before`, a delete no `after`.
public struct TeamChange: Hashable, Sendable {
    /// What was done, as the history and `worldcup history --json` name it.
    public enum Action: String, Codable, CaseIterable, Sendable {
        case tap, add, delete, edit, undo
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

    public init(action: Action, before: Team?, after: Team?, undid: Action? = nil, entryID: Int64? = nil) {
        self.action = action
        self.before = before
        self.after = after
        self.undid = undid
        self.entryID = entryID
    }

    /// For an undo, the change it took back (its before and after swapped); nil otherwise.
    /// "Undid: " says its `summary`.
    public var undoneChange: TeamChange? {
        undid.map { TeamChange(action: $0, before: after, after: before) }
    }

    /// The team after the change (before it, for a delete): every recorded change has one.
    public var team: Team {
        guard let team = after ?? before else { preconditionFailure("a change without a team: \(self)") }
        return team
    }

    /// The team's id.
    public var teamID: Int64? { after?.id ?? before?.id }

    /// The team's name after the change (before it, for a delete).
    public var teamName: String { (after ?? before)?.teamName ?? "" }

    /// The change as a clause a status line shows after "Undid: " or an author's name:
    /// "Ghana +1 win.", "Added Ghana to Africa.", "Ghana renamed Gahna → Ghana.".
    public var summary: String {
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
            case .edit, .undo, nil: return "Edited \(name) back: " + editedFields.joined(separator: ", ") + "."
            }
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
