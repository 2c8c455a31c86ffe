import Foundation
import Testing
import WorldCup

/// Zones you can rename, move and merge (issue 43), the same on both stores: each change is one
/// history entry with its author, taken back and made again by its entry with the rules of
/// every change (never over somebody else's later change), and a new zone takes its place
/// alphabetically. Each check is given `open`, which opens the same seeded board (the
/// sample's 32 teams, five zones) for an author.
public enum ZoneContract {
    public typealias Open = UndoContract.Open

    public static func all(_ fresh: () async throws -> Open) async throws {
        try theSeedsZonesAreAlphabetical(await fresh())
        try aRenameIsOneEntryTakenBackAndMadeAgain(await fresh())
        try aRenameToAnotherZonesNameAsksForAMerge(await fresh())
        try aMoveRenumbersAndIsTakenBack(await fresh())
        try aMergeIsTakenBackWithItsTeams(await fresh())
        try aNewZoneTakesItsPlaceAlphabetically(await fresh())
        try zoneChangesAreCheckedBeforeAnythingIsWritten(await fresh())
    }

    static let seedZones = ["Africa", "Asia", "Europe", "North, Central America & Caribbean", "South America"]

    static func names(_ store: any TeamStore) throws -> [String] {
        try store.zones().map(\.zone.name)
    }

    static func refusal(_ body: () throws -> Void) -> String? {
        do { try body() } catch { return "\(error)" }
        return nil
    }

    /// The seed's zones, each once, in alphabetical order, numbered from 0 without gaps,
    /// holding the seed's teams; the board lists the teams zone by zone in that order.
    public static func theSeedsZonesAreAlphabetical(_ open: Open) throws {
        let fan = try open("fan@laptop")
        let zones = try fan.zones()
        #expect(zones.map(\.zone.name) == seedZones)
        #expect(zones.map(\.zone.position) == Array(0..<5))
        #expect(zones.map(\.teamCount) == [5, 4, 13, 4, 6])
        let teams = try fan.teams()
        #expect(teams.map(\.qualifyingZone) == zones.flatMap { Array(repeating: $0.zone.name, count: $0.teamCount) })
        #expect(teams.allSatisfy { team in zones.first { $0.zone.id == team.zoneID }?.zone.name == team.qualifyingZone })
    }

    /// A rename changes the zone of every team in it with one entry by its author; its undo
    /// and redo go by that entry, and an undo is refused once someone renamed the zone since.
    public static func aRenameIsOneEntryTakenBackAndMadeAgain(_ open: Open) throws {
        let fan = try open("fan@laptop"), guest = try open("guest@pc")
        let africa = try #require(try fan.zone(named: "africa"))
        let before = try fan.history(limit: 1).first?.id ?? 0
        let rename = try fan.renameZone(named: "Africa", to: " CAF ")
        #expect(rename.action == .renameZone && rename.summary == "Renamed Africa to CAF.")
        let entries = try fan.history(limit: 10).filter { $0.id > before }
        #expect(entries.count == 1, "one entry, not one per team")
        #expect(entries.first?.by == "fan@laptop" && entries.first?.id == rename.entryID && entries.first?.change == rename)
        #expect(try guest.zone(named: "caf") == Zone(id: africa.id, name: "CAF", position: 0))
        #expect(try guest.teams().filter { $0.zoneID == africa.id }.allSatisfy { $0.qualifyingZone == "CAF" })
        #expect(try guest.team(named: "Ghana")?.qualifyingZone == "CAF")
        // Another case of its own name is a rename, not a merge.
        let recased = try fan.renameZone(zoneID: africa.id!, to: "caf")
        #expect(try names(fan)[0] == "caf")
        try fan.undo(recased)
        let undo = try fan.undo(rename)
        #expect(undo.action == .undo && undo.undid == .renameZone && undo.summary == "Renamed CAF back to Africa.")
        #expect(try names(guest) == seedZones)
        let redo = try fan.redo(entryID: undo.entryID!)
        #expect(redo.action == .renameZone && redo.summary == "Renamed Africa to CAF.")
        // Renamed by someone else since: the undo would overwrite it, and is refused.
        try guest.renameZone(named: "CAF", to: "Confederation")
        #expect(refusal { try fan.undo(redo) } == "The zone “CAF” has been renamed since (“Confederation” now), so the rename was not taken back.")
        #expect(try names(fan)[0] == "Confederation")
        #expect(try fan.history(limit: 1).first?.change.summary == "Renamed CAF to Confederation.")
    }

    /// Renaming a zone to another zone's name (ignoring case) changes nothing and says which
    /// merge it would be; the caller asks, then merges.
    public static func aRenameToAnotherZonesNameAsksForAMerge(_ open: Open) throws {
        let fan = try open("fan@laptop")
        let africa = try #require(try fan.zone(named: "Africa")), asia = try #require(try fan.zone(named: "Asia"))
        let before = try fan.history(limit: 1).first?.id ?? 0
        #expect(throws: ZoneMergeNeeded(zone: africa, into: asia)) { try fan.renameZone(zoneID: africa.id!, to: "ASIA") }
        #expect(try names(fan) == seedZones)
        #expect(try fan.history(limit: 1).first?.id ?? 0 == before, "nothing recorded")
        #expect(ZoneMergeNeeded(zone: africa, into: asia).question == "Asia is already a zone: merge Africa into it?")
    }

    /// A move renumbers the zones between, in one entry; its undo puts the zone back while
    /// it is where it was moved; someone's move since refuses it.
    public static func aMoveRenumbersAndIsTakenBack(_ open: Open) throws {
        let fan = try open("fan@laptop"), guest = try open("guest@pc")
        let move = try fan.moveZone(named: "Africa", to: 3)
        #expect(move.summary == "Moved Africa to position 4.")
        #expect(try names(guest) == ["Asia", "Europe", "North, Central America & Caribbean", "Africa", "South America"])
        #expect(try guest.zones().map(\.zone.position) == Array(0..<5))
        #expect(try guest.teams().first?.qualifyingZone == "Asia", "the board's order follows the positions")
        let undo = try fan.undoLast()
        #expect(undo.summary == "Moved Africa back to position 1.")
        #expect(try names(guest) == seedZones)
        let redo = try fan.redoLast()
        #expect(try names(guest)[3] == "Africa" && redo.action == .moveZone)
        try guest.moveZone(named: "South America", to: 0)
        #expect(refusal { try fan.undo(redo) } == "The zone “Africa” has moved since (position 5 now), so the move was not taken back.")
        #expect(refusal { try fan.moveZone(named: "Africa", to: 5) } == "There are 5 zones, so the position must be from 1 to 5.")
        #expect(refusal { try fan.moveZone(named: "Africa", to: 4) } == "Africa is at position 5 already, so nothing was changed.")
    }

    /// A merge moves the zone's teams into the other and deletes it, in one entry; its undo
    /// brings the zone back with its id, name, position and teams; refused once one of those
    /// teams has left since; its redo merges again.
    public static func aMergeIsTakenBackWithItsTeams(_ open: Open) throws {
        let fan = try open("fan@laptop"), guest = try open("guest@pc")
        let africa = try #require(try fan.zone(named: "Africa")), asia = try #require(try fan.zone(named: "Asia"))
        let africans = try fan.teams().filter { $0.zoneID == africa.id }
        let before = try fan.history(limit: 1).first?.id ?? 0
        let merge = try fan.mergeZone(named: "Africa", into: "asia")
        #expect(merge.summary == "Merged Africa into Asia (5 teams).")
        #expect(try fan.history(limit: 10).filter { $0.id > before }.count == 1)
        #expect(try fan.zone(named: "Africa") == nil)
        #expect(try guest.zones().map(\.teamCount) == [9, 13, 4, 6])
        #expect(try guest.zones().map(\.zone.position) == Array(0..<4))
        #expect(try guest.team(named: "Ghana")?.qualifyingZone == "Asia")
        let undo = try fan.undo(merge)
        #expect(undo.summary == "Took Africa back out of Asia (5 teams).")
        #expect(try fan.zone(named: "Africa") == africa)
        #expect(try guest.teams().filter { $0.zoneID == africa.id } == africans)
        #expect(try guest.zones().map(\.teamCount) == [5, 4, 13, 4, 6])
        let redo = try fan.redoLast()
        #expect(redo.summary == "Merged Africa into Asia (5 teams).")
        // A team that went leaves the zone it went to: the merge is no longer taken back.
        let ghana = try #require(try guest.team(named: "Ghana"))
        try guest.edit(teamID: ghana.id!, name: nil, zone: "Europe", wins: nil)
        #expect(refusal { try fan.undo(redo) } == "Teams of “Africa” have left “Asia” since, so the merge was not taken back.")
        #expect(try fan.zone(named: "Africa") == nil)
        #expect(asia.id != nil)
    }

    /// A team added in a new zone makes the zone, placed alphabetically; a zone typed in
    /// another case joins the zone there.
    public static func aNewZoneTakesItsPlaceAlphabetically(_ open: Open) throws {
        let fan = try open("fan@laptop")
        let added = try fan.add(name: "Atlantis", zone: "Oceania")
        #expect(added.qualifyingZone == "Oceania")
        #expect(try names(fan) == ["Africa", "Asia", "Europe", "North, Central America & Caribbean", "Oceania", "South America"])
        #expect(try fan.zones().map(\.zone.position) == Array(0..<6))
        #expect(try fan.add(name: "Lemuria", zone: "oceania").qualifyingZone == "Oceania")
        #expect(try fan.add(name: "Antarctica", zone: "Antarctic").qualifyingZone == "Antarctic")
        #expect(try names(fan).prefix(2) == ["Africa", "Antarctic"])
        // The zone stays when its last team goes (empty, with no section on the board).
        try fan.delete(named: "Antarctica")
        #expect(try fan.zones().first { $0.zone.name == "Antarctic" }?.teamCount == 0)
    }

    /// Names, positions and merges that break a rule change nothing and say so.
    public static func zoneChangesAreCheckedBeforeAnythingIsWritten(_ open: Open) throws {
        let fan = try open("fan@laptop")
        let africa = try #require(try fan.zone(named: "Africa"))
        #expect(refusal { try fan.renameZone(zoneID: africa.id!, to: "  ") } == "The qualifying zone is empty.")
        #expect(refusal { try fan.renameZone(zoneID: africa.id!, to: "Africa") } == "The zone is already named Africa, so nothing was changed.")
        #expect(refusal { try fan.mergeZone(zoneID: africa.id!, into: africa.id!) } == "A zone is not merged into itself.")
        #expect(refusal { try fan.renameZone(named: "Atlantis", to: "X") } == "There is no zone named “Atlantis” (worldcup zones lists them).")
        #expect(try names(fan) == seedZones)
        #expect(try fan.history(limit: 1).isEmpty)
    }
}
