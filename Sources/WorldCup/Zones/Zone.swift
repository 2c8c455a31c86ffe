import Foundation

/// A qualifying zone: one row of the `zone` table, the section its teams are shown in.
/// Its name is unique ignoring case, accents and Unicode normalisation (`nameKey`); its
/// position orders the board's sections (0 first; `worldcup zones` shows it from 1).
public struct Zone: Hashable, Sendable {
    /// The row id; nil for a zone not saved.
    public var id: Int64?
    public var name: String
    /// The zone's place among the zones, 0 first; positions are 0, 1, 2 … without gaps.
    public var position: Int

    public init(id: Int64? = nil, name: String, position: Int) {
        self.id = id
        self.name = name
        self.position = position
    }

    /// The key under which zone names are unique: case and accents folded (`Team.foldedCaseAndAccents`),
    /// so "Amérique du Sud" typed beside "Amerique du sud" is the same zone: an add joins it
    /// (`Team.existingSpelling(ofZone:among:)`), a rename to it merges. Stricter than a
    /// team's `nameKey`, where accents tell two teams apart: a zone is a group people name
    /// loosely, and two sections told apart by an accent alone are a typo, not two zones.
    public static func nameKey(_ name: String) -> String {
        Team.foldedCaseAndAccents(name)
    }

    /// Where a new zone named `name` goes among `zones` (in the board's order): before the
    /// first one whose name sorts after it (folded, as the board sorts names), else at the
    /// end. On a board in alphabetical order, as every board starts, it keeps that order.
    public static func insertionPosition(of name: String, among zones: [Zone]) -> Int {
        let key = Array(Team.nameSortKey(name).utf8)
        let ordered = zones.sorted { $0.position < $1.position }
        return ordered.first { Array(Team.nameSortKey($0.name).utf8).lexicographicallyPrecedes(key) == false }?.position ?? ordered.count
    }

    /// The positions of zones named `names` when they are numbered alphabetically (folded,
    /// in byte order, as the board sorts names), as a migration numbers them: index = position.
    public static func alphabetical(_ names: [String]) -> [String] {
        names.sorted { Array(Team.nameSortKey($0).utf8).lexicographicallyPrecedes(Array(Team.nameSortKey($1).utf8)) }
    }
}

/// A zone with how many teams it holds, as `worldcup zones` lists it.
public struct ZoneListing: Hashable, Sendable {
    public var zone: Zone
    public var teamCount: Int

    public init(zone: Zone, teamCount: Int) {
        self.zone = zone
        self.teamCount = teamCount
    }

    /// Listings as a JSON array (name, position from 1, teams), keys sorted, ending with a
    /// newline, as `HistoryEntry.json` writes entries.
    public static func json(_ listings: [ZoneListing]) throws -> Data {
        let objects: [[String: Any]] = listings.map { ["name": $0.zone.name, "position": $0.zone.position + 1, "teams": $0.teamCount] }
        return try JSONSerialization.data(withJSONObject: objects, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]) + Data("\n".utf8)
    }
}
