import GRDB
import LiveResults
import WorldCup

/// The database schema, as migrations.
public enum Schema {
    /// The version the latest migration brings the schema to.
    public static let version = "v8"

    /// The index that holds the teams in `Team.boardOrder`.
    static let boardIndexName = "team_in_scoreboard_order"

    /// The columns of the board's index: `Team.boardOrder`, then the id (the tie-breaker),
    /// then the folded name, so that SQLite reads the whole board, filtered by name or not,
    /// from the index alone.
    public static var boardIndexColumns: [String] {
        SortColumn.indexColumns(Team.boardOrder) + ["id", "nameKey"]
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
            let fold = DatabaseFunction("worldcup_name_sort_key", argumentCount: 1, pure: true) { values in
                String.fromDatabaseValue(values[0]).map(Team.nameSortKey)
            }
            db.add(function: fold)
            defer { db.remove(function: fold) }
            try ChangeLog.withoutLoggingUpdates(of: "team", in: db) {
                try db.execute(sql: "UPDATE team SET nameSortKey = worldcup_name_sort_key(teamName)")
            }
            try db.execute(sql: """
                DROP INDEX IF EXISTS \(boardIndexName);
                CREATE INDEX \(boardIndexName) ON team (\(boardIndexColumns.joined(separator: ", ")));
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
        return migrator
    }
}
