/// An undo or a redo of a history entry, as both stores make it: which entries it may take,
/// its plan, what it records, and its sentences. (The SQL is each store's.)
public enum Revert: Sendable {
    /// Takes a change back.
    case undo
    /// Makes the change an undo took back again.
    case redo

    /// Refuses an entry this revert cannot take: another author's, an undo to undo, or
    /// anything but an undo to redo.
    public func check(_ entry: HistoryEntry, author: String) throws {
        guard entry.by == author else {
            throw Refusal("Entry \(entry.id) is \(WorldCupError.quotable(entry.by))'s, so it is theirs to take back.")
        }
        switch self {
        case .undo where entry.change.action == .undo:
            throw Refusal("Entry \(entry.id) is an undo, and an undo is not taken back by another: redo it instead (worldcup redo \(entry.id)).")
        case .redo where entry.change.action != .undo:
            throw Refusal("Entry \(entry.id) is not an undo, so there is nothing to redo.")
        default:
            return
        }
    }

    /// The plan for `entry` given the team as it is now; a refusal names the entry.
    public func plan(_ entry: HistoryEntry, current: Team?) throws -> UndoPlan {
        try refusing(entry) {
            switch self {
            case .undo: try entry.change.undoPlan(current: current)
            case .redo: try entry.change.redoPlan(current: current)
            }
        }
    }

    /// The plan for `entry`, a zone's change (or, to redo, the undo of one), given the zone
    /// as it is now, the zone its teams went to, and whether any of them left it since
    /// (`ZoneChange.revertPlan`); a refusal names the entry.
    public func zonePlan(_ entry: HistoryEntry, current: Zone?, into: Zone?, teamsLeft: Bool) throws -> ZonePlan {
        try refusing(entry) {
            guard let zone = entry.change.zone, let action = self == .undo ? entry.change.action : entry.change.undid else {
                throw Refusal("Entry \(entry.id) changed no zone.")
            }
            return try zone.revertPlan(action, self, current: current, into: into, teamsLeft: teamsLeft)
        }
    }

    /// The change a zone's plan made, as its entry records it (`wrote`: what the store wrote):
    /// an undo, or for a redo the action the undo took back.
    public func zoneChange(_ entry: HistoryEntry, wrote: ZoneChange) -> TeamChange {
        switch self {
        case .undo: TeamChange(action: .undo, zone: wrote, undid: entry.change.action)
        case .redo: TeamChange(action: entry.change.undid ?? .renameZone, zone: wrote)
        }
    }

    /// Runs `body`; a refusal it throws names `entry`, so the store marks it refused.
    public func refusing<T>(_ entry: HistoryEntry, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch var refusal as Refusal {
            refusal.entryID = entry.id
            throw refusal
        }
    }

    /// The change the plan makes, as its entry records it: an undo, or for a redo the action
    /// the undo took back (a tap's redo is a tap).
    public func change(_ entry: HistoryEntry, plan: UndoPlan, current: Team?) -> TeamChange {
        switch self {
        case .undo: plan.change(.undo, undid: entry.change.action, current: current)
        case .redo: plan.change(entry.change.undid ?? .edit, current: current)
        }
    }

    /// Throws the refusal for an entry the history does not have (never was, or pruned).
    public static func missing(_ entryID: Int64) throws -> HistoryEntry {
        throw Refusal("There is no history entry \(entryID) (worldcup history shows the ids).")
    }

    /// The sentence for an author with nothing left to undo or redo.
    public func nothingLeft(_ author: String) -> String {
        switch self {
        case .undo: "There is nothing of \(WorldCupError.quotable(author))'s to undo."
        case .redo: "There is nothing of \(WorldCupError.quotable(author))'s to redo."
        }
    }

    /// The clause a refusal of the author's latest ends with: the next one is reached next,
    /// and the refused one by its id.
    public func passedOver(_ entryID: Int64) -> String {
        let command = self == .undo ? "undo" : "redo"
        return "; the next worldcup \(command) goes on to the one before (worldcup \(command) \(entryID) tries this one again)"
    }
}
