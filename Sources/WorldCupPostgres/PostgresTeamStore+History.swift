import Foundation
import LiveResultsPostgres
import PostgresNIO
import WorldCup

/// Edits and the history, on PostgreSQL (undos and redos: PostgresTeamStore+Undo). Every write has an id (a UUID) recorded in
/// its history entry by the same statement (`PostgresRecordedWrite`): a write resent after a
/// lost connection finds its entry and is not made again (`exactlyOnce`, beside the
/// connection in PostgresTeamStore+Connection). The history is
/// pruned by the writes themselves (`PostgresRecordedWrite`), so no statement of its own
/// stands on a write's path.
extension PostgresTeamStore {
    @discardableResult
    public func edit(teamID: Int64, name: String?, zone: String?, wins: Int?) throws -> TeamChange {
        try refuseIfReadOnly()
        let writeID = UUID()
        return try exactlyOnce(orElse: "so the change may or may not have been saved") { connection, resend in
            try repeatWhileRaced(writeID, connection, resend: resend) {
                guard let current = try Self.team(id: teamID, connection) else { throw WorldCupError("That team no longer exists.") }
                var edited = try TeamValidation.edited(current, name: name, zone: zone, wins: wins, zones: zone == nil ? [] : Self.zoneNames(connection))
                try TeamValidation.checkName(of: edited, heldBy: Self.team(nameKey: Team.nameKey(edited.teamName), connection))
                try Self.placeInZone(&edited, connection)
                var change = TeamChange(action: .edit, before: current, after: edited)
                let write = PostgresRecordedWrite(change: change, writeID: writeID, author: author, guarded: .unchanged(current), apply: .update(edited))
                guard let written = try recordedWrite(write, connection) else { return nil }
                change.entryID = written.entryID
                return change
            }
        }
    }

    public func history(limit: Int) throws -> [HistoryEntry] {
        try run { connection in
            try Self.query(connection, "SELECT \(unescaped: Self.historyColumns) FROM history ORDER BY id DESC LIMIT \(Int64(limit))").map(Self.entry)
        }
    }

    public func history(after id: Int64, limit: Int) throws -> [HistoryEntry] {
        try run { connection in
            try Self.query(connection, """
                SELECT \(unescaped: Self.historyColumns) FROM history WHERE id > \(id) ORDER BY id LIMIT \(Int64(limit))
                """).map(Self.entry)
        }
    }

    /// The entry with this id, if the history still has it.
    static func entry(id: Int64, _ connection: PostgresConnection) throws -> HistoryEntry? {
        try query(connection, "SELECT \(unescaped: historyColumns) FROM history WHERE id = \(id)").map(entry).first
    }

    /// The team with this id, if any.
    static func team(id: Int64, _ connection: PostgresConnection) throws -> Team? {
        try query(connection, "SELECT \(unescaped: PostgresSchema.teamColumns) FROM team WHERE team.id = \(id)").map(Team.init(postgresRow:)).first
    }

    /// The columns `entry(_:)` reads.
    static let historyColumns = #"""
        id, to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'), author, action, "teamID", "teamName",
        "oldName", "oldZone", "oldImage", "oldWins", "newName", "newZone", "newImage", "newWins", undid, "undoneBy", reverts, refused,
        "oldPosition", "newPosition", "intoZoneID", "intoName", "teamIDs"
        """#

    /// A history entry from a row of `historyColumns`, by the rule both stores share.
    static func entry(_ row: PostgresRow) throws -> HistoryEntry {
        let cells = row.makeRandomAccess()
        func side(_ first: Int) throws -> HistoryRow.Side {
            HistoryRow.Side(name: try cells[first].decode(String?.self), zone: try cells[first + 1].decode(String?.self),
                            image: try cells[first + 2].decode(String?.self), wins: try cells[first + 3].decode(Int32?.self).map(Int.init))
        }
        var history = try HistoryRow(id: cells[0].decode(Int64.self), at: cells[1].decode(String.self), author: cells[2].decode(String.self),
                                     action: cells[3].decode(String.self), teamID: cells[4].decode(Int64.self), teamName: cells[5].decode(String.self),
                                     old: side(6), new: side(10), undid: cells[14].decode(String?.self), undoneBy: cells[15].decode(Int64?.self),
                                     reverts: cells[16].decode(Int64?.self), refused: cells[17].decode(Bool.self))
        history.zone = try HistoryRow.ZoneColumns(oldPosition: cells[18].decode(Int32?.self).map(Int.init), newPosition: cells[19].decode(Int32?.self).map(Int.init),
                                                  intoZoneID: cells[20].decode(Int64?.self), intoName: cells[21].decode(String?.self),
                                                  teamIDs: cells[22].decode(String?.self))
        return try history.entry()
    }
}
