import Foundation
import GRDB
import WorldCup

/// Zones on SQLite: listing them, finding or making a team's, and renaming, moving and
/// merging them, each in one transaction with its one history entry (`record`), undone and
/// redone through the same entry by the rules both stores share (`RevertingStore`).
extension SQLiteTeamStore {
    public func zones() throws -> [ZoneListing] {
        try DatabaseFile.readable {
            try database.read { db in
                try Row.fetchAll(db, sql: """
                    SELECT id, name, position, (SELECT count(*) FROM team WHERE team.zoneID = zone.id) AS teams
                    FROM zone ORDER BY position, id
                    """).map { row in ZoneListing(zone: Zone(id: row["id"], name: row["name"], position: row["position"]), teamCount: row["teams"]) }
            }
        }
    }

    public func zone(named name: String) throws -> Zone? {
        try DatabaseFile.readable { try database.read { db in try Self.zone(nameKey: Zone.nameKey(TeamValidation.trimmed(name)), db) } }
    }

    public func changeZone(_ zoneID: Int64, _ edit: ZoneEdit) throws -> TeamChange { try zoneEdit(zoneID, edit) }

    /// Makes the plan `decide` makes of the zone `zoneID` as it is, in one transaction with
    /// its history entry.
    package func zoneWrite(_ zoneID: Int64, decide: (Zone, Database) throws -> ZonePlan) throws -> TeamChange {
        try recordedWrite { db in
            guard let zone = try Self.zone(id: zoneID, db) else { throw ZonePlan.noZone }
            let plan = try decide(zone, db)
            return TeamChange(action: plan.action, zone: try Self.apply(plan, db))
        }
    }

    // A zone's revert, in SQLite's words (`RevertingStore`): inside the revert's transaction.

    package func zoneRevert(_ entry: HistoryEntry, in db: Database, _ body: (HistoryEntry) throws -> TeamChange) throws -> TeamChange? {
        try body(entry)
    }

    package func zone(id: Int64, in db: Database) throws -> Zone? { try Self.zone(id: id, db) }

    package func zoneCount(in db: Database) throws -> Int { try Int.fetchOne(db, sql: "SELECT count(*) FROM zone") ?? 0 }

    package func zone(nameKey key: String, in db: Database) throws -> Zone? { try Self.zone(nameKey: key, db) }

    package func teamsLeft(_ teamIDs: [Int64], zone zoneID: Int64, in db: Database) throws -> Bool {
        try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM team WHERE id IN (SELECT value FROM json_each(?)) AND zoneID != ?)",
                          arguments: [Self.jsonArray(teamIDs), zoneID]) ?? false
    }

    package func apply(_ plan: ZonePlan, in db: Database) throws -> ZoneChange { try Self.apply(plan, db) }

    package func record(zoneChange change: TeamChange, reverts: Int64, in db: Database) throws -> Int64 {
        try record(change, reverts: reverts, db)
    }

    /// Writes `plan`, keeping positions 0, 1, 2 … without gaps; returns what it wrote.
    static func apply(_ plan: ZonePlan, _ db: Database) throws -> ZoneChange {
        switch plan {
        case .rename(let zone, let name):
            try db.execute(sql: "UPDATE zone SET name = ?, nameKey = ? WHERE id = ?", arguments: [name, Zone.nameKey(name), zone.id])
            return plan.recorded(after: Zone(id: zone.id, name: name, position: zone.position))
        case .move(let zone, let position):
            if position < zone.position {
                try db.execute(sql: "UPDATE zone SET position = position + 1 WHERE position >= ? AND position < ?", arguments: [position, zone.position])
            } else {
                try db.execute(sql: "UPDATE zone SET position = position - 1 WHERE position > ? AND position <= ?", arguments: [zone.position, position])
            }
            try db.execute(sql: "UPDATE zone SET position = ? WHERE id = ?", arguments: [position, zone.id])
            return plan.recorded(after: Zone(id: zone.id, name: zone.name, position: position))
        case .merge(let zone, let into):
            let teamIDs = try Int64.fetchAll(db, sql: "SELECT id FROM team WHERE zoneID = ? ORDER BY id", arguments: [zone.id])
            try db.execute(sql: "UPDATE team SET zoneID = ? WHERE zoneID = ?", arguments: [into.id, zone.id])
            try db.execute(sql: "DELETE FROM zone WHERE id = ?", arguments: [zone.id])
            try db.execute(sql: "UPDATE zone SET position = position - 1 WHERE position > ?", arguments: [zone.position])
            return plan.recorded(after: nil, into: try Self.zone(id: into.id ?? 0, db), teamIDs: teamIDs)
        case .unmerge(let zone, let from, let teamIDs):
            let count = try Int.fetchOne(db, sql: "SELECT count(*) FROM zone") ?? 0
            let position = min(zone.position, count)
            try db.execute(sql: "UPDATE zone SET position = position + 1 WHERE position >= ?", arguments: [position])
            try db.execute(sql: "INSERT INTO zone (id, name, nameKey, position) VALUES (?, ?, ?, ?)",
                           arguments: [zone.id, zone.name, Zone.nameKey(zone.name), position])
            let moved = try Int64.fetchAll(db, sql: """
                UPDATE team SET zoneID = ?1 WHERE zoneID = ?2 AND id IN (SELECT value FROM json_each(?3)) RETURNING id
                """, arguments: [zone.id, from.id, jsonArray(teamIDs)]).sorted()
            return plan.recorded(after: Zone(id: zone.id, name: zone.name, position: position), into: try Self.zone(id: from.id ?? 0, db), teamIDs: moved)
        }
    }

    /// Sets `team.zoneID` to the zone its `qualifyingZone` names (ignoring case and
    /// normalisation), taking that zone's spelling, and makes the zone when there is none:
    /// placed alphabetically among the zones (`Zone.insertionPosition`).
    static func placeInZone(_ team: inout Team, _ db: Database) throws {
        let name = TeamValidation.trimmed(team.qualifyingZone)
        if let zone = try zone(nameKey: Zone.nameKey(name), db) {
            (team.zoneID, team.qualifyingZone) = (zone.id, zone.name)
            return
        }
        let zones = try Row.fetchAll(db, sql: "SELECT id, name, position FROM zone").map { Zone(id: $0["id"], name: $0["name"], position: $0["position"]) }
        let position = Zone.insertionPosition(of: name, among: zones)
        try db.execute(sql: "UPDATE zone SET position = position + 1 WHERE position >= ?", arguments: [position])
        try db.execute(sql: "INSERT INTO zone (name, nameKey, position) VALUES (?, ?, ?)", arguments: [name, Zone.nameKey(name), position])
        (team.zoneID, team.qualifyingZone) = (db.lastInsertedRowID, name)
    }

    /// Every zone's name, for an edit's spelling (`TeamValidation.edited`).
    static func zoneNames(_ db: Database) throws -> [String] {
        try String.fetchAll(db, sql: "SELECT name FROM zone ORDER BY name")
    }

    /// The zone whose name key is `key`, if any.
    static func zone(nameKey key: String, _ db: Database) throws -> Zone? {
        try Row.fetchOne(db, sql: "SELECT id, name, position FROM zone WHERE nameKey = ?", arguments: [key])
            .map { Zone(id: $0["id"], name: $0["name"], position: $0["position"]) }
    }

    /// The zone with this id, if any.
    static func zone(id: Int64, _ db: Database) throws -> Zone? {
        try Row.fetchOne(db, sql: "SELECT id, name, position FROM zone WHERE id = ?", arguments: [id])
            .map { Zone(id: $0["id"], name: $0["name"], position: $0["position"]) }
    }

    /// Ids as a JSON array, for `json_each`.
    static func jsonArray(_ ids: [Int64]) -> String {
        "[" + ids.map(String.init).joined(separator: ",") + "]"
    }
}
