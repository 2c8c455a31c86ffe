import Foundation
import LiveResultsPostgres
import PostgresNIO
import WorldCup

/// Zones on PostgreSQL: listing them, finding or making a team's, and renaming, moving and
/// merging them. A zone's change is one transaction that holds the zone table's lock (`SHARE
/// ROW EXCLUSIVE`: zone changes and new zones wait for each other; taps, adds and edits in
/// zones that exist do not) and writes its history entry with its write id, so a change
/// resent after a lost connection finds its entry and happens once (`exactlyOnce`).
extension PostgresTeamStore {
    public func zones() throws -> [ZoneListing] {
        try run { connection in
            try Self.query(connection, """
                SELECT id, name, position, (SELECT count(*) FROM team WHERE team."zoneID" = zone.id) FROM zone ORDER BY position, id
                """).map { row in
                let (id, name, position, count) = try row.decode((Int64, String, Int32, Int64).self)
                return ZoneListing(zone: Zone(id: id, name: name, position: Int(position)), teamCount: Int(count))
            }
        }
    }

    public func zone(named name: String) throws -> Zone? {
        let key = Zone.nameKey(TeamValidation.trimmed(name))
        return try run { connection in try Self.zone(nameKey: key, connection) }
    }

    public func changeZone(_ zoneID: Int64, _ edit: ZoneEdit) throws -> TeamChange { try zoneEdit(zoneID, edit) }

    /// Makes the plan `decide` makes of the zone `zoneID` as it is, with its history entry,
    /// in one transaction under the zone table's lock.
    package func zoneWrite(_ zoneID: Int64, decide: (Zone, RevertSession) throws -> ZonePlan) throws -> TeamChange {
        try refuseIfReadOnly()
        let writeID = UUID()
        // The merge a rename asks for is an answer, not a failure of the connection.
        let outcome = try exactlyOnce(orElse: "so the change may or may not have been saved") { connection, resend -> Result<TeamChange, ZoneMergeNeeded> in
            do {
                return .success(try repeatWhileRaced(writeID, connection, resend: resend) {
                    try Self.transaction(connection) {
                        try Self.lockZones(connection)
                        guard let zone = try Self.zone(id: zoneID, connection) else { throw ZonePlan.noZone }
                        let plan = try decide(zone, RevertSession(connection: connection, writeID: writeID, resend: resend))
                        var change = TeamChange(action: plan.action, zone: try Self.apply(plan, connection))
                        change.entryID = try record(change, writeID: writeID, reverts: nil, connection)
                        return change
                    }
                })
            } catch let merge as ZoneMergeNeeded {
                return .failure(merge)
            }
        }
        return try outcome.get()
    }

    // A zone's revert, in PostgreSQL's words (`RevertingStore`).

    /// One transaction under the zone table's lock that claims the entry while it is not
    /// taken back: `body` is given the entry as it is under the lock (another program may
    /// have taken it back since it was read).
    package func zoneRevert(_ entry: HistoryEntry, in session: RevertSession, _ body: (HistoryEntry) throws -> TeamChange) throws -> TeamChange? {
        let connection = session.connection
        return try Self.transaction(connection) {
            try Self.lockZones(connection)
            let claimed = try Self.query(connection, "SELECT \(unescaped: Self.historyColumns) FROM history WHERE id = \(entry.id) FOR UPDATE")
                .map(Self.entry).first ?? entry
            return try body(claimed)
        }
    }

    package func zone(id: Int64, in session: RevertSession) throws -> Zone? { try Self.zone(id: id, session.connection) }

    package func zoneCount(in session: RevertSession) throws -> Int {
        Int(try Self.query(session.connection, "SELECT count(*) FROM zone").single(Int64.self) ?? 0)
    }

    package func zone(nameKey key: String, in session: RevertSession) throws -> Zone? { try Self.zone(nameKey: key, session.connection) }

    package func teamsLeft(_ teamIDs: [Int64], zone zoneID: Int64, in session: RevertSession) throws -> Bool {
        try Self.query(session.connection, """
            SELECT EXISTS (SELECT 1 FROM team WHERE id = ANY(\(teamIDs)::int8[]) AND "zoneID" <> \(zoneID))
            """).single(Bool.self) ?? false
    }

    package func apply(_ plan: ZonePlan, in session: RevertSession) throws -> ZoneChange { try Self.apply(plan, session.connection) }

    package func record(zoneChange change: TeamChange, reverts: Int64, in session: RevertSession) throws -> Int64 {
        try record(change, writeID: session.writeID, reverts: reverts, session.connection)
    }

    /// Writes a zone's change's history entry with the write's id (inside the caller's
    /// transaction); returns its id.
    private func record(_ change: TeamChange, writeID: UUID, reverts: Int64?, _ connection: PostgresConnection) throws -> Int64 {
        let zone = change.zone ?? ZoneChange(before: nil, after: nil)
        let columns = HistoryRow.ZoneColumns(zone)
        let id = try Self.query(connection, """
            INSERT INTO history ("writeID", author, action, "teamID", "teamName", "oldName", "newName", undid, reverts,
                "oldPosition", "newPosition", "intoZoneID", "intoName", "teamIDs")
            VALUES (\(writeID), \(author), \(change.action.rawValue), \(zone.zoneID ?? 0), \(change.teamName), \(zone.before?.name), \(zone.after?.name),
                \(change.undid?.rawValue), \(reverts), \(columns.oldPosition.map(Int32.init)), \(columns.newPosition.map(Int32.init)),
                \(columns.intoZoneID), \(columns.intoName), \(columns.teamIDs))
            RETURNING id
            """).single(Int64.self) ?? 0
        ownEntries.insert(id)
        return id
    }

    /// Writes `plan` (inside the caller's transaction, under the zone table's lock), keeping
    /// positions 0, 1, 2 … without gaps; returns what it wrote.
    static func apply(_ plan: ZonePlan, _ connection: PostgresConnection) throws -> ZoneChange {
        switch plan {
        case .rename(let zone, let name):
            try query(connection, #"UPDATE zone SET name = \#(name), "nameKey" = \#(Zone.nameKey(name)) WHERE id = \#(zone.id ?? 0)"#)
            return plan.recorded(after: Zone(id: zone.id, name: name, position: zone.position))
        case .move(let zone, let position):
            let (from, to) = (Int32(zone.position), Int32(position))
            try query(connection, """
                UPDATE zone SET position = CASE WHEN id = \(zone.id ?? 0) THEN \(to) WHEN \(to) < \(from) THEN position + 1 ELSE position - 1 END
                WHERE id = \(zone.id ?? 0) OR position BETWEEN least(\(from), \(to)) AND greatest(\(from), \(to))
                """)
            return plan.recorded(after: Zone(id: zone.id, name: zone.name, position: position))
        case .merge(let zone, let into):
            let (id, target) = (zone.id ?? 0, into.id ?? 0)
            let teamIDs = try query(connection, #"UPDATE team SET "zoneID" = \#(target) WHERE "zoneID" = \#(id) RETURNING id"#)
                .map { try $0.decode(Int64.self) }.sorted()
            try query(connection, "DELETE FROM zone WHERE id = \(id)")
            try query(connection, "UPDATE zone SET position = position - 1 WHERE position > \(Int32(zone.position))")
            return plan.recorded(after: nil, into: try Self.zone(id: target, connection), teamIDs: teamIDs)
        case .unmerge(let zone, let from, let teamIDs):
            let count = try query(connection, "SELECT count(*) FROM zone").single(Int64.self) ?? 0
            let position = min(zone.position, Int(count))
            try query(connection, "UPDATE zone SET position = position + 1 WHERE position >= \(Int32(position))")
            try query(connection, #"""
                INSERT INTO zone (id, name, "nameKey", position) VALUES (\#(zone.id ?? 0), \#(zone.name), \#(Zone.nameKey(zone.name)), \#(Int32(position)))
                """#)
            let moved = try query(connection, #"""
                UPDATE team SET "zoneID" = \#(zone.id ?? 0) WHERE "zoneID" = \#(from.id ?? 0) AND id = ANY(\#(teamIDs)::int8[]) RETURNING id
                """#).map { try $0.decode(Int64.self) }.sorted()
            return plan.recorded(after: Zone(id: zone.id, name: zone.name, position: position), into: try self.zone(id: from.id ?? 0, connection), teamIDs: moved)
        }
    }

    /// Sets `team.zoneID` to the zone its `qualifyingZone` names (ignoring case and
    /// normalisation), taking that zone's spelling, and makes the zone when there is none,
    /// placed alphabetically (`Zone.insertionPosition`), in a transaction of its own under
    /// the zone table's lock. A zone made so and then left empty (the write after it failed)
    /// stays, as an empty zone does.
    static func placeInZone(_ team: inout Team, _ connection: PostgresConnection) throws {
        let name = TeamValidation.trimmed(team.qualifyingZone)
        let key = Zone.nameKey(name)
        if let zone = try zone(nameKey: key, connection) {
            (team.zoneID, team.qualifyingZone) = (zone.id, zone.name)
            return
        }
        let made = try transaction(connection) {
            try lockZones(connection)
            if let zone = try zone(nameKey: key, connection) { return zone }
            let zones = try query(connection, "SELECT id, name, position FROM zone").map { row in
                let (id, name, position) = try row.decode((Int64, String, Int32).self)
                return Zone(id: id, name: name, position: Int(position))
            }
            let position = Int32(Zone.insertionPosition(of: name, among: zones))
            try query(connection, "UPDATE zone SET position = position + 1 WHERE position >= \(position)")
            let id = try query(connection, #"INSERT INTO zone (name, "nameKey", position) VALUES (\#(name), \#(key), \#(position)) RETURNING id"#)
                .single(Int64.self)
            return Zone(id: id, name: name, position: Int(position))
        }
        (team.zoneID, team.qualifyingZone) = (made.id, made.name)
    }

    /// Takes the zone table's lock for the rest of the transaction.
    static func lockZones(_ connection: PostgresConnection) throws {
        try query(connection, "LOCK TABLE zone IN SHARE ROW EXCLUSIVE MODE")
    }

    /// Every zone's name, for an edit's spelling (`TeamValidation.edited`).
    static func zoneNames(_ connection: PostgresConnection) throws -> [String] {
        try query(connection, #"SELECT name FROM zone ORDER BY name COLLATE "C""#).map { try $0.decode(String.self) }
    }

    /// The zone whose name key is `key`, if any.
    static func zone(nameKey key: String, _ connection: PostgresConnection) throws -> Zone? {
        try query(connection, #"SELECT id, name, position FROM zone WHERE "nameKey" = \#(key)"#).map(zone(row:)).first
    }

    /// The zone with this id, if any.
    static func zone(id: Int64, _ connection: PostgresConnection) throws -> Zone? {
        try query(connection, "SELECT id, name, position FROM zone WHERE id = \(id)").map(zone(row:)).first
    }

    private static func zone(row: PostgresRow) throws -> Zone {
        let (id, name, position) = try row.decode((Int64, String, Int32).self)
        return Zone(id: id, name: name, position: Int(position))
    }
}
