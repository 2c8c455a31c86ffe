import Foundation
import LiveResultsPostgres
import PostgresNIO
import WorldCup

/// Edits, undos and the history, on PostgreSQL. Every write has an id (a UUID) recorded in
/// its history entry by the same statement (`PostgresRecordedWrite`): a write resent after a
/// lost connection finds its entry and is not made again (`exactlyOnce`).
extension PostgresTeamStore {
    @discardableResult
    public func edit(teamID: Int64, name: String?, zone: String?, wins: Int?) throws -> TeamChange {
        try refuseIfReadOnly()
        let writeID = UUID()
        return try exactlyOnce(orElse: "so the change may or may not have been saved") { connection in
            try repeatWhileRaced(writeID, connection) {
                guard let current = try Self.team(id: teamID, connection) else { throw WorldCupError("That team no longer exists.") }
                let edited = try TeamValidation.edited(current, name: name, zone: zone, wins: wins, zones: zone == nil ? [] : Self.zones(connection))
                try Self.checkNameFree(edited, connection)
                let change = TeamChange(action: .edit, before: current, after: edited)
                let write = PostgresRecordedWrite(change: change, writeID: writeID, author: author, guarded: .unchanged(current), apply: .update(edited))
                return try self.write(write.write, connection).isEmpty ? nil : change
            }
        }
    }

    @discardableResult
    public func undo(_ change: TeamChange) throws -> TeamChange {
        try refuseIfReadOnly()
        let writeID = UUID()
        return try exactlyOnce(orElse: "so the change may or may not have been saved") { connection in
            if let done = try Self.recorded(writeID, connection) { return done }
            let entry = try Self.query(connection, """
                SELECT id FROM history WHERE author = \(author) AND action = \(change.action.rawValue) AND "teamID" = \(change.teamID)
                AND "undoneBy" IS NULL ORDER BY id DESC LIMIT 1
                """).single(Int64.self)
            return try undo(change, entry: entry, writeID: writeID, connection)
        }
    }

    @discardableResult
    public func undoLast() throws -> TeamChange {
        try refuseIfReadOnly()
        let writeID = UUID()
        return try exactlyOnce(orElse: "so the change may or may not have been saved") { connection in
            if let done = try Self.recorded(writeID, connection) { return done }
            guard let entry = try Self.query(connection, """
                SELECT \(unescaped: Self.historyColumns) FROM history WHERE author = \(author) AND action <> 'undo' AND "undoneBy" IS NULL
                ORDER BY id DESC LIMIT 1
                """).map(Self.entry).first else {
                throw WorldCupError("There is nothing of \(WorldCupError.quotable(author))'s to undo.")
            }
            return try undo(entry.change, entry: entry.id, writeID: writeID, connection)
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

    /// Takes `change` back by its plan (`TeamChange.undoPlan`, from the team as it is), as
    /// the write `writeID`, marking `entry` undone.
    private func undo(_ change: TeamChange, entry: Int64?, writeID: UUID, _ connection: PostgresConnection) throws -> TeamChange {
        try repeatWhileRaced(writeID, connection) {
            let current = try change.teamID.flatMap { try Self.team(id: $0, connection) }
            let plan = try change.undoPlan(current: current)
            var undo = change.undone(by: plan, current: current)
            let guarded: PostgresRecordedWrite.Guard, apply: PostgresRecordedWrite.Apply
            switch plan {
            case .takeWin(let id): (guarded, apply) = (.hasWin(teamID: id), .takeWin)
            case .delete(let team): (guarded, apply) = (.unchanged(team), .delete)
            case .insert(let team):
                try Self.checkNameFree(team, connection, bringingBack: true)
                (guarded, apply) = (.absent(team), .insert(team))
            case .restore(let team):
                try Self.checkNameFree(team, connection)
                (guarded, apply) = (.unchanged(current ?? team), .update(team))
            }
            let write = PostgresRecordedWrite(change: undo, writeID: writeID, author: author, undoing: entry, guarded: guarded, apply: apply)
            guard let row = try self.write(write.write, connection).first else { return nil }
            if case .takeWin = plan { undo.after = try Team(postgresRow: row) }
            return undo
        }
    }

    /// Runs `attempt` (which returns nil when the team was changed by someone between its read
    /// and its write, or throws on a name taken in that moment) again, up to three times; a
    /// write `writeID` already recorded (the attempt is a resend) returns its change.
    func repeatWhileRaced<T>(_ writeID: UUID, _ connection: PostgresConnection, _ attempt: () throws -> T?) throws -> T where T: RecordedResult {
        for _ in 0..<3 {
            if let done = try Self.recorded(writeID, connection) { return T(done) }
            do {
                if let result = try attempt() { return result }
            } catch let error as PSQLError where error.serverInfo?[.sqlState] == "23505" {
                continue // a name taken in the moment: the next attempt reads it and says so
            }
        }
        if let done = try Self.recorded(writeID, connection) { return T(done) }
        throw WorldCupError("The team kept changing while this change was being made; try again.")
    }

    /// Runs `body`, a write whose id is recorded with it, until it gets an answer: when the
    /// connection dies during it (its outcome unknown), a new one is made and `body` sent
    /// again, for up to `deadline`; `body` finds its write id recorded if the first one
    /// committed. `orElse` ends the sentence when no answer comes.
    func exactlyOnce<T>(orElse clause: String, _ body: (PostgresConnection) throws -> T) throws -> T {
        pruneHistoryNowAndThen()
        let start = ContinuousClock.now
        var outcomeUnknown = false
        while true {
            let failure: Failure
            switch attempt(body) {
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

    /// The change recorded for the write `writeID`, if it was made.
    static func recorded(_ writeID: UUID, _ connection: PostgresConnection) throws -> TeamChange? {
        try query(connection, "SELECT \(unescaped: historyColumns) FROM history WHERE \"writeID\" = \(writeID)").map(entry).first?.change
    }

    /// Throws one sentence when another team has `team`'s name, ignoring case and normalisation.
    static func checkNameFree(_ team: Team, _ connection: PostgresConnection, bringingBack: Bool = false) throws {
        guard let other = try self.team(nameKey: Team.nameKey(team.teamName), connection), other.id != team.id else { return }
        if bringingBack {
            throw WorldCupError("A team named “\(WorldCupError.quotable(other.teamName))” exists again, so the deleted one was not brought back.")
        }
        throw TeamValidation.nameTaken(by: other.teamName)
    }

    /// The team with this id, if any.
    static func team(id: Int64, _ connection: PostgresConnection) throws -> Team? {
        try query(connection, "SELECT \(unescaped: PostgresSchema.teamColumns) FROM team WHERE id = \(id)").map(Team.init(postgresRow:)).first
    }

    /// The columns `entry(_:)` reads.
    static let historyColumns = #"""
        id, to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'), author, action, "teamID", "teamName",
        "oldName", "oldZone", "oldImage", "oldWins", "newName", "newZone", "newImage", "newWins", undid, "undoneBy"
        """#

    /// A history entry from a row of `historyColumns`.
    static func entry(_ row: PostgresRow) throws -> HistoryEntry {
        let cells = row.makeRandomAccess()
        func team(_ first: Int) throws -> Team? {
            guard let name = try cells[first].decode(String?.self), let zone = try cells[first + 1].decode(String?.self),
                  let wins = try cells[first + 3].decode(Int32?.self) else { return nil }
            return Team(teamName: name, qualifyingZone: zone, imageName: try cells[first + 2].decode(String?.self) ?? Team.secretImageName, wins: Int(wins))
        }
        let actionText = try cells[3].decode(String.self)
        guard let action = TeamChange.Action(rawValue: actionText) else {
            throw WorldCupError("The history holds an action this worldcup does not know (“\(WorldCupError.quotable(actionText))”).")
        }
        let change = TeamChange(recorded: action, teamID: try cells[4].decode(Int64.self), teamName: try cells[5].decode(String.self),
                                old: try team(6), new: try team(10), undid: try cells[14].decode(String?.self).flatMap(TeamChange.Action.init(rawValue:)))
        let at = ISO8601DateFormatter().date(from: try cells[1].decode(String.self)) ?? Date(timeIntervalSince1970: 0)
        return HistoryEntry(id: try cells[0].decode(Int64.self), at: at, by: try cells[2].decode(String.self), change: change,
                            undoneBy: try cells[15].decode(Int64?.self))
    }

    /// Deletes the entries beyond `HistoryEntry.retainedCount` that are over an hour old
    /// (a resend comes within seconds), at this store's first write and every
    /// `HistoryEntry.pruneInterval` writes after. A failure is left for the write to report.
    private func pruneHistoryNowAndThen() {
        guard writesSincePrune.withLock({ count in
            defer { count = (count + 1) % HistoryEntry.pruneInterval }
            return count == 0
        }) else { return }
        _ = attempt { connection in
            try Self.query(connection, """
                DELETE FROM history WHERE id <= (SELECT max(id) FROM history) - \(Int64(HistoryEntry.retainedCount))
                AND id < coalesce((SELECT id FROM history WHERE at >= now() - interval '1 hour' ORDER BY id LIMIT 1), 9223372036854775807)
                """)
        }
    }
}

/// What `repeatWhileRaced` returns: a change, or a team (an add's), made from the change
/// recorded for a resent write.
protocol RecordedResult {
    init(_ recorded: TeamChange)
}

extension TeamChange: RecordedResult {
    init(_ recorded: TeamChange) { self = recorded }
}

extension Team: RecordedResult {
    init(_ recorded: TeamChange) { self = recorded.action == .delete ? recorded.before! : recorded.after ?? recorded.before! }
}
