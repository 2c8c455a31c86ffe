import ArgumentParser
import Foundation
import ThrowawayPostgres

/// `worldcup-bench fanout --viewers N`: how one tap reaches many scoreboards on one
/// PostgreSQL server (see `FanoutBenchmark`), for each N given.
///
/// It is listed among `BenchCommand`'s subcommands, but the executable parses its arguments
/// with `FanoutCommand.main` directly: as a subcommand, the root's options of the same names
/// (`--postgres-url`, `--taps`, `--rows`, `--seed`, `--json`) would take its arguments.
public struct FanoutCommand: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "fanout",
        abstract: "Measure how one tap reaches N scoreboards on one PostgreSQL server: tap-to-batch latency over every viewer, missed and duplicated taps, the server's CPU and the tapper's commit latency.",
        usage: "worldcup-bench fanout [--viewers <n> ...] [--request <request> ...] [--postgres-url <url>] [--taps <n>] [--interval-ms <ms>] [--rows <n>] [--viewers-per-process <n>] [--seed <n>] [--json]"
    )

    @Option(parsing: .upToNextOption, help: ArgumentHelp("How many viewers, one run for each number given.", valueName: "n"))
    var viewers: [Int] = [10, 100, 1_000]

    @Option(parsing: .upToNextOption, help: ArgumentHelp("The viewers' request, one run for each given: joined (the board's own, sectioned through the zone table) or plain (sectioned by the team's zone id, a column of its own).", valueName: "request"))
    var request: [FanoutRequest] = [.joined]

    @Option(name: .customLong("postgres-url"), help: ArgumentHelp("The server to use instead of a throwaway one (a postgres:// URL); the user must be allowed to create databases, and the server must accept a connection per viewer.", valueName: "url"))
    var postgresURL: String?

    @Option(help: ArgumentHelp("Measured taps of each run (each a different team), after 3 warm-up taps.", valueName: "n"))
    var taps = 100

    @Option(name: .customLong("interval-ms"), help: ArgumentHelp("Milliseconds between two taps (default: 100, or half a millisecond per viewer when longer).", valueName: "ms"))
    var intervalMs: Int?

    @Option(help: ArgumentHelp("Teams on the generated board.", valueName: "n"))
    var rows = 1_000

    @Option(name: .customLong("viewers-per-process"), help: ArgumentHelp("The most viewers one viewer process holds.", valueName: "n"))
    var viewersPerProcess = 250

    @Option(help: ArgumentHelp("Seed of the board's random wins and zones and of the tapped teams.", valueName: "n"))
    var seed: UInt64 = 2014

    @Flag(help: "Print only a JSON array, one object per run, on standard output.")
    var json = false

    public init() {}

    /// Connections the server needs for `viewers`: one per viewer, as many again for the probes the
    /// viewers send from short-lived connections as they start, and room for the rest.
    static func maxConnections(viewers: Int) -> Int {
        2 * viewers + 50
    }

    public func validate() throws {
        guard !viewers.isEmpty, viewers.allSatisfy({ $0 >= 1 }) else { throw ValidationError("--viewers must be at least 1.") }
        guard !request.isEmpty else { throw ValidationError("--request needs joined, plain, or both.") }
        guard taps >= 1 else { throw ValidationError("--taps must be at least 1.") }
        guard rows >= 1 else { throw ValidationError("--rows must be at least 1.") }
        guard taps + 3 <= rows else { throw ValidationError("--rows must be at least --taps + 3: each tap of a run taps a different team.") }
        guard viewersPerProcess >= 1 else { throw ValidationError("--viewers-per-process must be at least 1.") }
        if let intervalMs, intervalMs < 1 { throw ValidationError("--interval-ms must be at least 1.") }
        if let postgresURL, PostgresURL(string: postgresURL) == nil {
            throw ValidationError("--postgres-url must be a postgres:// or postgresql:// URL, such as postgres://user@localhost:5432/database.")
        }
    }

    public func run() throws {
        // A viewer process that died must not end the benchmark with SIGPIPE when told to finish.
        signal(SIGPIPE, SIG_IGN)
        let results = try BenchError.readable { try measureAll() }
        print(json ? FanoutResult.json(results) : FanoutResult.table(results))
        if let inexact = results.first(where: { !$0.isExact }) {
            Progress.say("With \(inexact.viewers) viewers, \(inexact.missed) taps were missed, \(inexact.duplicated) duplicated, \(inexact.unexpected) unexpected, and \(inexact.notConverged) viewers did not match a fresh fetch.")
            throw ExitCode.failure
        }
    }

    /// Every run, on one server and one board.
    private func measureAll() throws -> [FanoutResult] {
        let server = try BenchServer.open(postgresURL: postgresURL, maxConnections: Self.maxConnections(viewers: viewers.max() ?? 1))
        defer { server.stop() }
        let usage = try server.cluster.map { try ClusterUsage(dataDirectory: $0.dataDirectory) }
        return try FanoutCommand.measure(viewers: viewers, requests: request, server: server.url, usage: usage, rows: rows, taps: taps, intervalMs: intervalMs,
                                         viewersPerProcess: viewersPerProcess, seed: seed, executable: nil)
    }

    /// Builds the board on `server` (a generated one of `rows` teams, dropped at the end) and
    /// runs the benchmark for each number of viewers, and for each of `requests` (the same
    /// taps: only the viewers' request differs).
    static func measure(viewers: [Int], requests: [FanoutRequest] = [.joined], server: PostgresURL, usage: ClusterUsage?, rows: Int, taps: Int,
                        intervalMs: Int?, viewersPerProcess: Int, seed: UInt64, executable: URL?) throws -> [FanoutResult] {
        Progress.say("Building a board of \(rows) generated teams…")
        let board = try PostgresBoard.build(rows: rows, server: server, seed: seed)
        defer { board.drop() }
        var results: [FanoutResult] = []
        for (run, count) in viewers.enumerated() {
            for request in requests {
                // The requests of one count tap the same teams (as the plain listeners do after them).
                results.append(try FanoutBenchmark(viewers: count, request: request, taps: taps,
                                                   interval: intervalMs.map { .milliseconds($0) } ?? FanoutBenchmark.defaultInterval(viewers: count),
                                                   viewersPerProcess: viewersPerProcess, board: board, rows: rows, seed: seed &+ UInt64(run),
                                                   cluster: usage, executable: executable).run())
            }
        }
        return results
    }
}

/// The request the fan-out's viewers watch.
enum FanoutRequest: String, CaseIterable, ExpressibleByArgument, Sendable {
    /// The board's own: sectioned through the zone table (`Team.boardSections`).
    case joined
    /// Sectioned by the team's zone id, a column of its own (`BenchRequest.postgresRequest`).
    case plain
}
