import GRDB
import LiveResults

/// The database schema, as migrations.
public enum Schema {
    /// The version the latest migration brings the schema to.
    public static let version = "v5"

    /// The index that holds the teams in `Team.boardOrder`.
    static let boardIndexName = "team_in_scoreboard_order"

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
            let columns = SortColumn.indexColumns(Team.boardOrder) + ["id", "nameKey"]
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
        return migrator
    }
}
