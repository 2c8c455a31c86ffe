import Foundation
import GRDB
import WorldCup

/// Edits, undos and the history, on SQLite: each change and its history entry are one
/// transaction, under the write lock, so the rules of `TeamChange.undoPlan` are checked
/// against the team as it is when the change is made.
extension SQLiteTeamStore {
    @discardableResult
    public func edit(teamID: Int64, name: String?, zone: String?, wins: Int?) throws -> TeamChange {
        try refuseIfReadOnly()
        return try DatabaseFile.readable {
            try database.liveResultsWrite { db in
                guard let current = try Team.fetchOne(db, key: teamID) else { throw WorldCupError("That team no longer exists.") }
                let edited = try TeamValidation.edited(current, name: name, zone: zone, wins: wins, zones: zone == nil ? [] : Self.zones(db))
                try Self.checkNameFree(edited, db)
                try edited.update(db)
                let change = TeamChange(action: .edit, before: current, after: edited)
                try record(change, db)
                return change
            }
        }
    }

    @discardableResult
    public func undo(_ change: TeamChange) throws -> TeamChange {
        try refuseIfReadOnly()
        return try DatabaseFile.readable {
            try database.liveResultsWrite { db in
                let entry = try Int64.fetchOne(db, sql: """
                    SELECT id FROM history WHERE author = ? AND action = ? AND teamID = ? AND undoneBy IS NULL
                    ORDER BY id DESC LIMIT 1
                    """, arguments: [author, change.action.rawValue, change.teamID])
                return try apply(undoing: change, entry: entry, db)
            }
        }
    }

    @discardableResult
    public func undoLast() throws -> TeamChange {
        try refuseIfReadOnly()
        return try DatabaseFile.readable {
            try database.liveResultsWrite { db in
                guard let row = try Row.fetchOne(db, sql: """
                    SELECT * FROM history WHERE author = ? AND action != 'undo' AND undoneBy IS NULL ORDER BY id DESC LIMIT 1
                    """, arguments: [author]) else {
                    throw WorldCupError("There is nothing of \(WorldCupError.quotable(author))'s to undo.")
                }
                let entry = try Self.entry(row)
                return try apply(undoing: entry.change, entry: entry.id, db)
            }
        }
    }

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

    /// Takes `change` back by its plan, records the undo and marks `entry` (the change's own,
    /// when the history still has it) undone by it.
    private func apply(undoing change: TeamChange, entry: Int64?, _ db: Database) throws -> TeamChange {
        let current = try change.teamID.flatMap { try Team.fetchOne(db, key: $0) }
        let plan = try change.undoPlan(current: current)
        switch plan {
        case .takeWin(let id):
            try db.execute(sql: "UPDATE team SET wins = wins - 1 WHERE id = ? AND wins > 0", arguments: [id])
        case .delete(let team):
            _ = try team.delete(db)
        case .insert(var team):
            try Self.checkNameFree(team, db, bringingBack: true)
            try team.insert(db)
        case .restore(let team):
            try Self.checkNameFree(team, db)
            try team.update(db)
        }
        let undo = change.undone(by: plan, current: current)
        let undoID = try record(undo, db)
        if let entry { try db.execute(sql: "UPDATE history SET undoneBy = ? WHERE id = ?", arguments: [undoID, entry]) }
        return undo
    }

    /// Throws one sentence when another team has `team`'s name, ignoring case and normalisation.
    private static func checkNameFree(_ team: Team, _ db: Database, bringingBack: Bool = false) throws {
        let key = Team.nameKey(team.teamName)
        guard let other = try Team.filter(Column("nameKey") == key && Column("id") != team.id).fetchOne(db) else { return }
        if bringingBack {
            throw WorldCupError("A team named “\(WorldCupError.quotable(other.teamName))” exists again, so the deleted one was not brought back.")
        }
        throw TeamValidation.nameTaken(by: other.teamName)
    }

    /// Writes `change`'s history entry (by this store's author) in the caller's transaction,
    /// and now and then prunes what is beyond `HistoryEntry.retainedCount`. Returns its id.
    @discardableResult
    func record(_ change: TeamChange, _ db: Database) throws -> Int64 {
        let old = change.before, new = change.after
        let statement = try db.cachedStatement(sql: """
            INSERT INTO history (author, action, teamID, teamName, oldName, oldZone, oldImage, oldWins, newName, newZone, newImage, newWins, undid)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        try statement.execute(arguments: [
            author, change.action.rawValue, change.teamID, change.teamName,
            old?.teamName, old?.qualifyingZone, old?.imageName, old?.wins,
            new?.teamName, new?.qualifyingZone, new?.imageName, new?.wins, change.undid?.rawValue,
        ])
        let id = db.lastInsertedRowID
        ownEntries.insert(id)
        if id % HistoryEntry.pruneInterval == 0 {
            // Below the first entry of the last hour (found by reading up from the oldest, so
            // the work is about the entries deleted), and beyond the newest retainedCount.
            try db.execute(sql: """
                DELETE FROM history WHERE id <= ? AND id < coalesce(
                    (SELECT id FROM history WHERE at >= strftime('%Y-%m-%dT%H:%M:%SZ', 'now', '-1 hour') ORDER BY id LIMIT 1), ?)
                """, arguments: [id - Int64(HistoryEntry.retainedCount), id])
        }
        return id
    }

    /// A history entry from its row.
    static func entry(_ row: Row) throws -> HistoryEntry {
        func team(_ prefix: String) -> Team? {
            guard let name: String = row[prefix + "Name"], let zone: String = row[prefix + "Zone"], let wins: Int = row[prefix + "Wins"] else { return nil }
            return Team(teamName: name, qualifyingZone: zone, imageName: row[prefix + "Image"] ?? Team.secretImageName, wins: wins)
        }
        guard let action = TeamChange.Action(rawValue: row["action"]) else { throw DatabaseFile.damagedRow(path: nil) }
        let text: String = row["at"]
        let at = ISO8601DateFormatter().date(from: text) ?? Date(timeIntervalSince1970: 0)
        let change = TeamChange(recorded: action, teamID: row["teamID"], teamName: row["teamName"], old: team("old"), new: team("new"),
                                undid: (row["undid"] as String?).flatMap(TeamChange.Action.init(rawValue:)))
        return HistoryEntry(id: row["id"], at: at, by: row["author"], change: change, undoneBy: row["undoneBy"])
    }
}
