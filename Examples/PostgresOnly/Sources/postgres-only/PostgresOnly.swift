import Foundation
import LiveResults
import LiveResultsPostgres
import PostgresNIO

/// A player of the Getting Started article, decoded from PostgreSQL's row without GRDB.
struct Player: ColumnRowRecord {
    static let databaseTableName = "player"
    var name: String
    var team: String
    var score: Int

    init(row: some ColumnRow) throws {
        name = try row.decode(column: "name")
        team = try row.decode(column: "team")
        score = try row.decode(column: "score")
    }
}

/// Prints the players of a PostgreSQL database (PGHOST, PGPORT, PGUSER, PGPASSWORD,
/// PGDATABASE), by team, through a live query; then each change as it happens, until
/// `--once` stops after the first result.
@main
struct PostgresOnly {
    static func main() async {
        do {
            try await run(once: CommandLine.arguments.dropFirst().contains("--once"))
        } catch {
            FileHandle.standardError.write(Data("postgres-only: \(error)\n".utf8))
            exit(1)
        }
    }

    static func run(once: Bool) async throws {
        let environment = ProcessInfo.processInfo.environment
        let host = environment["PGHOST"] ?? "localhost", port = environment["PGPORT"].flatMap(Int.init) ?? 5432
        let user = environment["PGUSER"] ?? "postgres", password = environment["PGPASSWORD"], database = environment["PGDATABASE"]
        // A host that is a folder is the server's Unix socket's, as libpq reads PGHOST.
        let configuration = host.hasPrefix("/")
            ? PostgresConnection.Configuration(unixSocketPath: host + "/.s.PGSQL.\(port)", username: user, password: password, database: database)
            : PostgresConnection.Configuration(host: host, port: port, username: user, password: password, database: database, tls: .disable)
        let logger = Logger(label: "postgres-only")
        let setup = try await PostgresConnection.connect(configuration: configuration, id: 1, logger: logger)
        try await setup.query("CREATE TABLE IF NOT EXISTS player (id bigserial PRIMARY KEY, name text NOT NULL, team text NOT NULL, score bigint NOT NULL)", logger: logger)
        try await PostgresChangeLog.install(on: "player", connection: setup)
        try await setup.close()

        let controller = ResultsController(
            database: PostgresReader(configuration: configuration, deadline: .seconds(10)),
            fetchRequest: ResultsRequest<Player>(sortDescriptors: [SortColumn("team"), SortColumn("score", ascending: false)]),
            sectionNameKeyPath: "team")
        let query = try await LiveQuery(controller) { "\($0.team) \($0.name) \($0.score)" }
        let subscription = query.subscribe()
        let running = Task { try await query.run() }
        defer { running.cancel() }
        for try await update in subscription {
            switch update {
            case .snapshot(let snapshot):
                for section in snapshot.sections { for value in section.values { print(value) } }
            case .batch(let batch):
                print("version \(batch.version): \(batch.changes)")
            }
            if once { break }
        }
    }
}
