import Foundation

/// One line of a store's history (`TeamStore.history(limit:)`): who changed which team,
/// when, and how. Written in the same transaction as the change, so it never disagrees with
/// the board.
public struct HistoryEntry: Hashable, Sendable {
    /// The entry's position: later changes have larger ones. `worldcup undo ID` names it.
    public var id: Int64
    /// When the change was committed (UTC, to the second).
    public var at: Date
    /// Who made it (`Author`).
    public var by: String
    /// The change: its action and the team before and after (for an undo, `undid` says what
    /// it took back). Its `entryID` is this entry's id.
    public var change: TeamChange
    /// For a change taken back since (or an undo made again since, by a redo): the id of the
    /// entry that took it back.
    public var undoneBy: Int64?
    /// For an undo: the entry it took back; for a redo (recorded with the action it makes
    /// again): the undo it took back. Nil for a new change.
    public var reverts: Int64?
    /// Whether taking this change back (or, for an undo, making it again) was refused by a
    /// rule: `undoLast` and `redoLast` pass over it; its id still reaches it.
    public var refused: Bool

    public init(id: Int64, at: Date, by: String, change: TeamChange, undoneBy: Int64? = nil, reverts: Int64? = nil, refused: Bool = false) {
        self.id = id
        self.at = at
        self.by = by
        self.change = change
        self.change.entryID = id
        self.undoneBy = undoneBy
        self.reverts = reverts
        self.refused = refused
    }

    /// Whether the entry is a redo: a change made again, recorded with its own action.
    public var isRedo: Bool { change.action != .undo && reverts != nil }

    /// The most entries a store keeps: older ones are pruned as new ones come (the last hour's
    /// are always kept, so a write resent after a lost connection still finds its id).
    public static let retainedCount = 10_000

    /// How often (in entries) a store prunes its history: once every so many writes.
    public static let pruneInterval: Int64 = 100

    /// How long every entry is kept, whatever their number: a resend comes within seconds.
    public static let retainedSeconds = 3_600
}

extension HistoryEntry {
    /// The refusal for taking this entry back (or, for an undo, making it again) when
    /// `undoneBy` did so already, by `author`: "Korea +1 win was already taken back by a@pc."
    public func alreadyReverted(by author: String) -> Refusal {
        let (what, done) = change.action == .undo ? ((change.undoneChange ?? change).summary, "made again") : (change.summary, "taken back")
        let clause = what.hasSuffix(".") ? String(what.dropLast()) : what
        return Refusal("\(clause) was already \(done) by \(WorldCupError.quotable(author)).")
    }

    /// The entry as one line of `worldcup history`: "17  2026-11-26 09:30:12  fan@laptop  Ghana +1 win.".
    public var line: String {
        let time = ISO8601DateFormatter.string(from: at, timeZone: TimeZone(identifier: "UTC")!, formatOptions: [.withFullDate, .withTime, .withColonSeparatorInTime, .withSpaceBetweenDateAndTime])
        var marks = ""
        if isRedo { marks += " (redo)" }
        if undoneBy != nil { marks += change.action == .undo ? " (redone)" : " (undone)" }
        return "\(id)  \(time)  \(WorldCupError.quotable(by))  \(change.summary)\(marks)"
    }

    /// The entry as `worldcup history --json` writes it: `id`, `at` (ISO 8601, UTC), `by`,
    /// `action`, `team` (its name at that change; `zone` instead for a zone's change: see
    /// below), and what changed: `old` and `new` (name,
    /// zone, wins: a number, for a tap too) where there were values before and after; `undid`
    /// for an undo; `reverts` (the entry an undo or a redo took back); `undoneBy` and `undone`
    /// for a change taken back.
    public var jsonObject: [String: Any] {
        var object: [String: Any] = [
            "id": id,
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
        if let zone = change.zone {
            // A zone's change: `zone` (its name, after or, for a merge, before), `old` and `new`
            // (name, position from 1), and for a merge `into` and `teams` (the teams' ids).
            object.removeValue(forKey: "team")
            object["zone"] = change.teamName
            func values(_ zone: Zone) -> [String: Any] { ["name": zone.name, "position": zone.position + 1] }
            if let before = zone.before { object["old"] = values(before) }
            if let after = zone.after { object["new"] = values(after) }
            if let into = zone.into { object["into"] = into.name }
            if !zone.teamIDs.isEmpty { object["teams"] = zone.teamIDs }
        }
        // A reset changes no one team: it has none of a team's keys.
        if change.action == .reset { ["team", "old", "new"].forEach { object.removeValue(forKey: $0) } }
        if let undid = change.undid { object["undid"] = undid.rawValue }
        if let reverts { object["reverts"] = reverts }
        if let undoneBy {
            object["undone"] = true
            object["undoneBy"] = undoneBy
        }
        return object
    }

    /// Entries as a JSON array, keys sorted, ending with a newline.
    public static func json(_ entries: [HistoryEntry]) throws -> Data {
        try JSONSerialization.data(withJSONObject: entries.map(\.jsonObject), options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]) + Data("\n".utf8)
    }
}
