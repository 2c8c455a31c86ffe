import Foundation
import LiveResultsPostgres
import PostgresNIO
import WorldCup

/// Edits and the history, on PostgreSQL (undos and redos: PostgresTeamStore+Undo). Every write has an id (a UUID) recorded in
/// its history entry by the same statement (`PostgresRecordedWrite`): a write resent after a
/// lost connection finds its entry and is not made again (`exactlyOnce`). The history is
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

    /// Runs `attempt` (which returns nil when the team was changed by someone between its read
    /// and its write, or throws on a name taken in that moment) again, up to three times; a
    /// write `writeID` already recorded returns its change. Whether it was is asked before the
    /// first attempt only of a `resend` (an id made a moment ago cannot have been recorded):
    /// a first write costs no statement for it.
    func repeatWhileRaced(_ writeID: UUID, _ connection: PostgresConnection, resend: Bool,
                          _ attempt: () throws -> TeamChange?) throws -> TeamChange {
        for round in 0..<3 {
            if resend || round > 0, let done = try Self.recorded(writeID, connection) { return done }
            do {
                if let result = try attempt() { return result }
            } catch let error as PSQLError where ["23505", "23503", "40P01"].contains(error.serverInfo?[.sqlState]) {
                // A name taken in the moment (the next attempt reads it and says so), a zone
                // merged away in the moment (the next attempt finds the zone again), or a write
                // and a zone's merge that waited for each other (one is rolled back and made again).
                continue
            }
        }
        if let done = try Self.recorded(writeID, connection) { return done }
        throw WorldCupError("The team kept changing while this change was being made; try again.")
    }

    /// Runs `body`, a write whose id is recorded with it, until it gets an answer: when the
    /// connection dies during it (its outcome unknown), a new one is made and `body` sent
    /// again (its `resend` true), for up to `deadline`; `body` then finds its write id
    /// recorded if the first one committed. `orElse` ends the sentence when no answer comes.
    func exactlyOnce<T>(orElse clause: String, _ body: (_ connection: PostgresConnection, _ resend: Bool) throws -> T) throws -> T {
        let start = ContinuousClock.now
        var outcomeUnknown = false
        while true {
            let failure: Failure
            switch attempt({ try body($0, outcomeUnknown) }) {
            case .success(let value): return value
            case .failure(let failed): failure = failed
            }
            let retrying = failure.lost || (outcomeUnknown && !failure.began)
            outcomeUnknown = outcomeUnknown || (failure.lost && failure.began)
            guard retrying, ContinuousClock.now - start < deadline else {
                throw outcomeUnknown ? failure.sentence.appending(clause) : failure.sentence
            }
            if !failure.began { Thread.sleep(forTimeInterval: 0.2) }
        }
    }

    /// The change recorded for the write `writeID` (with its entry's id), if it was made.
    static func recorded(_ writeID: UUID, _ connection: PostgresConnection) throws -> TeamChange? {
        try query(connection, "SELECT \(unescaped: historyColumns) FROM history WHERE \"writeID\" = \(writeID)").map(entry).first?.change
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
