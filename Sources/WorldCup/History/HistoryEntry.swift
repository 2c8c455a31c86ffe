import Foundation

/// One line of a store's history (`TeamStore.history(limit:)`): who changed which team,
/// when, and how. Written in the same transaction as the change, so it never disagrees with
/// the board.
public struct HistoryEntry: Hashable, Sendable {
    /// The entry's position: later changes have larger ones.
    public var id: Int64
    /// When the change was committed (UTC, to the second at least).
    public var at: Date
    /// Who made it (`Author`).
    public var by: String
    /// The change: its action and the team before and after (for an undo, `undid` says what
    /// it took back).
    public var change: TeamChange
    /// For a change taken back since: the id of the undo's entry.
    public var undoneBy: Int64?

    public init(id: Int64, at: Date, by: String, change: TeamChange, undoneBy: Int64? = nil) {
        self.id = id
        self.at = at
        self.by = by
        self.change = change
        self.undoneBy = undoneBy
    }

    /// The most entries a store keeps: older ones are pruned as new ones come (the last hour's
    /// are always kept, so a write resent after a lost connection still finds its id).
    public static let retainedCount = 10_000

    /// How often (in entries) a store prunes its history: once every so many writes.
    public static let pruneInterval: Int64 = 100
}

extension HistoryEntry {
    /// The entry as one line of `worldcup history`: "2026-11-26 09:30:12  fan@laptop  Ghana +1 win.".
    public var line: String {
        let time = ISO8601DateFormatter.string(from: at, timeZone: TimeZone(identifier: "UTC")!, formatOptions: [.withFullDate, .withTime, .withColonSeparatorInTime, .withSpaceBetweenDateAndTime])
        let undone = undoneBy == nil ? "" : " (undone)"
        return "\(time)  \(WorldCupError.quotable(by))  \(change.summary)\(undone)"
    }

    /// The entry as `worldcup history --json` writes it: `at` (ISO 8601, UTC), `by`,
    /// `action`, `team` (its name at that change), and what changed: `old` and `new` (name,
    /// zone, wins: a number, for a tap too) where there were values before and after; `undid`
    /// for an undo.
    public var jsonObject: [String: Any] {
        var object: [String: Any] = [
            "at": ISO8601DateFormatter.string(from: at, timeZone: TimeZone(identifier: "UTC")!, formatOptions: [.withInternetDateTime]),
            "by": by,
            "action": change.action.rawValue,
            "team": change.teamName,
        ]
        func values(_ team: Team) -> [String: Any] {
            ["name": team.teamName, "zone": team.qualifyingZone, "wins": team.wins]
        }
        // Every action the same way, a tap too (its wins n → n + 1): `wins` is always a number.
        if let before = change.before { object["old"] = values(before) }
        if let after = change.after { object["new"] = values(after) }
        if let undid = change.undid { object["undid"] = undid.rawValue }
        if undoneBy != nil { object["undone"] = true }
        return object
    }

    /// Entries as a JSON array, keys sorted, ending with a newline.
    public static func json(_ entries: [HistoryEntry]) throws -> Data {
        try JSONSerialization.data(withJSONObject: entries.map(\.jsonObject), options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]) + Data("\n".utf8)
    }
}

extension TeamChange {
    /// The change a history entry records, from its columns: `old` and `new` are the team's
    /// values before and after where the store recorded them. A tap may record only one side
    /// (its win is the difference).
    public init(recorded action: Action, teamID: Int64, teamName: String, old: Team?, new: Team?, undid: Action?) {
        var old = old, new = new
        if action == .tap || (action == .undo && undid == .tap) {
            let step = action == .tap ? 1 : -1
            if new == nil, var derived = old { derived.wins += step; new = derived }
            if old == nil, var derived = new { derived.wins -= step; old = derived }
        }
        old?.id = teamID
        new?.id = teamID
        if old == nil, new == nil { old = Team(id: teamID, teamName: teamName, qualifyingZone: "", imageName: "") }
        self.init(action: action, before: old, after: new, undid: undid)
    }
}
