/// What a change of a zone did, as its history entry records it (`TeamChange.zone`): one
/// entry for the whole zone, not one per team.
/// - a rename: `before` and `after` are the zone around its new name;
/// - a move: `before` and `after` are the zone around its new position;
/// - a merge of A into B: `before` is A as it was, `after` nil (A is gone), `into` B, and
///   `teamIDs` A's teams, which went to B.
/// An undo records the values it wrote the same way (a merge's undo: `after` is A again).
public struct ZoneChange: Hashable, Sendable {
    public var before: Zone?
    public var after: Zone?
    /// For a merge (and its undo and redo): the zone the teams went to.
    public var into: Zone?
    /// For a merge (and its undo and redo): the teams that went from one zone to the other.
    public var teamIDs: [Int64]

    public init(before: Zone?, after: Zone?, into: Zone? = nil, teamIDs: [Int64] = []) {
        self.before = before
        self.after = after
        self.into = into
        self.teamIDs = teamIDs
    }

    /// The zone's id (A's, for a merge).
    public var zoneID: Int64? { after?.id ?? before?.id }

    /// The zone's name after the change (before it, for a merge).
    public var name: String { (after ?? before)?.name ?? "" }

    /// The change with its sides swapped: what an undo writes, or what an undo took back.
    public var reversed: ZoneChange {
        ZoneChange(before: after, after: before, into: into, teamIDs: teamIDs)
    }

    /// `teamIDs` as the history's `teamIDs` column keeps them: "4,17,31" (nil when none).
    public var teamIDsText: String? {
        teamIDs.isEmpty ? nil : teamIDs.map(String.init).joined(separator: ",")
    }

    /// The ids of a `teamIDs` column.
    public static func teamIDs(_ text: String?) -> [Int64] {
        (text ?? "").split(separator: ",").compactMap { Int64($0) }
    }
}

/// The zone merge a rename asks for: the new name is another zone's, ignoring case and
/// normalisation. Nothing was changed; the caller asks the person, then calls
/// `TeamStore.mergeZone(zoneID:into:)`.
public struct ZoneMergeNeeded: Error, Equatable, CustomStringConvertible, Sendable {
    /// The zone being renamed.
    public var zone: Zone
    /// The zone whose name it asked for.
    public var into: Zone

    public init(zone: Zone, into: Zone) {
        self.zone = zone
        self.into = into
    }

    /// The question a terminal asks, without its answer ("[y/N]").
    public var question: String {
        "\(WorldCupError.quotable(into.name)) is already a zone: merge \(WorldCupError.quotable(zone.name)) into it?"
    }

    public var description: String {
        "\(quoted(into.name)) is already a zone, so \(quoted(zone.name)) was not renamed: to merge it into that zone, give --merge (or answer y on a terminal)."
    }
}
