import Foundation
import LiveResultsPostgres
import NIOCore
import PostgresNIO
import WorldCup

/// Opening a database: the checks made before anything is written, the migrations and the
/// first seed import, on one connection.
///
/// Migrations and the seed import run in one transaction under an advisory lock
/// (`PostgresSchema.migrationLock`), which then looks again at what is there: when many
/// clients of the same version start together on an empty database, one builds the schema
/// and imports the seed, and the others find it done. A database already at this version and
/// seeded is opened without the lock.
struct PostgresMigration {
    let location: PostgresLocation
    let connection: PostgresConnection

    /// What a database holds, as far as opening it cares.
    struct State {
        /// The schema's version; nil when there is no worldcup schema.
        var version: Int?
        /// Whether the database holds tables of its own that are not worldcup's.
        var hasOtherTables: Bool
        /// Whether a seed was imported, or teams exist anyway.
        var isSeeded: Bool
    }

    /// Checks what `firstLook` found of the server and the database, and of what this session
    /// may change (`access`, unless `readOnlyAsked` says it must not change anything), and
    /// migrates and seeds the database if needed and allowed. Returns why the board is
    /// read-only, if it is. A read-only session writes nothing: a database it cannot open as it
    /// is (no scoreboard yet, or an older schema) is refused in one sentence.
    ///
    /// On a database already set up, opening costs `firstLook`'s two statements and nothing more.
    func prepare(found: State, access: ReadOnlyBoard?, seed: [SeedTeam]?, readOnlyAsked: Bool) throws -> ReadOnlyBoard? {
        try check(found)
        let readOnly = readOnlyAsked ? .asked : access
        if found.version == PostgresSchema.version, seed == nil || found.isSeeded || readOnly != nil { return readOnly }
        if let readOnly { throw setUpRefusal(found, readOnly) }
        try checkMayCreate(found)
        try PostgresTeamStore.transaction(connection) {
            try query("SELECT pg_advisory_xact_lock(\(PostgresSchema.migrationLock))")
            // A board in a schema of its own (`options=-c search_path=…`) makes the schema first.
            if let schema = location.schema {
                try query(PostgresQuery(unsafeSQL: "CREATE SCHEMA IF NOT EXISTS \(PostgresSchema.identifier(schema))"))
            }
            let found = try state()
            try check(found)
            try migrate(from: found.version ?? 0)
            if let seed, !found.isSeeded { try PostgresMigration.importSeed(seed, connection) }
        }
        return nil
    }

    /// The server's version (refused when too old), what the database holds, what this
    /// session may do and whether its connection is encrypted (as `pg_stat_ssl` says), in one
    /// statement, and the schema's version and seed in a second when there is a schema.
    func firstLook() throws -> (state: State, access: ReadOnlyBoard?, encrypted: Bool) {
        let row = try query("""
            SELECT current_setting('server_version_num'), \(unescaped: Self.tablesFound),
                current_setting('transaction_read_only') = 'on',
                coalesce((SELECT ssl FROM pg_catalog.pg_stat_ssl WHERE pid = pg_backend_pid()), false),
                CASE WHEN to_regclass('team') IS NULL
                    -- No schema yet (one named in `options` is made first): the database's CREATE.
                    THEN coalesce(has_schema_privilege(current_schema(), 'CREATE'), has_database_privilege(current_database(), 'CREATE'))
                ELSE has_table_privilege('team', 'INSERT') AND has_table_privilege('team', 'UPDATE')
                    AND has_table_privilege('team', 'DELETE')
                    AND coalesce(has_table_privilege(to_regclass('zone'), 'INSERT') AND has_table_privilege(to_regclass('zone'), 'UPDATE')
                        AND has_table_privilege(to_regclass('zone'), 'DELETE'), has_schema_privilege(current_schema(), 'CREATE'))
                    AND coalesce(has_table_privilege(to_regclass('history'), 'INSERT'), has_schema_privilege(current_schema(), 'CREATE'))
                    AND coalesce(has_table_privilege(to_regclass('history'), 'SELECT'), has_schema_privilege(current_schema(), 'CREATE'))
                    AND coalesce(has_table_privilege(to_regclass('history'), 'UPDATE'), has_schema_privilege(current_schema(), 'CREATE'))
                    AND coalesce(has_table_privilege(to_regclass('\(unescaped: PostgresChangeLog.tableName)'), 'INSERT'), false)
                END
            """).first?.decode((String, Bool, Bool, String?, String, String, String, Bool, Bool, Bool?).self)
        let (version, isOurs, hasTables, unreadable, user, userIdentifier, schema, readOnlySession, encrypted, mayWrite) = row
            ?? ("0", false, false, nil, location.url.user, location.url.user, "public", false, false, true)
        try PostgresSchema.checkServer(versionNumber: Int(version) ?? 0, server: location.server)
        // What this session may do, asked of the server (never by trying a write): nil when it
        // may make every change a board makes (every change writes `team`, the history and
        // the change log; a history not made yet, the user must be able to make), or, before
        // there is a scoreboard, create its tables; otherwise why the board is read-only.
        let access: ReadOnlyBoard? = readOnlySession ? .server : mayWrite == false ? .role(user: user) : nil
        return (try state(Found((isOurs, hasTables, unreadable, user, userIdentifier, schema))), access, encrypted)
    }

    /// The sentence for a database a read-only session cannot open as it is.
    private func setUpRefusal(_ found: State, _ readOnly: ReadOnlyBoard) -> WorldCupError {
        let what = found.version == nil ? "has no worldcup scoreboard yet" : "has an older worldcup schema"
        switch readOnly {
        case .asked:
            return WorldCupError("The database \(location.databaseAndServer) \(what), and a read-only board cannot set it up: open it once without --read-only.")
        case .role(let user):
            return WorldCupError("The database \(location.databaseAndServer) \(what), and the user “\(WorldCupError.quotable(user))” may not set it up: open it once as its owner.")
        case .server:
            return WorldCupError("The database \(location.databaseAndServer) \(what), and the server lets this session only read: open it once as a user whose sessions may write.")
        }
    }

    /// What the database holds.
    func state() throws -> State {
        let row = try query("SELECT \(unescaped: Self.tablesFound)").first?.decode((Bool, Bool, String?, String, String, String).self)
        return try state(Found(row ?? (false, false, nil, location.url.user, location.url.user, "public")))
    }

    /// The tables every board reads, a watcher's too, as a list of SQL strings.
    private static let boardTables = [PostgresSchema.versionTable, "seedImport", "team", "zone", "history", PostgresChangeLog.tableName, PostgresChangeLog.prunedTableName]
        .map { "'\($0)'" }.joined(separator: ", ")

    /// Whether the database has a worldcup schema, and tables of any kind; the tables of the
    /// board's schema this user may not read (a grant covers only the tables there when it
    /// was made); the user, as text and as an identifier, and the schema as an identifier.
    private static let tablesFound = """
        to_regclass('\(PostgresSchema.versionTable)') IS NOT NULL, EXISTS (SELECT 1 FROM pg_catalog.pg_tables WHERE schemaname = current_schema()),
        (SELECT string_agg(c.relname::text, ', ' ORDER BY c.relname) FROM pg_catalog.pg_class c
         WHERE c.relnamespace = to_regnamespace(current_schema()) AND c.relkind IN ('r', 'p')
         AND c.relname IN (\(boardTables)) AND NOT has_table_privilege(c.oid, 'SELECT')),
        current_user::text, quote_ident(current_user), coalesce(quote_ident(current_schema()), 'public')
        """

    /// What `tablesFound` says.
    private struct Found {
        var isOurs: Bool, hasTables: Bool, unreadable: String?, user: String, userIdentifier: String, schema: String

        init(_ row: (Bool, Bool, String?, String, String, String)) {
            (isOurs, hasTables, unreadable, user, userIdentifier, schema) = row
        }
    }

    /// What the database holds, given what `tablesFound` says.
    private func state(_ found: Found) throws -> State {
        guard found.isOurs else { return State(version: nil, hasOtherTables: found.hasTables, isSeeded: false) }
        if let unreadable = found.unreadable {
            throw WorldCupError("The user “\(WorldCupError.quotable(found.user))” may not read the board's tables \(unreadable) in \(location.databaseAndServer): as the board's owner, run GRANT SELECT ON ALL TABLES IN SCHEMA \(found.schema) TO \(found.userIdentifier) (a grant covers only the tables there when it was made).")
        }
        let (version, seeded) = try query("""
            SELECT version, EXISTS (SELECT 1 FROM "seedImport") OR EXISTS (SELECT 1 FROM team)
            FROM \(unescaped: PostgresSchema.versionTable)
            """).first?.decode((Int32, Bool).self) ?? (Int32(0), false)
        return State(version: Int(version), hasOtherTables: false, isSeeded: seeded)
    }

    /// Refuses a database of another program, or of a newer worldcup.
    func check(_ state: State) throws {
        if state.version == nil, state.hasOtherTables {
            throw WorldCupError("The database \(location.databaseAndServer) holds other tables and no worldcup scoreboard, so it was left alone.")
        }
        if let version = state.version { try PostgresSchema.checkVersion(version, location: location) }
    }

    /// Refuses to make a board (its schema, its seed) in one of the server's own databases;
    /// a board made there before is still opened.
    func checkMayCreate(_ state: State) throws {
        if state.version == nil, location.isServersOwnDatabase { throw location.serversOwnDatabaseRefusal }
    }

    /// Runs the migrations after `version` and records the new version (inside the caller's transaction).
    private func migrate(from version: Int) throws {
        guard version < PostgresSchema.version else { return }
        for version in (version + 1)...PostgresSchema.version {
            for step in PostgresSchema.migrations[version] ?? [] {
                switch step {
                case .sql(let statement): try query(PostgresQuery(unsafeSQL: statement))
                case .fillNameSortKeys: try fillNameSortKeys()
                case .foldApostrophesInNameSortKeys: try fillNameSortKeys(where: PostgresSchema.namesWithTypographicApostrophes)
                case .makeZones: try makeZones()
                }
            }
        }
        // The change log as this version installs it, synchronously (no task: this thread may
        // be one Swift concurrency needs to run it).
        for (table, columns) in [("team", PostgresSchema.notifiedColumns), ("zone", [])] {
            for statement in try PostgresChangeLog.installStatements(on: table, payloadColumns: columns) {
                try query(PostgresQuery(unsafeSQL: statement))
            }
        }
        try query("""
            INSERT INTO \(unescaped: PostgresSchema.versionTable) (version) VALUES (\(Int32(PostgresSchema.version)))
            ON CONFLICT (one) DO UPDATE SET version = EXCLUDED.version
            """)
    }

    /// Sets the `nameSortKey` of every team (or of those `condition` keeps) from its name, in
    /// one statement (inside the caller's transaction).
    private func fillNameSortKeys(where condition: String = "true") throws {
        let rows = try query(PostgresQuery(unsafeSQL: #"SELECT id, "teamName" FROM team WHERE "# + condition))
            .map { try $0.decode((Int64, String).self) }
        guard !rows.isEmpty else { return }
        let ids = rows.map(\.0)
        let keys = rows.map { Team.nameSortKey($0.1) }
        try query("""
            UPDATE team SET "nameSortKey" = folded.key
            FROM unnest(\(ids)::int8[], \(keys)::text[]) AS folded(id, key) WHERE team.id = folded.id
            """)
    }

    /// Makes the zones of the teams' text zones (migration 6): one per name key, the spelling
    /// first in byte order, positions alphabetical; then sets every team's `zoneID`.
    private func makeZones() throws {
        let spellings = try query(#"SELECT DISTINCT "qualifyingZone" COLLATE "C" FROM team ORDER BY 1"#).map { try $0.decode(String.self) }
        try PostgresMigration.insertZones(spellings, connection)
        let keys = spellings.map(Zone.nameKey)
        try query("""
            UPDATE team SET "zoneID" = zone.id FROM unnest(\(spellings)::text[], \(keys)::text[]) AS spelt(name, key)
            JOIN zone ON zone."nameKey" = spelt.key WHERE team."qualifyingZone" = spelt.name
            """)
    }

    /// Inserts a zone for each name key among `names` not yet a zone's (the first spelling of
    /// each), positions alphabetical after those there (inside the caller's transaction).
    static func insertZones(_ names: [String], _ connection: PostgresConnection) throws {
        var spellings: [String: String] = [:]
        for name in names where spellings[Zone.nameKey(name)] == nil { spellings[Zone.nameKey(name)] = name }
        let ordered = Zone.alphabetical(Array(spellings.values))
        let keys = ordered.map(Zone.nameKey)
        let positions = ordered.indices.map { Int32($0) }
        try PostgresTeamStore.query(connection, """
            INSERT INTO zone (name, "nameKey", position)
            SELECT name, key, position + (SELECT count(*) FROM zone) FROM unnest(\(ordered)::text[], \(keys)::text[], \(positions)::int4[]) AS z(name, key, position)
            ON CONFLICT ("nameKey") DO NOTHING
            """)
    }

    /// Inserts `teams` in one statement and marks the seed imported (inside the caller's transaction).
    static func importSeed(_ teams: [SeedTeam], _ connection: PostgresConnection) throws {
        let names = teams.map { TeamValidation.trimmed($0.teamName) }
        let zones = teams.map { TeamValidation.trimmed($0.qualifyingZone) }
        let images = teams.map(\.imageName)
        let wins = teams.map { Int32(clamping: $0.wins) }
        let keys = names.map(Team.nameKey)
        let sortKeys = names.map(Team.nameSortKey)
        let zoneKeys = zones.map(Zone.nameKey)
        try insertZones(zones, connection)
        try PostgresTeamStore.query(connection, """
            INSERT INTO team ("teamName", "zoneID", "imageName", wins, "nameKey", "nameSortKey")
            SELECT seed.name, zone.id, seed.image, seed.wins, seed.key, seed.sort_key
            FROM unnest(\(names)::text[], \(zoneKeys)::text[], \(images)::text[], \(wins)::int4[], \(keys)::text[], \(sortKeys)::text[])
                WITH ORDINALITY AS seed(name, zone_key, image, wins, key, sort_key, n)
            JOIN zone ON zone."nameKey" = seed.zone_key ORDER BY seed.n
            """)
        try PostgresTeamStore.query(connection, #"INSERT INTO "seedImport" (id) VALUES (1) ON CONFLICT (id) DO NOTHING"#)
    }

    @discardableResult
    private func query(_ query: PostgresQuery) throws -> PostgresQueryResult {
        try PostgresTeamStore.query(connection, query)
    }
}
