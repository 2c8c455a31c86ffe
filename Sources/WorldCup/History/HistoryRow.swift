import Foundation

/// A history entry's columns as both stores keep them (SQLite's `history` table and
/// PostgreSQL's have the same), read into a `HistoryEntry` by one rule.
public struct HistoryRow: Sendable {
    /// The team's name, zone, image and wins before or after the change, where recorded.
    public struct Side: Sendable {
        public var name: String?, zone: String?, image: String?, wins: Int?

        public init(name: String?, zone: String?, image: String?, wins: Int?) {
            (self.name, self.zone, self.image, self.wins) = (name, zone, image, wins)
        }

        var team: Team? {
            guard let name, let zone, let wins else { return nil }
            return Team(teamName: name, qualifyingZone: zone, imageName: image ?? Team.secretImageName, wins: wins)
        }
    }

    public var id: Int64
    /// The time as `HistoryDate` reads it.
    public var at: String
    public var author: String
    public var action: String
    public var teamID: Int64
    public var teamName: String
    public var old: Side
    public var new: Side
    public var undid: String?
    public var undoneBy: Int64?
    public var reverts: Int64?
    public var refused: Bool
    /// For a zone's change (`TeamChange.zone`): `teamID` is the zone's id, `teamName` its
    /// name, `old` and `new` its name (no zone, image or wins) before and after; these hold its
    /// position before and after, and for a merge the zone the teams went to and their ids.
    public var zone = ZoneColumns()

    /// The history's columns only a zone's change fills.
    public struct ZoneColumns: Sendable {
        public var oldPosition: Int?, newPosition: Int?, intoZoneID: Int64?, intoName: String?, teamIDs: String?

        public init(oldPosition: Int? = nil, newPosition: Int? = nil, intoZoneID: Int64? = nil, intoName: String? = nil, teamIDs: String? = nil) {
            (self.oldPosition, self.newPosition, self.intoZoneID, self.intoName, self.teamIDs) = (oldPosition, newPosition, intoZoneID, intoName, teamIDs)
        }

        /// The columns of `change`, a zone's (all nil for a team's).
        public init(_ change: ZoneChange?) {
            self.init(oldPosition: change?.before?.position, newPosition: change?.after?.position, intoZoneID: change?.into?.id,
                      intoName: change?.into?.name, teamIDs: change?.teamIDsText)
        }
    }

    public init(id: Int64, at: String, author: String, action: String, teamID: Int64, teamName: String, old: Side, new: Side,
                undid: String?, undoneBy: Int64?, reverts: Int64?, refused: Bool) {
        (self.id, self.at, self.author, self.action, self.teamID, self.teamName) = (id, at, author, action, teamID, teamName)
        (self.old, self.new, self.undid, self.undoneBy, self.reverts, self.refused) = (old, new, undid, undoneBy, reverts, refused)
    }

    /// The entry, or one sentence when a column holds what no entry can (an unknown action,
    /// a time that is not one): an entry is never shown with a made-up time.
    public func entry() throws -> HistoryEntry {
        guard let action = TeamChange.Action(rawValue: action) else {
            throw WorldCupError("The history entry \(id) cannot be read: “\(WorldCupError.quotable(action))” is not an action.")
        }
        guard let date = HistoryDate.parse(at) else {
            throw WorldCupError("The history entry \(id) cannot be read: “\(WorldCupError.quotable(at))” is not a time.")
        }
        let undid = undid.flatMap(TeamChange.Action.init(rawValue:))
        if action.isZone || undid?.isZone == true {
            let change = TeamChange(action: action, zone: zoneChange, undid: undid)
            return HistoryEntry(id: id, at: date, by: author, change: change, undoneBy: undoneBy, reverts: reverts, refused: refused)
        }
        let change = TeamChange(recorded: action, teamID: teamID, teamName: teamName, old: old.team, new: new.team, undid: undid)
        return HistoryEntry(id: id, at: date, by: author, change: change, undoneBy: undoneBy, reverts: reverts, refused: refused)
    }
}

extension HistoryRow {
    /// A zone's change from its columns.
    var zoneChange: ZoneChange {
        func side(_ name: String?, _ position: Int?) -> Zone? {
            name.map { Zone(id: teamID, name: $0, position: position ?? 0) }
        }
        return ZoneChange(before: side(old.name, zone.oldPosition), after: side(new.name, zone.newPosition),
                          into: zone.intoZoneID.map { Zone(id: $0, name: zone.intoName ?? "", position: 0) },
                          teamIDs: ZoneChange.teamIDs(zone.teamIDs))
    }
}

extension TeamChange {
    /// The change a history entry records, from its columns: `old` and `new` are the team's
    /// values before and after where the store recorded them. A tap written before both
    /// sides were recorded has one (its win is the difference).
    init(recorded action: Action, teamID: Int64, teamName: String, old: Team?, new: Team?, undid: Action?) {
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
