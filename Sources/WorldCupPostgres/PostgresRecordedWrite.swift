import Foundation
import LiveResultsPostgres
import PostgresNIO
import WorldCup

/// One change of the teams and its history entry, as one statement (PostgresWriter.write
/// takes one statement that commits on its own):
///
///     WITH [claimed AS (the entry an undo or a redo takes back, while not taken back, locked)],
///          guarded AS (the team as the change expects it, locked; or a new id),
///          recorded AS (INSERT INTO history … FROM guarded ON CONFLICT ("writeID") DO NOTHING),
///          [marked AS (UPDATE history SET "undoneBy" … the entry claimed)],
///          pruned AS (DELETE FROM history … the entries beyond the retained ones, now and then)
///     UPDATE / DELETE / INSERT team … FROM recorded
///
/// So the change is made only when its entry is written, and its entry only when the team
/// is still as the change expects it (and the entry it takes back is not taken back yet:
/// the lock on it makes a second undo wait, then find it taken); a write id recorded before
/// (a resend after a lost connection) makes nothing, and the caller finds the entry instead.
/// A change by one win (a tap, an undo or redo of one) records the team as the lock found
/// it and one win off or on: the values it actually wrote.
///
/// The write whose entry id is a multiple of `HistoryEntry.pruneInterval` also deletes the
/// entries more than `HistoryEntry.retainedCount` before it and over
/// `HistoryEntry.retainedSeconds` old (a resend comes within seconds), as SQLite's store
/// does: the history stays bounded with no statement of its own on any write's path.
package struct PostgresRecordedWrite {
    /// What the team must be for the change to be made.
    enum Guard {
        /// The team with the id exists with this name, zone (its `zoneID`) and wins.
        case unchanged(Team)
        /// The team with the id exists and has a win.
        case hasWin(teamID: Int64)
        /// The team with the id exists.
        case exists(teamID: Int64)
        /// A team with this folded name (`Team.nameKey`) exists: a tap by name, its lookup
        /// and its write in one statement.
        case named(key: String)
        /// No team has this id or (ignoring case and normalisation) this name.
        case absent(Team)
        /// No team has this name; the new team takes the next id.
        case newName(String)
    }

    /// What is done to the team.
    enum Apply {
        /// Its name, zone and wins become these.
        case update(Team)
        /// One win off.
        case takeWin
        /// One win more.
        case addWin
        case delete
        /// This team is inserted (with the guard's id).
        case insert(Team)

        /// The change in wins, for a change by one win.
        var step: Int? {
            switch self {
            case .takeWin: -1
            case .addWin: 1
            default: nil
            }
        }
    }

    var change: TeamChange
    var writeID: UUID
    var author: String
    /// For an undo or a redo: the history entry it takes back.
    var reverting: Int64?
    var guarded: Guard
    var apply: Apply

    /// The write of `plan` (an undo's or a redo's, `TeamChange.undoPlan`), given the team as
    /// it was read (`current`), recorded as `change`, taking back the entry `reverting`.
    init(plan: UndoPlan, current: Team?, change: TeamChange, writeID: UUID, author: String, reverting: Int64) {
        switch plan {
        case .takeWin(let id): (guarded, apply) = (.hasWin(teamID: id), .takeWin)
        case .giveWin(let id): (guarded, apply) = (.exists(teamID: id), .addWin)
        case .delete(let team): (guarded, apply) = (.unchanged(team), .delete)
        case .insert(let team): (guarded, apply) = (.absent(team), .insert(team))
        case .restore(let team): (guarded, apply) = (.unchanged(current ?? team), .update(team))
        }
        (self.change, self.writeID, self.author, self.reverting) = (change, writeID, author, reverting)
    }

    init(change: TeamChange, writeID: UUID, author: String, guarded: Guard, apply: Apply) {
        (self.change, self.writeID, self.author, self.guarded, self.apply) = (change, writeID, author, guarded, apply)
    }

    /// Statement text with its bindings, built piece by piece.
    struct Text {
        var sql = ""
        var binds = PostgresBindings()

        /// Binds `value` and returns its placeholder.
        mutating func bind<T: PostgresDynamicTypeEncodable>(_ value: T?) -> String {
            binds.append(value)
            return "$\(binds.count)"
        }
    }

    /// What a recorded write returns: the team (`PostgresSchema.teamColumns`), then the id
    /// of its history entry, so the store knows its own entries (`ownEntries`).
    static let returning = PostgresSchema.writtenTeamColumns + #", (SELECT "entryID" FROM recorded)"#
    /// Where the history entry's id is in a row of `returning`.
    static let entryIDIndex = PostgresTeamColumns.team.count

    /// The statement, for `PostgresWriter.write`.
    var write: PostgresWrite {
        var text = Text()
        var sql = "WITH "
        var claim = ""
        if let reverting {
            sql += #"claimed AS (SELECT id FROM history WHERE id = \#(text.bind(reverting)) AND "undoneBy" IS NULL FOR UPDATE),"# + "\n"
            claim = " AND EXISTS (SELECT 1 FROM claimed)"
        }
        // The zones whose names the entry records (a change by one win reads its own): each
        // still so named, its row's lock shared (`PostgresSchema.zoneName`), or nothing is
        // written and the caller reads again: a zone renamed in between is never recorded
        // under its old name after the rename's entry.
        var zonesAsRead = ""
        if apply.step == nil {
            for team in [change.before, change.after].compactMap({ $0 }) {
                guard let zoneID = team.zoneID else { continue }
                zonesAsRead += " AND \(PostgresSchema.zoneName)(\(text.bind(zoneID))::int8) = \(text.bind(team.qualifyingZone))"
            }
        }
        claim += zonesAsRead
        let teamRow = #"SELECT id AS "teamID", "teamName", \#(PostgresSchema.zoneName)("zoneID") AS "qualifyingZone", "imageName", wins FROM team"#
        switch guarded {
        case .unchanged(let team):
            sql += """
                guarded AS (\(teamRow) WHERE id = \(text.bind(team.id)) AND "teamName" = \(text.bind(team.teamName))
                AND "zoneID" = \(text.bind(team.zoneID)) AND wins = \(text.bind(Int32(clamping: team.wins)))\(claim) FOR UPDATE)
                """
        case .hasWin(let id):
            sql += "guarded AS (\(teamRow) WHERE id = \(text.bind(id)) AND wins > 0\(claim) FOR UPDATE)"
        case .exists(let id):
            sql += "guarded AS (\(teamRow) WHERE id = \(text.bind(id))\(claim) FOR UPDATE)"
        case .named(let key):
            sql += #"guarded AS (\#(teamRow) WHERE "nameKey" = \#(text.bind(key))\#(claim) FOR UPDATE)"#
        case .absent(let team):
            let id = text.bind(team.id)
            sql += #"guarded AS (SELECT \#(id)::int8 AS "teamID" WHERE NOT EXISTS (SELECT 1 FROM team WHERE id = \#(id)::int8 OR "nameKey" = \#(text.bind(Team.nameKey(team.teamName))))\#(claim))"#
        case .newName(let name):
            sql += #"guarded AS (SELECT nextval(pg_get_serial_sequence('team', 'id')) AS "teamID" WHERE NOT EXISTS (SELECT 1 FROM team WHERE "nameKey" = \#(text.bind(Team.nameKey(name))))\#(claim))"#
        }
        let values: String
        if let step = apply.step {
            // The team as the lock found it, and one win off or on.
            values = #""teamName", "teamName", "qualifyingZone", "imageName", wins, "teamName", "qualifyingZone", "imageName", wins + (\#(step))"#
        } else {
            let old = change.before, new = change.after
            values = """
                \(text.bind(change.teamName)), \(text.bind(old?.teamName)), \(text.bind(old?.qualifyingZone)), \(text.bind(old?.imageName)),
                \(text.bind(old.map { Int32(clamping: $0.wins) })), \(text.bind(new?.teamName)), \(text.bind(new?.qualifyingZone)),
                \(text.bind(new?.imageName)), \(text.bind(new.map { Int32(clamping: $0.wins) }))
                """
        }
        sql += """
            ,
            recorded AS (
                INSERT INTO history ("writeID", author, action, "teamID", "teamName", "oldName", "oldZone", "oldImage", "oldWins",
                    "newName", "newZone", "newImage", "newWins", undid, reverts)
                SELECT \(text.bind(writeID)), \(text.bind(author)), \(text.bind(change.action.rawValue)), "teamID", \(values),
                    \(text.bind(change.undid?.rawValue)), \(text.bind(reverting))
                FROM guarded
                ON CONFLICT ("writeID") DO NOTHING RETURNING id AS "entryID", "teamID")
            """
        if let reverting {
            sql += #",\#nmarked AS (UPDATE history SET "undoneBy" = recorded."entryID" FROM recorded WHERE history.id = \#(text.bind(reverting)))"#
        }
        sql += ",\n" + Self.pruned(sparing: reverting.map { text.bind($0) }) + "\n"
        switch apply {
        case .update(let team):
            sql += PostgresTeamColumns.team.update(to: team, from: "recorded", &text)
        case .takeWin, .addWin:
            let tapped = PostgresTeamColumns.team.tapped
            sql += #"UPDATE team SET \#(tapped) = \#(tapped) + (\#(apply.step ?? 0)) FROM recorded WHERE team.id = recorded."teamID""#
        case .delete:
            sql += #"DELETE FROM team USING recorded WHERE team.id = recorded."teamID""#
        case .insert(let team):
            sql += PostgresTeamColumns.team.insert(team, from: "recorded", &text)
        }
        if case .delete = apply {
            return PostgresWrite(table: "team", PostgresQuery(unsafeSQL: sql, binds: text.binds), returning: Self.returning, deletes: true)
        }
        return PostgresWrite(table: "team", PostgresQuery(unsafeSQL: sql, binds: text.binds), returning: Self.returning)
    }
}

extension PostgresRecordedWrite {
    /// The history's pruning, for the write whose entry (`recorded`) has an id that is a
    /// multiple of `HistoryEntry.pruneInterval`; it never deletes the entry an undo or a redo
    /// marks (`sparing`, a placeholder): one statement must not change a row twice.
    static func pruned(sparing reverting: String?) -> String {
        let keptSince = "now() - make_interval(secs => \(HistoryEntry.retainedSeconds))"
        return "pruned AS (" + HistorySQL.pruning(newest: #"(SELECT "entryID" FROM recorded)"#, keptSince: keptSince,
                                                  sparing: reverting.map { "\($0)::int8" }) + ")"
    }

    /// A tap of team `teamID` as `PostgresTeamStore.recordedTap` writes it, with its history
    /// entry: the benchmark's tap, and its floor without the change log's triggers.
    package static func tap(teamID: Int64, author: String) -> PostgresWrite {
        PostgresRecordedWrite(change: TeamChange(action: .tap, before: nil, after: nil), writeID: UUID(), author: author,
                              guarded: .exists(teamID: teamID), apply: .addWin).write
    }
}
