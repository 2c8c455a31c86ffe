import Foundation
import LiveResultsPostgres
import PostgresNIO
import WorldCup

/// Undos and redos on PostgreSQL, by the rules both stores share (`RevertingStore`): one
/// statement each (`PostgresRecordedWrite` with the entry it takes back), which claims the
/// entry while it is not taken back, locked, so two undos of one entry from any two programs
/// take it back once; the second reads it taken and says by whom.
extension PostgresTeamStore: RevertingStore {
    /// One revert's write: its connection, and its id, by which a resend finds it made.
    package struct RevertSession {
        let connection: PostgresConnection
        let writeID: UUID
        let resend: Bool
    }

    public func revert(_ revert: Revert, entryID: Int64) throws -> TeamChange { try revertEntry(revert, entryID: entryID) }

    public func revertLatest(_ revert: Revert) throws -> TeamChange { try revertLatestEntry(revert) }

    // What undo and redo read and write, in PostgreSQL's words (`RevertingStore`).

    /// One write whose id makes a resend happen once; a rule's refusal is an answer, not a
    /// failure of the connection.
    package func revertWrite(_ body: (RevertSession) throws -> Result<TeamChange, Refusal>) throws -> Result<TeamChange, Refusal> {
        try refuseIfReadOnly()
        let writeID = UUID()
        return try exactlyOnce(orElse: "so the change may or may not have been saved") { connection, resend in
            try body(RevertSession(connection: connection, writeID: writeID, resend: resend))
        }
    }

    package func settled(_ session: RevertSession, _ attempt: () throws -> TeamChange?) throws -> TeamChange {
        try repeatWhileRaced(session.writeID, session.connection, resend: session.resend, attempt)
    }

    package func entry(id: Int64, in session: RevertSession) throws -> HistoryEntry? { try Self.entry(id: id, session.connection) }

    package func firstEntry(_ query: (String) -> String, in session: RevertSession) throws -> HistoryEntry? {
        var binds = PostgresBindings()
        binds.append(author)
        return try Self.query(session.connection, PostgresQuery(unsafeSQL: "SELECT \(Self.historyColumns) " + query("$1"), binds: binds))
            .map(Self.entry).first
    }

    package func execute(_ statement: ((Int) -> String) -> String, _ ids: [Int64], in session: RevertSession) throws {
        var binds = PostgresBindings()
        for id in ids { binds.append(id) }
        try Self.query(session.connection, PostgresQuery(unsafeSQL: statement { "$\($0)" }, binds: binds))
    }

    package func author(ofEntry id: Int64, in session: RevertSession) throws -> String? {
        try Self.query(session.connection, "SELECT author FROM history WHERE id = \(id)").single(String.self)
    }

    package func team(id: Int64, in session: RevertSession) throws -> Team? { try Self.team(id: id, session.connection) }

    package func team(nameKey key: String, in session: RevertSession) throws -> Team? { try Self.team(nameKey: key, session.connection) }

    package func placeInZone(_ team: inout Team, in session: RevertSession) throws { try Self.placeInZone(&team, session.connection) }

    /// The plan as one recorded write, which also marks the entry taken back; a change by
    /// one win records the wins the lock found.
    package func write(_ plan: UndoPlan, current: Team?, change: TeamChange, reverting: Int64, in session: RevertSession) throws -> TeamChange? {
        var change = change
        let write = PostgresRecordedWrite(plan: plan, current: current, change: change, writeID: session.writeID, author: author, reverting: reverting)
        guard let written = try recordedWrite(write, session.connection) else { return nil }
        if case .takeWin = plan { (change.before, change.after) = (Self.stepped(written.team, by: 1), written.team) }
        if case .giveWin = plan { (change.before, change.after) = (Self.stepped(written.team, by: -1), written.team) }
        change.entryID = written.entryID
        return change
    }

    /// `team` with `step` more wins.
    private static func stepped(_ team: Team, by step: Int) -> Team {
        var team = team
        team.wins += step
        return team
    }
}
