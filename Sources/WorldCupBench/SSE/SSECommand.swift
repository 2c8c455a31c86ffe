import ArgumentParser
import Foundation
import ThrowawayPostgres

/// `worldcup-bench sse --server <live-board-server>`: one server process, one live query, and
/// 10, 1,000 and 10,000 event-stream subscribers (`SSEBenchmark`): tap to event, the server's
/// memory and CPU. Parsed by the executable directly, as `fanout` is (the root command's
/// options of the same names would take its arguments).
public struct SSECommand: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "sse",
        abstract: "Measure one live-board-server process serving N Server-Sent Events subscribers on one live query: tap to event p50/p99 over every subscriber, the server's memory and CPU.",
        usage: "worldcup-bench sse --server <path> [--subscribers <n>,<n>...] [--taps <n>] [--interval-ms <ms>] [--runs <n>] [--store sqlite|postgres] [--postgres-url <url>] [--seed <n>] [--floor] [--json]"
    )

    @Option(help: ArgumentHelp("The live-board-server executable (swift build -c release --package-path Examples/LiveBoardServer builds it).", valueName: "path"))
    var server: String

    @Option(parsing: .upToNextOption, help: ArgumentHelp("How many subscribers, one measurement for each (commas or spaces between).", valueName: "n"))
    var subscribers: [String] = ["10,1000,10000"]

    @Option(help: ArgumentHelp("Measured taps of each run, after 2 warm-up taps.", valueName: "n"))
    var taps = 50

    @Option(name: .customLong("interval-ms"), help: ArgumentHelp("Milliseconds between two taps (default: 100, or a tenth of a millisecond per subscriber when longer).", valueName: "ms"))
    var intervalMs: Int?

    @Option(help: ArgumentHelp("Runs of each count (a server started afresh for each); the table shows their medians.", valueName: "n"))
    var runs = 3

    @Option(help: ArgumentHelp("Where the board lives: sqlite (a file in a temporary folder) or postgres (a throwaway server, or --postgres-url).", valueName: "store"))
    var store: BenchStore = .sqlite

    @Option(name: .customLong("postgres-url"), help: ArgumentHelp("With --store postgres, the server to use instead of a throwaway one (a postgres:// URL); the user must be allowed to create databases.", valueName: "url"))
    var postgresURL: String?

    @Option(help: ArgumentHelp("Seed of the tapped teams.", valueName: "n"))
    var seed: UInt64 = 2014

    @Flag(help: "Also measure the floor, each run followed by one: the same subscribers reading a tap's event from a minimal server in this process (plain sockets, one thread writing the event to every stream; no LiveResults, no database).")
    var floor = false

    @Flag(help: "Print a JSON array instead of the tables: one object a count, the server's medians and, with --floor, the floor's of the same runs beside them (floor_p99_ms, floor_cpu_us_sub_tap) and their ratios.")
    var json = false

    public init() {}

    /// `--subscribers`' counts.
    var counts: [Int] { subscribers.flatMap { $0.split(separator: ",") }.compactMap { Int($0.trimmingCharacters(in: .whitespaces)) } }

    public func validate() throws {
        let given = subscribers.flatMap { $0.split(separator: ",") }
        guard !given.isEmpty, counts.count == given.count, counts.allSatisfy({ $0 >= 1 }) else {
            throw ValidationError("--subscribers takes counts of at least 1, such as 10,1000,10000.")
        }
        guard taps >= 1 else { throw ValidationError("--taps must be at least 1.") }
        guard runs >= 1 else { throw ValidationError("--runs must be at least 1.") }
        if let intervalMs, intervalMs < 1 { throw ValidationError("--interval-ms must be at least 1.") }
        if let postgresURL {
            guard store == .postgres else { throw ValidationError("--postgres-url needs --store postgres.") }
            guard PostgresURL(string: postgresURL) != nil else { throw ValidationError("--postgres-url must be a postgres:// or postgresql:// URL.") }
        }
    }

    public func run() throws {
        signal(SIGPIPE, SIG_IGN) // a server that died must not end the benchmark
        let results = try BenchError.readable {
            try Self.measure(server: URL(fileURLWithPath: server), counts: counts, taps: taps, interval: intervalMs.map { .milliseconds($0) },
                             runs: runs, store: store, postgresURL: postgresURL, seed: seed, floor: floor)
        }
        let comparisons = SSEComparison.pair(store: store, server: results.server.map(SSERunResult.median), floor: results.floor.map(SSERunResult.median))
        if json {
            print(SSEComparison.json(comparisons))
        } else {
            print(SSERunResult.table(comparisons.map(\.server)))
            if floor {
                print("\nThe floor (a minimal server writing the same event to every stream):\n")
                print(SSERunResult.floorTable(comparisons.compactMap(\.floor)) + SSEComparison.verdicts(comparisons))
            }
        }
        if let inexact = (results.server + results.floor).joined().first(where: { !$0.isExact }) {
            Progress.say("With \(inexact.subscribers) subscribers, \(inexact.missed) (tap, subscriber) pairs were never read, \(inexact.duplicates) read twice, and \(inexact.laterSnapshots) boards were sent again.")
            throw ExitCode.failure
        }
    }

    /// Every run of every count, on one board made here (a file in a temporary folder, or a
    /// database on the PostgreSQL server, dropped at the end): the runs of each count, in order;
    /// with `floor`, each run followed by a run of the floor (`SSEFloor`) at the same count and pace.
    static func measure(server: URL, counts: [Int], taps: Int, interval: Duration?, runs: Int, store: BenchStore, postgresURL: String?,
                        seed: UInt64, floor: Bool = false) throws -> (server: [[SSERunResult]], floor: [[SSERunResult]]) {
        // A socket a subscriber here, one more in the server (which inherits the limit); the
        // floor's server is in this process.
        let needed = (counts.max() ?? 0) + 1_000
        let limit = FileLimit.raise(to: floor ? 2 * (counts.max() ?? 0) + 1_000 : needed)
        guard limit >= needed else {
            throw BenchError("The open-file limit is \(limit), and \(counts.max() ?? 0) subscribers need \(needed): raise the hard limit (ulimit -Hn).")
        }
        Progress.say("Load average before: \(loadAverage())")
        defer { Progress.say("Load average after: \(loadAverage())") }
        return try withBoard(store: store, postgresURL: postgresURL) { board in
            var results: (server: [[SSERunResult]], floor: [[SSERunResult]]) = ([], [])
            for (index, count) in counts.enumerated() {
                let interval = interval ?? SSEBenchmark.defaultInterval(subscribers: count)
                var (served, floors) = ([SSERunResult](), [SSERunResult]())
                for run in 0..<runs {
                    served.append(try SSEBenchmark(server: server, board: board, subscribers: count, taps: taps, interval: interval,
                                                   seed: seed &+ UInt64(index * runs + run)).run())
                    if floor, SSEFloor.fits(count, limit: limit) {
                        floors.append(try SSEFloor(subscribers: count, taps: taps, interval: interval).run())
                    }
                }
                results.server.append(served)
                if !floors.isEmpty { results.floor.append(floors) }
                if floor, floors.isEmpty {
                    Progress.say("The floor is not measured at \(count) subscribers: both ends of its streams are in this process, and the open-file limit (\(limit)) is too low.")
                }
            }
            return results
        }
    }

    /// Makes the seeded board for `body`, and removes it afterwards.
    private static func withBoard<T>(store: BenchStore, postgresURL: String?, _ body: (SSEBoard) throws -> T) throws -> T {
        switch store {
        case .sqlite:
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("worldcup-bench-sse-\(getpid())", isDirectory: true)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            return try body(SSEBoard(database: folder.appendingPathComponent("board.sqlite").path))
        case .postgres:
            let server = try BenchServer.open(postgresURL: postgresURL, maxConnections: 50)
            defer { server.stop() }
            var url = server.url
            url.database = PostgresBoard.databasePrefix + "sse_\(getpid())"
            try PG.withConnection(server.url) { admin in
                try PG.execute(admin, "DROP DATABASE IF EXISTS \(PostgresBoard.identifier(url.database)) WITH (FORCE)")
                try PG.execute(admin, "CREATE DATABASE \(PostgresBoard.identifier(url.database))")
            }
            defer { try? PG.withConnection(server.url) { try PG.execute($0, "DROP DATABASE IF EXISTS \(PostgresBoard.identifier(url.database)) WITH (FORCE)") } }
            return try body(SSEBoard(database: url.connectionString, postgres: (server.url, url.database)))
        }
    }

    /// The machine's load averages over 1, 5 and 15 minutes, as /proc/loadavg gives them.
    static func loadAverage() -> String {
        let text = (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? ""
        return text.split(separator: " ").prefix(3).joined(separator: " ")
    }
}
