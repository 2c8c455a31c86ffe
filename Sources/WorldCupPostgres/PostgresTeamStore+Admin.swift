import Foundation
import PostgresNIO
import WorldCup

extension PostgresTeamStore {
    /// What `check` found: the schema's version (nil: an empty database, no scoreboard yet) and
    /// the number of teams.
    public struct Inspection: Equatable, Sendable {
        public var version: Int?
        public var teamCount: Int?
        /// Whether the connection was encrypted; nil on a Unix socket (never encrypted, never on a network).
        public var encryption: Encryption?

        public init(version: Int?, teamCount: Int?, encryption: Encryption? = nil) {
            self.version = version
            self.teamCount = teamCount
            self.encryption = encryption
        }
    }

    /// The tables and the trigger a sound scoreboard has.
    static let expectedTables = ["team", "seedImport", "tap", "history", "liveresults_change"]

    /// Checks the database at `location` without creating or changing anything: the server's
    /// version, then that it is empty or a worldcup scoreboard this program knows (its schema
    /// version, its tables and change log), and counts the teams. Throws one sentence when it
    /// cannot be reached or is not sound.
    public static func check(location: PostgresLocation, deadline: Duration = defaultDeadline) throws -> Inspection {
        let store = try PostgresTeamStore(location: location, deadline: deadline)
        return try store.run { connection in
            let migration = PostgresMigration(location: location, connection: connection)
            let found = try migration.firstLook().state
            try migration.check(found)
            let encryption = location.url.socketDirectory == nil ? try store.encryption(of: connection) : nil
            guard let version = found.version else { return Inspection(version: nil, teamCount: nil, encryption: encryption) }
            // The first table missing, and the change log's triggers, in one statement.
            let (missing, triggers) = try query(connection, """
                SELECT (SELECT name FROM unnest(\(expectedTables)::text[]) WITH ORDINALITY AS expected(name, n)
                        WHERE to_regclass(quote_ident(name)) IS NULL ORDER BY n LIMIT 1),
                    (SELECT count(*) FROM pg_trigger WHERE tgrelid = to_regclass('team') AND tgname IN ('liveresults_log', 'liveresults_log_truncate'))
                """).first?.decode((String?, Int64).self) ?? (nil, Int64(0))
            if let table = missing {
                throw WorldCupError("The database \(location.databaseAndServer) has no “\(table)” table: it is not a sound worldcup scoreboard.")
            }
            guard triggers == 2 else {
                throw WorldCupError("The database \(location.databaseAndServer) has lost the change log's triggers on its teams: it is not a sound worldcup scoreboard.")
            }
            let teams = try query(connection, "SELECT count(*) FROM team").single(Int64.self) ?? 0
            return Inspection(version: version, teamCount: Int(teams), encryption: encryption)
        }
    }

    /// Why a board on the database at `location` would be read-only for this user (see
    /// `PostgresMigration.firstLook`), found without creating or changing anything; nil when
    /// the user may change it.
    public static func access(location: PostgresLocation, deadline: Duration = defaultDeadline) throws -> ReadOnlyBoard? {
        let store = try PostgresTeamStore(location: location, deadline: deadline)
        return try store.run { connection in
            let migration = PostgresMigration(location: location, connection: connection)
            let look = try migration.firstLook()
            try migration.check(look.state)
            return look.access
        }
    }

    /// One sentence on what the database at `location` holds, for a person about to replace
    /// it (`worldcup reset`).
    public static func condition(of location: PostgresLocation) -> String {
        do {
            let found = try check(location: location)
            guard let teams = found.teamCount else { return "The database \(location.databaseAndServer) is empty." }
            return "The database \(location.databaseAndServer) passed its check and holds \(teams == 1 ? "1 team" : "\(teams) teams")."
        } catch {
            return "\(error)"
        }
    }

    /// Replaces every team of the database at `location` with `teams` (already checked, such
    /// as `Seed.bundled()`) in one transaction, creating the schema first if needed: every
    /// open scoreboard sees the whole board change at once, and the history's entry of the
    /// reset names `author`. Returns the number of teams.
    @discardableResult
    public static func reset(location: PostgresLocation, seed teams: [SeedTeam], author: String = Author.machineDefault(),
                             deadline: Duration = defaultDeadline) throws -> Int {
        let store = try PostgresTeamStore(location: location, seed: nil, deadline: deadline, author: author)
        try store.refuseIfReadOnly()
        return try store.change { connection in
            try transaction(connection) {
                try query(connection, "SELECT pg_advisory_xact_lock(\(PostgresSchema.migrationLock))")
                try query(connection, "TRUNCATE team")
                // The zones too, row by row (the change log records each): the seed's come back
                // in alphabetical order.
                try lockZones(connection)
                try query(connection, "DELETE FROM zone")
                try PostgresMigration.importSeed(teams, connection)
                try query(connection, """
                    INSERT INTO history ("writeID", author, action, "teamID", "teamName")
                    VALUES (\(UUID()), \(author), \(TeamChange.Action.reset.rawValue), 0, '')
                    """)
                return Int(try query(connection, "SELECT count(*) FROM team").single(Int64.self) ?? 0)
            }
        }
    }
}
