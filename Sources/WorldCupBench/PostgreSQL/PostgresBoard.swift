import Dispatch
import Foundation
import LiveResults
import LiveResultsPostgres
import NIOCore
import NIOPosix
import PostgresNIO
import Synchronization
import ThrowawayPostgres
import WorldCup
import WorldCupPostgres
import WorldCupSQLite

/// The generated scoreboard on PostgreSQL: a database of its own on the server, holding the
/// `team` table and the board's index exactly as the product builds them (`PostgresSchema`),
/// and the change log.
struct PostgresBoard {
    /// The server (the database `postgres` of it, for creating and dropping others).
    let server: PostgresURL
    /// This board's database.
    let url: PostgresURL

    static let logger = Logger(label: "worldcup-bench")
    static let databasePrefix = "worldcup_bench_"
    /// The board's index, as the product declares it (`PostgresSchema`).
    static let indexName = PostgresSchema.boardIndexName

    /// A quoted identifier.
    static func identifier(_ name: String) -> String {
        PostgresSchema.identifier(name)
    }

    /// The board's order as the product's index and the controller's key query have it
    /// (`PostgresSchema.orderTerms`): the peer's query uses it too, so all read the index in order.
    static var orderSQL: String { PostgresSchema.orderSQL }

    /// The peer's query: the ordered ids.
    static var peerSQL: String { "SELECT id FROM team ORDER BY \(orderSQL)" }

    /// The shape of the controller's key query (id, sort columns, section column), whose plan is checked.
    static var keyQuerySQL: String {
        let columns = ["id"] + BenchRequest.postgresRequest.sortDescriptors.map(\.column) + [BenchRequest.postgresSectionColumn]
        return "SELECT \(columns.map(identifier).joined(separator: ", ")) FROM team ORDER BY \(orderSQL)"
    }

    /// Creates a fresh database on `server` and builds the scoreboard of `rows` generated teams
    /// in it: the same teams as `BenchDatabase.build` with the same seed (ids 1...rows).
    static func build(rows: Int, server: PostgresURL, seed: UInt64) throws -> PostgresBoard {
        var url = server
        url.database = databasePrefix + "\(getpid())_\(rows)"
        let board = PostgresBoard(server: server, url: url)
        try PG.withConnection(server) { admin in
            try PG.execute(admin, "DROP DATABASE IF EXISTS \(identifier(url.database)) WITH (FORCE)")
            try PG.execute(admin, "CREATE DATABASE \(identifier(url.database))")
        }
        try PG.withConnection(url) { connection in
            // Every tap writes its history entry, as the app's does.
            for statement in PostgresSchema.zoneAndHistoryStatements { try PG.execute(connection, statement) }
            for (position, zone) in GeneratedTeams.zones.enumerated() {
                try PG.execute(connection, "INSERT INTO zone (id, name, \"nameKey\", position) VALUES (\(position + 1), '\(zone)', '\(Team.nameKey(zone))', \(position))")
            }
            try PG.execute(connection, PostgresSchema.createTeamTable)
            try load(rows: rows, seed: seed, connection: connection)
            // After the load: building the indexes once is faster than maintaining them.
            for statement in PostgresSchema.teamIndexes { try PG.execute(connection, statement) }
            // The visibility map, so the key query is an index-only scan, and statistics.
            try PG.execute(connection, "VACUUM (ANALYZE) team")
            // As the product's migration installs it: the joined request follows the zone table too.
            try PG.await {
                try await PostgresChangeLog.install(on: "team", payloadColumns: PostgresSchema.notifiedColumns, connection: connection, logger: logger)
                try await PostgresChangeLog.install(on: "zone", payloadColumns: [], connection: connection, logger: logger)
            }
            let found = try connection.query("SELECT count(*), max(id) FROM team", logger: logger).waitWithin(.long(.minutes(30))).first?.decode((Int64, Int64?).self)
            guard let found, found.0 == rows, found.1 == Int64(rows) else {
                throw BenchError("The generated PostgreSQL database holds \(found?.0 ?? 0) teams with ids up to \(found?.1 ?? 0) instead of \(rows).")
            }
        }
        return board
    }

    /// Streams the teams in with COPY (text format), about a megabyte at a time.
    private static func load(rows: Int, seed: UInt64, connection: PostgresConnection) throws {
        try PG.await {
            try await connection.copyFrom(table: "team", columns: GeneratedTeams.columns.map(\.name), // quoted by copyFrom
                                          logger: logger) { writer in
                var buffer = ByteBuffer()
                buffer.reserveCapacity(1 << 20)
                for team in GeneratedTeams(rows: rows, seed: seed) {
                    buffer.writeString(GeneratedTeams.values(of: team).map(copyField).joined(separator: "\t") + "\n")
                    if buffer.readableBytes >= 1 << 20 {
                        try await writer.write(buffer)
                        buffer.clear()
                    }
                }
                if buffer.readableBytes > 0 { try await writer.write(buffer) }
            }
        }
    }

    /// A value as a field of COPY's text format.
    private static func copyField(_ value: ColumnValue) -> String {
        switch value {
        case .null: return "\\N"
        case .integer(let number): return String(number)
        case .real(let number): return String(number)
        case .text(let text):
            return text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\t", with: "\\t")
                .replacingOccurrences(of: "\n", with: "\\n").replacingOccurrences(of: "\r", with: "\\r")
        case .blob(let data): return "\\\\x" + data.map { String(format: "%02x", $0) }.joined()
        }
    }

    /// The plan of `sql`, one line per node.
    func plan(_ sql: String) throws -> [String] {
        try PG.withConnection(url) { connection in
            try connection.query(PostgresQuery(unsafeSQL: "EXPLAIN " + sql), logger: Self.logger).waitWithin(.long(.minutes(30))).map { try $0.decode(String.self) }
        }
    }

    /// Whether a plan reads the board's index in order (no sort step).
    static func readsIndexInOrder(_ plan: [String]) -> Bool {
        plan.contains { $0.contains("using \(indexName)") } && !plan.contains { $0.contains("Sort") }
    }

    /// Removes the change log's triggers, for the floor.
    func dropTriggers() throws {
        try PG.withConnection(url) { connection in
            for trigger in ["liveresults_log", "liveresults_log_truncate"] {
                try PG.execute(connection, "DROP TRIGGER IF EXISTS \(trigger) ON team")
            }
        }
    }

    /// Drops the board's database.
    func drop() {
        _ = try? PG.withConnection(server) { admin in
            try PG.execute(admin, "DROP DATABASE IF EXISTS \(Self.identifier(url.database)) WITH (FORCE)")
        }
    }
}

/// Synchronous helpers over postgres-nio for the benchmark's own thread (never an event loop's).
enum PG {
    private static let nextID = Atomic<Int>(0)

    static func connect(_ url: PostgresURL) throws -> PostgresConnection {
        let id = nextID.add(1, ordering: .relaxed).newValue
        return try PostgresConnection.connect(on: MultiThreadedEventLoopGroup.singleton.next(), configuration: url.configuration,
                                              id: id, logger: PostgresBoard.logger).waitWithin(.long(.minutes(30)))
    }

    static func withConnection<T>(_ url: PostgresURL, _ body: (PostgresConnection) throws -> T) throws -> T {
        let connection = try connect(url)
        defer { try? connection.close().waitWithin(.long(.minutes(30))) }
        return try body(connection)
    }

    static func execute(_ connection: PostgresConnection, _ sql: String) throws {
        _ = try connection.query(PostgresQuery(unsafeSQL: sql), logger: PostgresBoard.logger).waitWithin(.long(.minutes(30)))
    }

    /// Runs async work and waits for it on this thread. The work runs on an event loop, not
    /// on Swift's shared pool, whose threads a caller like this one (a test) may be holding.
    static func await<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
        try EventLoopTaskExecutor.wait(body)
    }

    /// A server's error in one sentence (PSQLError hides the server's message from its description).
    static func message(_ error: any Error) -> String {
        if let error = error as? PSQLError {
            if let message = error.serverInfo?[.message] { return message }
            if let underlying = error.underlying { return "\(underlying)" }
            return "\(error.code)"
        }
        return "\(error)"
    }
}
