import Foundation
import LiveResultsPostgres
import PostgresNIO
import WorldCup

/// One change of the teams and its history entry, as one statement (PostgresWriter.write
/// takes one statement that commits on its own):
///
///     WITH guarded AS (the team as the change expects it, locked; or a new id),
///          recorded AS (INSERT INTO history … FROM guarded ON CONFLICT ("writeID") DO NOTHING),
///          [marked AS (UPDATE history SET "undoneBy" … the entry an undo takes back)]
///     UPDATE / DELETE / INSERT team … FROM recorded
///
/// So the change is made only when its entry is written, and its entry only when the team
/// is still as the change expects it; a write id recorded before (a resend after a lost
/// connection) makes nothing, and the caller finds the entry instead.
struct PostgresRecordedWrite {
    /// What the team must be for the change to be made.
    enum Guard {
        /// The team with the id exists with this name, zone and wins.
        case unchanged(Team)
        /// The team with the id exists and has a win.
        case hasWin(teamID: Int64)
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
        case delete
        /// This team is inserted (with the guard's id).
        case insert(Team)
    }

    var change: TeamChange
    var writeID: UUID
    var author: String
    /// For an undo: the history entry it takes back.
    var undoing: Int64?
    var guarded: Guard
    var apply: Apply

    /// Statement text with its bindings, built piece by piece.
    private struct Text {
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
    static let returning = PostgresSchema.teamColumns + #", (SELECT "entryID" FROM recorded)"#

    /// The statement, for `PostgresWriter.write`.
    var write: PostgresWrite {
        var text = Text()
        let guardSQL: String
        switch guarded {
        case .unchanged(let team):
            guardSQL = """
                SELECT id AS "teamID" FROM team WHERE id = \(text.bind(team.id)) AND "teamName" = \(text.bind(team.teamName))
                AND "qualifyingZone" = \(text.bind(team.qualifyingZone)) AND wins = \(text.bind(Int32(clamping: team.wins))) FOR UPDATE
                """
        case .hasWin(let id):
            guardSQL = #"SELECT id AS "teamID" FROM team WHERE id = \#(text.bind(id)) AND wins > 0 FOR UPDATE"#
        case .absent(let team):
            let id = text.bind(team.id)
            guardSQL = #"SELECT \#(id)::int8 AS "teamID" WHERE NOT EXISTS (SELECT 1 FROM team WHERE id = \#(id)::int8 OR "nameKey" = \#(text.bind(Team.nameKey(team.teamName))))"#
        case .newName(let name):
            guardSQL = #"SELECT nextval(pg_get_serial_sequence('team', 'id')) AS "teamID" WHERE NOT EXISTS (SELECT 1 FROM team WHERE "nameKey" = \#(text.bind(Team.nameKey(name))))"#
        }
        let old = change.before, new = change.after
        var sql = """
            WITH guarded AS (\(guardSQL)),
            recorded AS (
                INSERT INTO history ("writeID", author, action, "teamID", "teamName", "oldName", "oldZone", "oldImage", "oldWins",
                    "newName", "newZone", "newImage", "newWins", undid)
                SELECT \(text.bind(writeID)), \(text.bind(author)), \(text.bind(change.action.rawValue)), "teamID", \(text.bind(change.teamName)),
                    \(text.bind(old?.teamName)), \(text.bind(old?.qualifyingZone)), \(text.bind(old?.imageName)), \(text.bind(old.map { Int32(clamping: $0.wins) })),
                    \(text.bind(new?.teamName)), \(text.bind(new?.qualifyingZone)), \(text.bind(new?.imageName)), \(text.bind(new.map { Int32(clamping: $0.wins) })),
                    \(text.bind(change.undid?.rawValue))
                FROM guarded
                ON CONFLICT ("writeID") DO NOTHING RETURNING id AS "entryID", "teamID")
            """
        if let undoing {
            sql += #",\#nmarked AS (UPDATE history SET "undoneBy" = recorded."entryID" FROM recorded WHERE history.id = \#(text.bind(undoing)))"#
        }
        sql += "\n"
        switch apply {
        case .update(let team):
            sql += """
                UPDATE team SET "teamName" = \(text.bind(team.teamName)), "qualifyingZone" = \(text.bind(team.qualifyingZone)),
                    wins = \(text.bind(Int32(clamping: team.wins))), "nameKey" = \(text.bind(Team.nameKey(team.teamName))),
                    "nameSortKey" = \(text.bind(Team.nameSortKey(team.teamName)))
                FROM recorded WHERE team.id = recorded."teamID"
                """
        case .takeWin:
            sql += #"UPDATE team SET wins = wins - 1 FROM recorded WHERE team.id = recorded."teamID""#
        case .delete:
            sql += #"DELETE FROM team USING recorded WHERE team.id = recorded."teamID""#
        case .insert(let team):
            sql += """
                INSERT INTO team (id, "teamName", "qualifyingZone", "imageName", wins, "nameKey", "nameSortKey")
                SELECT "teamID", \(text.bind(team.teamName)), \(text.bind(team.qualifyingZone)), \(text.bind(team.imageName)),
                    \(text.bind(Int32(clamping: team.wins))), \(text.bind(Team.nameKey(team.teamName))), \(text.bind(Team.nameSortKey(team.teamName)))
                FROM recorded
                """
        }
        if case .delete = apply {
            return PostgresWrite(table: "team", PostgresQuery(unsafeSQL: sql, binds: text.binds), returning: Self.returning, deletes: true)
        }
        return PostgresWrite(table: "team", PostgresQuery(unsafeSQL: sql, binds: text.binds), returning: Self.returning)
    }
}
