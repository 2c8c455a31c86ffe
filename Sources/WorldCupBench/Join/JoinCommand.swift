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

    // Names of their own: the parent command's options (--store, --rows, --seed, --postgres-url)
    // would take the values given after `join`.
    @Option(help: ArgumentHelp("Measure on this store only: sqlite or postgres (default: both).", valueName: "store"))
    var only: BenchStore?

    @Option(help: ArgumentHelp("The PostgreSQL server to use instead of a throwaway one (the user must be allowed to create databases).", valueName: "url"))
    var server: String?

    @Option(help: ArgumentHelp("Teams on the board.", valueName: "n"))
    var teams = 1_000_000

    @Option(name: .customLong("zone-teams"), help: ArgumentHelp("Teams in each zone.", valueName: "n"))
    var zoneTeams = 1_000

    @Option(help: ArgumentHelp("Measured renames and moves of the controller and of the floor.", valueName: "n"))
    var changes = 200

    @Option(name: .customLong("peer-changes"), help: ArgumentHelp("Measured renames and moves of the peer (each one refetches the board).", valueName: "n"))
    var peerChanges = 10

    @Option(name: .customLong("fetch-runs"), help: ArgumentHelp("Cold fetches, and bare selects of the same ids, whose median is reported.", valueName: "n"))
    var fetchRuns = 5

    @Flag(name: .customLong("fetch-only"), help: "Measure the cold fetch only, not the renames and moves.")
    var fetchOnly = false

    /// The seed of the random wins and of the zones changed.
    private static let seed: UInt64 = 2014

    func validate() throws {
        if teams < 2 { throw ValidationError("--teams must be at least 2.") }
        if zoneTeams < 1 || zoneTeams * 2 > teams { throw ValidationError("--zone-teams must be at least 1 and at most half of --teams.") }
        if changes < 1 || peerChanges < 1 || fetchRuns < 1 { throw ValidationError("--changes, --peer-changes and --fetch-runs must be at least 1.") }
        if let server, PostgresURL(string: server) == nil { throw ValidationError("--server must be a postgres:// URL.") }
    }

    func run() throws {
        let stores = only.map { [$0] } ?? BenchStore.allCases
        let results = try BenchError.readable {
            try stores.map { store -> JoinResult in
                switch store {
                case .sqlite:
                    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("worldcup-bench-join-\(getpid())", isDirectory: true)
                    defer { try? FileManager.default.removeItem(at: folder) }
                    return try JoinBenchmark(rows: teams, zoneRows: zoneTeams, changes: changes, peerChanges: peerChanges, fetchRuns: fetchRuns,
                                             fetchOnly: fetchOnly, seed: Self.seed, store: JoinSQLite(folder: folder)).run()
                case .postgres:
                    let opened = try BenchServer.open(postgresURL: server, maxConnections: 20)
                    defer { opened.stop() }
                    return try JoinBenchmark(rows: teams, zoneRows: zoneTeams, changes: changes, peerChanges: peerChanges, fetchRuns: fetchRuns,
                                             fetchOnly: fetchOnly, seed: Self.seed, store: JoinPostgres(server: opened.url)).run()
                }
            }
        }
        for result in results { for line in result.lines { print(line) } }
    }
}
