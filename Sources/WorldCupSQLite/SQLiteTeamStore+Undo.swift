import Foundation
import GRDB
import WorldCup

/// Edits, undos and redos on SQLite: each change and its history entry are one transaction,
/// under the write lock (GRDB's pool writes begin IMMEDIATE), so the rules of
/// `TeamChange.undoPlan` and `redoPlan` are checked against the team and the entry as they
/// are when the change is made, and an entry is taken back at most once.
extension SQLiteTeamStore {
    @discardableResult
    public func edit(teamID: Int64, name: String?, zone: String?, wins: Int?) throws -> TeamChange {
        try refuseIfReadOnly()
        return try DatabaseFile.readable {
            try database.liveResultsWrite { db in
                guard let current = try Self.team(id: teamID, db) else { throw WorldCupError("That team no longer exists.") }
                var edited = try TeamValidation.edited(current, name: name, zone: zone, wins: wins, zones: zone == nil ? [] : Self.zoneNames(db))
                try TeamValidation.checkName(of: edited, heldBy: Self.team(nameKey: Team.nameKey(edited.teamName), db))
                try Self.placeInZone(&edited, db)
                try edited.update(db)
                var change = TeamChange(action: .edit, before: current, after: edited)
                change.entryID = try record(change, db)
                return change
            }
        }
    }

    @discardableResult
    public func undo(entryID: Int64) throws -> TeamChange {
        try revert(.undo) { db in try Self.entry(id: entryID, db) ?? Revert.missing(entryID) }
    }

    @discardableResult
    public func redo(entryID: Int64) throws -> TeamChange {
        try revert(.redo) { db in try Self.entry(id: entryID, db) ?? Revert.missing(entryID) }
    }

    @discardableResult
    public func undoLast() throws -> TeamChange {
        try revert(.undo, orderly: true) { db in
            guard let row = try Row.fetchOne(db, sql: """
                SELECT * FROM history WHERE author = ? AND action != 'undo' AND undoneBy IS NULL AND NOT refused ORDER BY id DESC LIMIT 1
                """, arguments: [author]) else { throw Refusal(Revert.undo.nothingLeft(author)) }
            return try Self.entry(row)
        }
    }

    @discardableResult
    public func redoLast() throws -> TeamChange {
        try revert(.redo, orderly: true) { db in
            guard let row = try Row.fetchOne(db, sql: """
                SELECT * FROM history WHERE author = ?1 AND action = 'undo' AND undoneBy IS NULL AND NOT refused
                AND id > coalesce((SELECT max(id) FROM history WHERE author = ?1 AND action != 'undo' AND reverts IS NULL), 0)
                ORDER BY id DESC LIMIT 1
                """, arguments: [author]) else { throw Refusal(Revert.redo.nothingLeft(author)) }
            return try Self.entry(row)
        }
    }

    /// Takes back (or makes again) the entry `pick` finds, in one transaction: by its plan,
    /// recording the undo or redo and marking the entry taken back. A rule's refusal marks
    /// the entry refused, committed, and is then thrown; `orderly` (the entry was picked as
    /// the author's latest) adds how to reach it again by its id.
    private func revert(_ revert: Revert, orderly: Bool = false, pick: (Database) throws -> HistoryEntry) throws -> TeamChange {
        try refuseIfReadOnly()
        let outcome = try DatabaseFile.readable {
            try database.liveResultsWrite { db -> Result<TeamChange, Refusal> in
                let entry = try pick(db)
                do {
                    return .success(try apply(revert, of: entry, db))
                } catch var refusal as Refusal {
                    if let refused = refusal.entryID {
                        try db.execute(sql: "UPDATE history SET refused = 1 WHERE id = ?", arguments: [refused])
                        if orderly { refusal = refusal.appending(revert.passedOver(refused)) }
                    }
                    return .failure(refusal)
                }
            }
        }
        return try outcome.get()
    }

    /// Takes `entry` back (an undo) or makes the change its undo took back again (a redo).
    private func apply(_ revert: Revert, of entry: HistoryEntry, _ db: Database) throws -> TeamChange {
        try revert.check(entry, author: author)
        if let undoneBy = entry.undoneBy {
            let by = try String.fetchOne(db, sql: "SELECT author FROM history WHERE id = ?", arguments: [undoneBy]) ?? "someone"
            throw entry.alreadyReverted(by: by)
        }
        if entry.change.isZoneChange { return try applyToZone(revert, of: entry, db) }
        let current = try entry.change.teamID.flatMap { try Self.team(id: $0, db) }
        let plan = try revert.plan(entry, current: current)
        if let name = plan.nameTaken {
            try revert.refusing(entry) { try plan.checkName(heldBy: Self.team(nameKey: Team.nameKey(name), db)) }
        }
        var change = revert.change(entry, plan: plan, current: current)
        switch plan {
        case .takeWin(let id):
            try db.execute(sql: "UPDATE team SET wins = wins - 1 WHERE id = ?", arguments: [id])
        case .giveWin(let id):
            try db.execute(sql: "UPDATE team SET wins = wins + 1 WHERE id = ?", arguments: [id])
        case .delete(let team):
            _ = try team.delete(db)
        // The zone a team brought back or edited back goes to, by its name (made again if
        // gone), with that zone's spelling now: the entry records the row as written.
        case .insert(var team):
            try Self.placeInZone(&team, db)
            try team.insert(db)
            change.after = team
        case .restore(var team):
            try Self.placeInZone(&team, db)
            try team.update(db)
            change.after = team
        }
        let id = try record(change, reverts: entry.id, db)
        try db.execute(sql: "UPDATE history SET undoneBy = ? WHERE id = ? AND undoneBy IS NULL", arguments: [id, entry.id])
        change.entryID = id
        return change
    }
}
