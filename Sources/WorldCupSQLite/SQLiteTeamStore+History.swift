import Foundation
import GRDB
import WorldCup

/// The history on SQLite: each entry is written in its change's own transaction
/// (`record`), and read by the rule both stores share (`HistoryRow`).
extension SQLiteTeamStore {
    public func history(limit: Int) throws -> [HistoryEntry] {
        try DatabaseFile.readable {
            try database.read { db in
                try Row.fetchAll(db, sql: "SELECT * FROM history ORDER BY id DESC LIMIT ?", arguments: [limit]).map(Self.entry)
            }
        }
    }

    public func history(after id: Int64, limit: Int) throws -> [HistoryEntry] {
        try DatabaseFile.readable {
            try database.read { db in
                try Row.fetchAll(db, sql: "SELECT * FROM history WHERE id > ? ORDER BY id LIMIT ?", arguments: [id, limit]).map(Self.entry)
            }
        }
    }

    /// Runs `body` as one write transaction of the store, refused on a read-only store: how
    /// every change of the board is written.
    func writeTransaction<T>(_ body: (Database) throws -> T) throws -> T {
        try refuseIfReadOnly()
        return try DatabaseFile.readable { try database.liveResultsWrite(body) }
    }

    /// Makes the change `body` makes, with its history entry in the same transaction (`writeTransaction`,
    /// `record`). Returns the change with its entry's id.
    func recordedWrite(_ body: (Database) throws -> TeamChange) throws -> TeamChange {
        try writeTransaction { db in
            var change = try body(db)
            change.entryID = try record(change, db)
            return change
        }
    }

    /// Writes `change`'s history entry (by this store's author; `reverts`: the entry an undo
    /// or a redo takes back) in the caller's transaction, and now and then prunes what is
    /// beyond `HistoryEntry.retainedCount`. Returns its id.
    @discardableResult
    func record(_ change: TeamChange, reverts: Int64? = nil, _ db: Database) throws -> Int64 {
        let old = change.before, new = change.after
        let zone = HistoryRow.ZoneColumns(change.zone)
        let statement = try db.cachedStatement(sql: """
            INSERT INTO history (author, action, teamID, teamName, oldName, oldZone, oldImage, oldWins, newName, newZone, newImage, newWins, undid, reverts,
                oldPosition, newPosition, intoZoneID, intoName, teamIDs)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        // A zone's change: its id and name where a team's are, its names before and after. A
        // reset's entry has no team: its id is 0, as no team's is.
        let teamID: Int64 = change.zone?.zoneID ?? change.teamID ?? 0
        try statement.execute(arguments: [
            author, change.action.rawValue, teamID, change.teamName,
            old?.teamName ?? change.zone?.before?.name, old?.qualifyingZone, old?.imageName, old?.wins,
            new?.teamName ?? change.zone?.after?.name, new?.qualifyingZone, new?.imageName, new?.wins, change.undid?.rawValue, reverts,
            zone.oldPosition, zone.newPosition, zone.intoZoneID, zone.intoName, zone.teamIDs,
        ])
        let id = db.lastInsertedRowID
        ownEntries.insert(id)
        if id % HistoryEntry.pruneInterval == 0 {
            let keptSince = "strftime('%Y-%m-%dT%H:%M:%SZ', 'now', '-\(HistoryEntry.retainedSeconds) seconds')"
            try db.execute(sql: HistorySQL.pruning(newest: "?1", keptSince: keptSince), arguments: [id])
        }
        return id
    }

    /// The entry with this id, if the history still has it.
    static func entry(id: Int64, _ db: Database) throws -> HistoryEntry? {
        try Row.fetchOne(db, sql: "SELECT * FROM history WHERE id = ?", arguments: [id]).map(entry)
    }

    /// A history entry from its row.
    static func entry(_ row: Row) throws -> HistoryEntry {
        func side(_ prefix: String) -> HistoryRow.Side {
            HistoryRow.Side(name: row[prefix + "Name"], zone: row[prefix + "Zone"], image: row[prefix + "Image"], wins: row[prefix + "Wins"])
        }
        var history = HistoryRow(id: row["id"], at: row["at"], author: row["author"], action: row["action"], teamID: row["teamID"],
                                 teamName: row["teamName"], old: side("old"), new: side("new"), undid: row["undid"],
                                 undoneBy: row["undoneBy"], reverts: row["reverts"], refused: row["refused"] ?? false)
        history.zone = HistoryRow.ZoneColumns(oldPosition: row["oldPosition"], newPosition: row["newPosition"], intoZoneID: row["intoZoneID"],
                                              intoName: row["intoName"], teamIDs: row["teamIDs"])
        return try history.entry()
    }
}
