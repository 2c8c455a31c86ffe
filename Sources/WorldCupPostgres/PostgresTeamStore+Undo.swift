import Foundation
import LiveResultsPostgres
import PostgresNIO
import WorldCup

/// Undos and redos on PostgreSQL: one statement each (`PostgresRecordedWrite` with the entry
/// it takes back), which claims the entry while it is not taken back, locked, so two undos of
/// one entry from any two programs take it back once; the second reads it taken and says by whom.
extension PostgresTeamStore {
    @discardableResult
    public func undo(entryID: Int64) throws -> TeamChange {
        try revert(.undo) { connection in try Self.entry(id: entryID, connection) ?? Revert.missing(entryID) }
    }

    @discardableResult
    public func redo(entryID: Int64) throws -> TeamChange {
        try revert(.redo) { connection in try Self.entry(id: entryID, connection) ?? Revert.missing(entryID) }
    }

    @discardableResult
    public func undoLast() throws -> TeamChange {
        try revert(.undo, orderly: true) { [author] connection in
            guard let entry = try Self.query(connection, """
                SELECT \(unescaped: Self.historyColumns) FROM history WHERE author = \(author) AND action <> 'undo' AND "undoneBy" IS NULL
                AND NOT refused ORDER BY id DESC LIMIT 1
                """).map(Self.entry).first else { throw Refusal(Revert.undo.nothingLeft(author)) }
            return entry
        }
    }

    @discardableResult
    public func redoLast() throws -> TeamChange {
        try revert(.redo, orderly: true) { [author] connection in
            guard let entry = try Self.query(connection, """
                SELECT \(unescaped: Self.historyColumns) FROM history WHERE author = \(author) AND action = 'undo' AND "undoneBy" IS NULL
                AND NOT refused AND id > coalesce((SELECT max(id) FROM history WHERE author = \(author) AND action <> 'undo' AND reverts IS NULL), 0)
                ORDER BY id DESC LIMIT 1
                """).map(Self.entry).first else { throw Refusal(Revert.redo.nothingLeft(author)) }
            return entry
        }
    }

    /// Takes back (or makes again) the entry `pick` finds, as one write whose id makes a
    /// resend happen once. A rule's refusal marks the entry refused and is thrown (not as a
    /// failure of the connection); `orderly` (the entry was the author's latest) adds how
    /// to reach it again by its id.
    private func revert(_ revert: Revert, orderly: Bool = false, pick: (PostgresConnection) throws -> HistoryEntry) throws -> TeamChange {
        try refuseIfReadOnly()
        let writeID = UUID()
        let outcome = try exactlyOnce(orElse: "so the change may or may not have been saved") { connection, resend -> Result<TeamChange, Refusal> in
            do {
                return .success(try repeatWhileRaced(writeID, connection, resend: resend) {
                    try apply(revert, of: pick(connection), writeID: writeID, connection)
                })
            } catch var refusal as Refusal {
                if let refused = refusal.entryID {
                    try Self.query(connection, "UPDATE history SET refused = true WHERE id = \(refused)")
                    if orderly { refusal = refusal.appending(revert.passedOver(refused)) }
                }
                return .failure(refusal)
            }
        }
        return try outcome.get()
    }

    /// Takes `entry` back (an undo) or makes the change its undo took back again (a redo), as
    /// the write `writeID`; nil when the team or the entry changed between the read and the
    /// write (the caller reads again).
    private func apply(_ revert: Revert, of entry: HistoryEntry, writeID: UUID, _ connection: PostgresConnection) throws -> TeamChange? {
        try revert.check(entry, author: author)
        try Self.refuseIfReverted(entry, connection)
        if entry.change.isZoneChange { return try applyToZone(revert, of: entry, writeID: writeID, connection) }
        let current = try entry.change.teamID.flatMap { try Self.team(id: $0, connection) }
        var plan: UndoPlan
        do {
            plan = try revert.plan(entry, current: current)
            if let name = plan.nameTaken {
                try revert.refusing(entry) { try plan.checkName(heldBy: Self.team(nameKey: Team.nameKey(name), connection)) }
            }
        } catch let refusal as Refusal {
            // The team was read after the entry: another program may have taken the entry
            // back between the two reads (its change is then what the rule saw). Then that is
            // the answer; otherwise the entry was not taken back when the team was read, and
            // the rule's refusal stands.
            if let again = try Self.entry(id: entry.id, connection) { try Self.refuseIfReverted(again, connection) }
            throw refusal
        }
        var change = revert.change(entry, plan: plan, current: current)
        // The zone a team brought back or edited back goes to, by its name (made again if gone).
        switch plan {
        case .insert(var team):
            try Self.placeInZone(&team, connection)
            (plan, change.after) = (.insert(team), team)
        case .restore(var team):
            try Self.placeInZone(&team, connection)
            (plan, change.after) = (.restore(team), team)
        case .takeWin, .giveWin, .delete:
            break
        }
        let write = PostgresRecordedWrite(plan: plan, current: current, change: change, writeID: writeID, author: author, reverting: entry.id)
        guard let written = try recordedWrite(write, connection) else { return nil }
        if case .takeWin = plan { (change.before, change.after) = (Self.stepped(written.team, by: 1), written.team) }
        if case .giveWin = plan { (change.before, change.after) = (Self.stepped(written.team, by: -1), written.team) }
        change.entryID = written.entryID
        return change
    }

    /// Throws the refusal for an entry taken back already, naming who did.
    static func refuseIfReverted(_ entry: HistoryEntry, _ connection: PostgresConnection) throws {
        guard let undoneBy = entry.undoneBy else { return }
        let by = try query(connection, "SELECT author FROM history WHERE id = \(undoneBy)").single(String.self) ?? "someone"
        throw entry.alreadyReverted(by: by)
    }

    /// `team` with `step` more wins.
    private static func stepped(_ team: Team, by step: Int) -> Team {
        var team = team
        team.wins += step
        return team
    }
}
