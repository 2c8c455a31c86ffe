import GRDB
import LiveResults
import LiveResultsSQLite
import WorldCup

/// The database schema, as migrations.
public enum Schema {
    /// The version the latest migration brings the schema to.
    public static let version = "v11"

    /// The index that holds the teams in `Team.boardOrder`.
    static let boardIndexName = "team_in_scoreboard_order"

    /// The columns of the board's index: the zone, `Team.boardOrder`, then the id (the
    /// tie-breaker), then the folded name, so that SQLite reads a zone's teams, filtered by
    /// name or not, from the index alone (and a zone's teams, for a merge, by its first column).
    public static var boardIndexColumns: [String] {
        ["zoneID"] + SortColumn.indexColumns(Team.boardOrder) + ["id", "nameKey"]
    }

    /// The teams with their zone's name (`qualifyingZone`), as `Team` reads them: add a WHERE,
    /// and `boardOrderSQL` for the board's order.
    static let teamsWithZone = "SELECT team.*, zone.name AS qualifyingZone FROM team JOIN zone ON zone.id = team.zoneID"

    /// The board's order over `teamsWithZone`: the zones' positions, then `Team.boardOrder`.
    static var boardOrderSQL: String {
        (["zone.position", "zone.id"] + Team.boardOrder.map { "team." + $0.orderingTerm } + ["team.id"]).joined(separator: ", ")
    }

    /// The migrations, oldest first.
    public static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.create(table: "team") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("teamName", .text).notNull()
                    .check(sql: "length(trim(teamName)) > 0")
                t.column("qualifyingZone", .text).notNull()
                    .check(sql: "length(trim(qualifyingZone)) > 0")
                t.column("imageName", .text).notNull()
                t.column("wins", .integer).notNull().defaults(to: 0)
                    .check { $0 >= 0 }
                // Names are unique ignoring case: the app stores the folded name beside it.
                t.column("nameKey", .text).notNull().unique()
            }
            try db.create(index: "team_on_zone_wins_name", on: "team", columns: ["qualifyingZone", "wins", "teamName"])
            // One row once the seed was imported, so a database emptied later is not seeded again.
            try db.create(table: "seedImport") { t in
                t.primaryKey("id", .integer).check { $0 == 1 }
                t.column("importedAt", .datetime).notNull()
            }
        }
        // The change log: every commit to the team table, from any process, is recorded, so
        // every open scoreboard shows it and the section cache knows when it is stale.
        migrator.registerMigration("v2") { db in
            try ChangeLog.install(on: "team", in: db)
        }
        // An index in the scoreboard's exact order (`Team.boardOrder`, then id, the
        // tie-breaker), holding the folded name last: SQLite then reads the whole board, filtered
        // by name or not, from the index alone, without sorting and without visiting the table
        // (README, Benchmarks, has what that saves).
        migrator.registerMigration("v3") { db in
            // IF (NOT) EXISTS: a process migrating a new file at the same moment may have done it.
            // The order of that time, written out: v6 builds the index of `Team.boardOrder`.
            let order = [SortColumn("qualifyingZone"), SortColumn("wins", ascending: false), SortColumn("teamName")]
            let columns = SortColumn.indexColumns(order) + ["id", "nameKey"]
            try db.execute(sql: """
                DROP INDEX IF EXISTS team_on_zone_wins_name;
                CREATE INDEX IF NOT EXISTS \(boardIndexName) ON team (\(columns.joined(separator: ", ")));
                """)
        }
        // The change log again: it now summarises the entries it prunes (a scoreboard that fell
        // far behind still learns exactly which teams changed) and records the teams a
        // REPLACE on the unique folded name removes.
        migrator.registerMigration("v4") { db in
            try ChangeLog.install(on: "team", in: db)
        }
        // The change log a third time: its positions no longer come from AUTOINCREMENT, which
        // wrote `sqlite_sequence` at every commit (a quarter of a tap's commit at a million teams).
        migrator.registerMigration("v5") { db in
            try ChangeLog.install(on: "team", in: db)
        }
        // Names as people read them: the board sorts by the name with case and accents folded
        // (`nameSortKey`), then by the name's bytes. The key is filled for the teams there, with
        // the app's own folding, and the board's index built again in the new order. The fill
        // is not logged: no board reads the column before this migration ends (older programs
        // never do, and section caches are made again for the new schema).
        migrator.registerMigration("v6") { db in
            try db.execute(sql: "ALTER TABLE team ADD COLUMN nameSortKey TEXT NOT NULL DEFAULT ''")
            try withNameSortKeyFunction(db) {
                try ChangeLog.withoutLoggingUpdates(of: "team", in: db) {
                    try db.execute(sql: "UPDATE team SET nameSortKey = worldcup_name_sort_key(teamName)")
                }
            }
            // The order of that time, written out: v9 builds the index with the zone's id.
            try db.execute(sql: """
                DROP INDEX IF EXISTS \(boardIndexName);
                CREATE INDEX \(boardIndexName) ON team (qualifyingZone, wins DESC, nameSortKey, id, nameKey);
                """)
        }
        // Who changed what: the history, one entry per change, written in the change's own
        // transaction (`SQLiteTeamStore.record`). The teams are not touched.
        migrator.registerMigration("v7") { db in
            try db.execute(sql: """
                CREATE TABLE IF NOT EXISTS history (
                    id INTEGER PRIMARY KEY,
                    at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
                    author TEXT NOT NULL,
                    action TEXT NOT NULL CHECK (action IN ('tap', 'add', 'delete', 'edit', 'undo')),
                    teamID INTEGER NOT NULL,
                    teamName TEXT NOT NULL,
                    oldName TEXT, oldZone TEXT, oldImage TEXT, oldWins INTEGER,
                    newName TEXT, newZone TEXT, newImage TEXT, newWins INTEGER,
                    undid TEXT,
                    undoneBy INTEGER);
                CREATE INDEX IF NOT EXISTS history_by_author ON history (author, id);
                """)
        }
        // Undo you can trust: an undo or a redo names the entry it takes back (`reverts`), an
        // entry whose undo a rule refused is passed over by the next `worldcup undo`
        // (`refused`), and a tap records the team before and after like every change (its
        // entries of before, which kept one side, get the other: one win less).
        migrator.registerMigration("v8") { db in
            try db.execute(sql: """
                ALTER TABLE history ADD COLUMN reverts INTEGER;
                ALTER TABLE history ADD COLUMN refused INTEGER NOT NULL DEFAULT 0;
                UPDATE history SET oldName = newName, oldZone = newZone, oldImage = newImage, oldWins = newWins - 1
                    WHERE action = 'tap' AND oldWins IS NULL AND newWins IS NOT NULL;
                """)
        }
        // Zones become a table of their own (Zones.md in docs/GUIDE.md): a zone can be renamed,
        // moved and merged in one change, and the board sections through it. The zones are the
        // teams' distinct zones, those equal ignoring case and normalisation merged (the
        // spelling first in byte order, as an add's spelling was chosen), numbered in
        // alphabetical order (folded, as names sort). The team table is made again with
        // `zoneID` for its text zone (ids and the id sequence kept), the history with the
        // zone's columns and actions, and the change log installed on both tables.
        migrator.registerMigration("v9") { db in
            try migrateToZones(db)
        }
        // A reset is a change done in place, recorded like any other: the history's actions
        // take `reset` (its entry names who reset the board, for every board open on it).
        migrator.registerMigration("v10") { db in
            try recordResets(db)
        }
        // The board's filter and the command line find a name as one rule (`Team.folded`),
        // which now takes the typographic apostrophes as the typewriter's: the sort keys of the
        // names that hold one are folded so again. Logged, unlike v6's fill: boards open on the
        // file read the column, and follow (the order of such names may change).
        migrator.registerMigration("v11") { db in
            let holdsOne = Team.typographicApostrophes.map { "instr(teamName, '\(Character($0))') > 0" }.joined(separator: " OR ")
            try withNameSortKeyFunction(db) {
                try db.execute(sql: "UPDATE team SET nameSortKey = worldcup_name_sort_key(teamName) WHERE \(holdsOne)")
            }
        }
        return migrator
    }

    /// Runs `body` with the SQL function `worldcup_name_sort_key(name)`: the app's own folding
    /// (`Team.nameSortKey`), which no function of SQLite's matches.
    private static func withNameSortKeyFunction(_ db: Database, _ body: () throws -> Void) throws {
        let fold = DatabaseFunction("worldcup_name_sort_key", argumentCount: 1, pure: true) { values in
            String.fromDatabaseValue(values[0]).map(Team.nameSortKey)
        }
        db.add(function: fold)
        defer { db.remove(function: fold) }
        try body()
    }

    /// Migration v10 (see `migrator`): the history made again with `reset` among its actions,
    /// every entry and id kept.
    private static func recordResets(_ db: Database) throws {
        // Another process opening the file at the same moment may have done it (see v9).
        let sql = try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'history'") ?? ""
        guard !sql.contains("'reset'") else { return }
        try remakeHistory(db, as: "v10", actions: zoneActions + ["reset"], copying: columnsBeforeZones + zoneColumns)
    }

    /// Migration v9 (see `migrator`).
    private static func migrateToZones(_ db: Database) throws {
        // Another process opening a new file at the same moment may have done it since this
        // one read which migrations were applied: its record of v9 then fails as a race
        // (`DatabaseFile.retryingRaces`), and the next attempt finds it done.
        guard try db.columns(in: "team").contains(where: { $0.name == "qualifyingZone" }) else { return }
        // The zones, one per name key: the first spelling in byte order, positions alphabetical.
        var spellings: [String: String] = [:]
        for zone in try String.fetchAll(db, sql: "SELECT DISTINCT qualifyingZone FROM team ORDER BY qualifyingZone") {
            let key = Zone.nameKey(zone)
            if spellings[key] == nil { spellings[key] = zone }
        }
        try db.execute(sql: """
            CREATE TABLE zone (
                id INTEGER PRIMARY KEY,
                name TEXT NOT NULL CHECK (length(trim(name)) > 0),
                nameKey TEXT NOT NULL UNIQUE,
                position INTEGER NOT NULL CHECK (position >= 0));
            """)
        for (position, name) in Zone.alphabetical(Array(spellings.values)).enumerated() {
            try db.execute(sql: "INSERT INTO zone (name, nameKey, position) VALUES (?, ?, ?)", arguments: [name, Zone.nameKey(name), position])
        }
        let key = DatabaseFunction("worldcup_zone_key", argumentCount: 1, pure: true) { values in
            String.fromDatabaseValue(values[0]).map(Zone.nameKey)
        }
        db.add(function: key)
        defer { db.remove(function: key) }
        let sequence = try Int64.fetchOne(db, sql: "SELECT seq FROM sqlite_sequence WHERE name = 'team'")
        try db.execute(sql: """
            CREATE TABLE team_v9 (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                teamName TEXT NOT NULL CHECK (length(trim(teamName)) > 0),
                zoneID INTEGER NOT NULL REFERENCES zone(id),
                imageName TEXT NOT NULL,
                wins INTEGER NOT NULL DEFAULT 0 CHECK (wins >= 0),
                nameKey TEXT NOT NULL UNIQUE,
                nameSortKey TEXT NOT NULL);
            INSERT INTO team_v9 (id, teamName, zoneID, imageName, wins, nameKey, nameSortKey)
                SELECT team.id, teamName, zone.id, imageName, wins, team.nameKey, nameSortKey
                FROM team JOIN zone ON zone.nameKey = worldcup_zone_key(team.qualifyingZone);
            DROP TABLE team;
            ALTER TABLE team_v9 RENAME TO team;
            CREATE INDEX \(boardIndexName) ON team (\(boardIndexColumns.joined(separator: ", ")));
            """)
        // The id sequence as it was: a deleted team's id is never given to another (its undo
        // brings it back with it).
        if let sequence {
            try db.execute(sql: "UPDATE sqlite_sequence SET seq = max(seq, ?) WHERE name = 'team'", arguments: [sequence])
        }
        try remakeHistory(db, as: "v9", actions: zoneActions, copying: columnsBeforeZones)
        try ChangeLog.install(on: "team", in: db)
        try ChangeLog.install(on: "zone", in: db)
    }

    /// The history's actions from v9 on (v10 adds `reset`).
    private static let zoneActions = ["tap", "add", "delete", "edit", "undo", "renameZone", "moveZone", "mergeZone"]
    /// The history's columns before v9.
    private static let columnsBeforeZones = ["id", "at", "author", "action", "teamID", "teamName", "oldName", "oldZone", "oldImage", "oldWins",
                                             "newName", "newZone", "newImage", "newWins", "undid", "undoneBy", "reverts", "refused"]
    /// The zone changes' columns, which v9 adds to the history.
    private static let zoneColumns = ["oldPosition", "newPosition", "intoZoneID", "intoName", "teamIDs"]

    /// Makes the history table again with its columns since v9 and `actions` as the actions
    /// it takes (SQLite changes a CHECK only so), copying the `copied` columns of every entry
    /// (those of the zones' changes were added by v9). `version` names the migration's table
    /// while both exist.
    private static func remakeHistory(_ db: Database, as version: String, actions: [String], copying copied: [String]) throws {
        let table = "history_" + version
        let columns = copied.joined(separator: ", ")
        try db.execute(sql: """
            CREATE TABLE \(table) (
                id INTEGER PRIMARY KEY,
                at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
                author TEXT NOT NULL,
                action TEXT NOT NULL CHECK (action IN (\(actions.map { "'\($0)'" }.joined(separator: ", ")))),
                teamID INTEGER NOT NULL,
                teamName TEXT NOT NULL,
                oldName TEXT, oldZone TEXT, oldImage TEXT, oldWins INTEGER,
                newName TEXT, newZone TEXT, newImage TEXT, newWins INTEGER,
                undid TEXT,
                undoneBy INTEGER,
                reverts INTEGER,
                refused INTEGER NOT NULL DEFAULT 0,
                oldPosition INTEGER, newPosition INTEGER, intoZoneID INTEGER, intoName TEXT, teamIDs TEXT);
            INSERT INTO \(table) (\(columns)) SELECT \(columns) FROM history;
            DROP TABLE history;
            ALTER TABLE \(table) RENAME TO history;
            CREATE INDEX history_by_author ON history (author, id);
            """)
    }
}
