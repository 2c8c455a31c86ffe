import ArgumentParser
import Foundation
import ThrowawayPostgres

/// `worldcup-bench join`: sections through a related table. On a board of teams whose zones are
/// rows of a zone table (`JoinTables`), the cost of renaming a zone (a section update) and of
/// moving it one place (a section move): the controller against a refetch-and-diff peer and
/// against the bare UPDATE of the zone row, on SQLite and on PostgreSQL.
struct JoinCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "join",
        abstract: "Measure renaming and moving a zone of a board sectioned through a zone table: the controller, a refetch-and-diff peer, the bare UPDATE.")

    @Option(help: ArgumentHelp("Where the board lives: sqlite, postgres, or both (default).", valueName: "store"))
    var store: [BenchStore] = []

    @Option(name: .customLong("postgres-url"), help: ArgumentHelp("The PostgreSQL server to use instead of a throwaway one (the user must be allowed to create databases).", valueName: "url"))
    var postgresURL: String?

    @Option(help: ArgumentHelp("Teams on the board.", valueName: "n"))
    var rows = 1_000_000

    @Option(name: .customLong("zone-rows"), help: ArgumentHelp("Teams in each zone.", valueName: "n"))
    var zoneRows = 1_000

    @Option(help: ArgumentHelp("Measured renames and moves of the controller and of the floor.", valueName: "n"))
    var changes = 200

    @Option(name: .customLong("peer-changes"), help: ArgumentHelp("Measured renames and moves of the peer (each one refetches the board).", valueName: "n"))
    var peerChanges = 10

    @Option(help: ArgumentHelp("Seed of the random wins and of the zones changed.", valueName: "n"))
    var seed: UInt64 = 2014

    func validate() throws {
        if rows < 2 { throw ValidationError("--rows must be at least 2.") }
        if zoneRows < 1 || zoneRows * 2 > rows { throw ValidationError("--zone-rows must be at least 1 and at most half of --rows.") }
        if changes < 1 || peerChanges < 1 { throw ValidationError("--changes and --peer-changes must be at least 1.") }
        if let postgresURL, PostgresURL(string: postgresURL) == nil { throw ValidationError("--postgres-url must be a postgres:// URL.") }
    }

    func run() throws {
        let stores = store.isEmpty ? BenchStore.allCases : store
        let results = try BenchError.readable {
            try stores.map { store -> JoinResult in
                switch store {
                case .sqlite:
                    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("worldcup-bench-join-\(getpid())", isDirectory: true)
                    defer { try? FileManager.default.removeItem(at: folder) }
                    return try JoinSQLiteBenchmark(rows: rows, zoneRows: zoneRows, changes: changes, peerChanges: peerChanges, seed: seed, folder: folder).run()
                case .postgres:
                    let opened = try BenchServer.open(postgresURL: postgresURL, maxConnections: 20)
                    defer { opened.stop() }
                    return try JoinPostgresBenchmark(rows: rows, zoneRows: zoneRows, changes: changes, peerChanges: peerChanges, seed: seed, server: opened.url).run()
                }
            }
        }
        for result in results { for line in result.lines { print(line) } }
    }
}
