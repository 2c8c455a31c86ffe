import Foundation
import GRDB
import WorldCup

/// Edits, undos and redos on SQLite: each change and its history entry are one transaction,
/// under the write lock (GRDB's pool writes begin IMMEDIATE), so the rules of undo and redo
/// (`RevertingStore`, written once for both stores) are checked against the team and the
/// entry as they are when the change is made, and an entry is taken back at most once.
extension SQLiteTeamStore: RevertingStore {
    @discardableResult
    public func edit(teamID: Int64, name: String?, zone: String?, wins: Int?) throws -> TeamChange {
        try recordedWrite { db in
            guard let current = try Self.team(id: teamID, db) else { throw WorldCupError("That team no longer exists.") }
            var edited = try TeamValidation.edited(current, name: name, zone: zone, wins: wins, zones: zone == nil ? [] : Self.zoneNames(db))
            try TeamValidation.checkName(of: edited, heldBy: Self.team(nameKey: Team.nameKey(edited.teamName), db))
            try Self.placeInZone(&edited, db)
            try edited.update(db)
            return TeamChange(action: .edit, before: current, after: edited)
        }
    }

    public func revert(_ revert: Revert, entryID: Int64) throws -> TeamChange { try revertEntry(revert, entryID: entryID) }

    public func revertLatest(_ revert: Revert) throws -> TeamChange { try revertLatestEntry(revert) }

    // What undo and redo read and write, in SQLite's words (`RevertingStore`): the whole
    // revert is one transaction, so nothing can change between its read and its write.

    package func revertWrite(_ body: (Database) throws -> Result<TeamChange, Refusal>) throws -> Result<TeamChange, Refusal> {
        try writeTransaction(body)
    }

    package func settled(_ db: Database, _ attempt: () throws -> TeamChange?) throws -> TeamChange {
        guard let change = try attempt() else { throw WorldCupError("The team changed while this change was being made; try again.") }
        return change
    }

    package func entry(id: Int64, in db: Database) throws -> HistoryEntry? { try Self.entry(id: id, db) }

    package func firstEntry(_ query: (String) -> String, in db: Database) throws -> HistoryEntry? {
        try Row.fetchOne(db, sql: "SELECT * " + query("?1"), arguments: [author]).map(Self.entry)
    }

    package func execute(_ statement: ((Int) -> String) -> String, _ ids: [Int64], in db: Database) throws {
        try db.execute(sql: statement { "?\($0)" }, arguments: StatementArguments(ids))
    }

    package func author(ofEntry id: Int64, in db: Database) throws -> String? {
        try String.fetchOne(db, sql: "SELECT author FROM history WHERE id = ?", arguments: [id])
    }

    package func team(id: Int64, in db: Database) throws -> Team? { try Self.team(id: id, db) }

    package func team(nameKey key: String, in db: Database) throws -> Team? { try Self.team(nameKey: key, db) }

    package func placeInZone(_ team: inout Team, in db: Database) throws { try Self.placeInZone(&team, db) }

    package func write(_ plan: UndoPlan, current: Team?, change: TeamChange, reverting: Int64, in db: Database) throws -> TeamChange? {
        var change = change
        switch plan {
        case .takeWin(let id):
            try db.execute(sql: "UPDATE team SET wins = wins - 1 WHERE id = ?", arguments: [id])
        case .giveWin(let id):
            try db.execute(sql: "UPDATE team SET wins = wins + 1 WHERE id = ?", arguments: [id])
        case .delete(let team):
            _ = try team.delete(db)
        case .insert(var team):
            try team.insert(db)
        case .restore(let team):
            try team.update(db)
        }
        let id = try record(change, reverts: reverting, db)
        try execute(HistorySQL.markTakenBack, [id, reverting], in: db)
        change.entryID = id
        return change
    }
}
