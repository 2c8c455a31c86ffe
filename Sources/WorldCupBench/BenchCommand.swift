import ArgumentParser
import Foundation
import GRDB
import LiveResults
import LiveResultsSQLite
import PostgresNIO
import ThrowawayPostgres
import WorldCupApp

/// `worldcup-bench`: measures the results controller against the refetch-and-diff a GRDB
/// user would write instead, on generated scoreboards of 1,000, 100,000 and 1,000,000 teams,
/// and the real `worldcup` app in a pseudo-terminal at 32 and 1,000,000 teams. With
/// `--store postgres`, the controller part runs on PostgreSQL instead (a throwaway server of
/// its own, or `--postgres-url`), against LISTEN + refetch + diff; the terminal part, which
/// runs the app on SQLite, is skipped.
public struct BenchCommand: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "worldcup-bench",
        abstract: "Measure LiveResults on generated scoreboards: tap latency against a refetch-and-diff peer, fetch time, memory; and the app in a terminal: launch, keypress to screen, bytes per tap.",
        usage: "worldcup-bench [--store sqlite|postgres] [--postgres-url <url>] [--rows <n> ...] [--json] [--taps <n>] [--peer-taps <n>] [--seed <n>] [--no-terminal | --terminal-only] [--terminal-keys <n>] [--terminal-launches <n>] [--storm-rate <n>] [--storm-seconds <s>] [--no-color] [--worldcup <path>] [--database-folder <path>]",
        subcommands: [FanoutCommand.self, SSECommand.self, LinkCommand.self, JoinCommand.self, RSSProbeCommand.self, LatencyListenerCommand.self, StormTapperCommand.self, FanoutViewerCommand.self]
    )

    @Option(help: ArgumentHelp("Where the scoreboard lives: sqlite (default) or postgres (a throwaway server, or --postgres-url). On postgres, the controller's taps go through PostgresWriter.write (the commit handed to the controller from the UPDATE's own answer), and the notified path (a plain UPDATE, heard by NOTIFY and read from the log) is measured too.", valueName: "store"))
    var store: BenchStore = .sqlite

    @Option(name: .customLong("postgres-url"), help: ArgumentHelp("With --store postgres, the server to use instead of a throwaway one: postgres://user:password@host:port/database or postgres://user@/database?host=/socket/dir. The user must be allowed to create databases: each size gets one, dropped afterwards.", valueName: "url"))
    var postgresURL: String?

    @Option(help: ArgumentHelp("Run this size only: this many teams; repeat it for several sizes in one run, such as --rows 1000 --rows 1000000 --rows 10000000 for the ten-million ratios (default: 1000, 100000 and 1000000; in the terminal, 32 and 1000000).", valueName: "n"))
    var rows: [Int] = []

    @Flag(help: "Print only a JSON array, one object per size, on standard output.")
    var json = false

    @Option(help: ArgumentHelp("Measured taps of the results controller (default: 2000 up to 100000 teams, 1000 above).", valueName: "n"))
    var taps: Int?

    @Option(name: .customLong("peer-taps"), help: ArgumentHelp("Measured taps of the peer (default: 200 up to 100000 teams, 30 above).", valueName: "n"))
    var peerTaps: Int?

    @Option(help: ArgumentHelp("Seed of the random wins, zones and tapped teams.", valueName: "n"))
    var seed: UInt64 = 2014

    @Flag(name: .customLong("no-terminal"), help: "Skip the terminal measurement of the app.")
    var noTerminal = false

    @Flag(name: .customLong("terminal-only"), help: "Only the terminal measurement of the app.")
    var terminalOnly = false

    @Option(name: .customLong("terminal-keys"), help: ArgumentHelp("Measured keypresses of each kind in the terminal.", valueName: "n"))
    var terminalKeys = 30

    @Option(name: .customLong("terminal-launches"), help: ArgumentHelp("Measured launches of the app in the terminal.", valueName: "n"))
    var terminalLaunches = 5

    @Option(name: .customLong("storm-rate"), help: ArgumentHelp("Taps a second another process commits while the app's cost under a storm is measured (0: as fast as it can).", valueName: "n"))
    var stormRate = StormSettings.defaultRate

    @Option(name: .customLong("storm-seconds"), help: ArgumentHelp("How long the storm lasts.", valueName: "s"))
    var stormSeconds = StormSettings.defaultSeconds

    @Flag(name: .customLong("no-color"), help: "Run the app with --no-color in the terminal measurement.")
    var noColor = false

    @Option(name: .customLong("database-folder"), help: ArgumentHelp("Keep the controller part's databases in this folder (one subfolder per size) and reuse them in later runs, with the wins earlier runs' taps left, instead of building them in a temporary folder (ten million teams take minutes to build).", valueName: "path"))
    var databaseFolder: String?

    @Option(help: ArgumentHelp("The worldcup executable (default: the one beside this benchmark).", valueName: "path"))
    var worldcup: String?

    public init() {}

    public func validate() throws {
        if rows.contains(where: { $0 < 1 }) { throw ValidationError("--rows must be at least 1.") }
        if let taps, taps < 1 { throw ValidationError("--taps must be at least 1.") }
        if let peerTaps, peerTaps < 1 { throw ValidationError("--peer-taps must be at least 1.") }
        if noTerminal, terminalOnly { throw ValidationError("--no-terminal and --terminal-only exclude each other.") }
        if terminalKeys < 1 { throw ValidationError("--terminal-keys must be at least 1.") }
        if terminalLaunches < 1 { throw ValidationError("--terminal-launches must be at least 1.") }
        if stormRate < 0 { throw ValidationError("--storm-rate must be 0 (as fast as it can) or more.") }
        if !(stormSeconds > 0) { throw ValidationError("--storm-seconds must be more than 0.") }
        if let postgresURL {
            guard store == .postgres else { throw ValidationError("--postgres-url needs --store postgres.") }
            guard PostgresURL(string: postgresURL) != nil else {
                throw ValidationError("--postgres-url must be a postgres:// or postgresql:// URL, such as postgres://user@localhost:5432/database.")
            }
        }
        if store == .postgres, terminalOnly {
            throw ValidationError("--terminal-only measures the app, which reads SQLite: it cannot go with --store postgres.")
        }
    }

    public func run() throws {
        HeapTuning.keepFreedPages() // as the app does: the controllers measured here run in this process
        let requested = Array(Set(rows)).sorted()
        let sizes = terminalOnly ? [] : requested.isEmpty ? [1_000, 100_000, 1_000_000] : requested
        if store == .postgres {
            if !noTerminal { Progress.say("The terminal measurement runs the app on SQLite: skipped with --store postgres.") }
            let reports = try BenchError.readable { try runPostgres(sizes: sizes) }
            print(json ? Report.json(reports) : Report.table(reports))
            return
        }
        let terminalSizes = noTerminal ? [] : requested.isEmpty ? [32, 1_000_000] : requested
        let reports = try BenchError.readable {
            let app = try terminalApp(needed: !terminalSizes.isEmpty)
            let workspace = try Workspace(keeping: databaseFolder)
            defer { workspace.remove() }
            let controller = try sizes.map { size in
                try SizeBenchmark(settings: settings(at: size), folder: workspace.folder(for: size), keepDatabase: workspace.keepsDatabases).run()
            }
            let terminal = try terminalSizes.compactMap { size -> TerminalResult? in
                guard let app else { return nil }
                return try TerminalBenchmark(
                    rows: size,
                    keys: terminalKeys,
                    launches: terminalLaunches,
                    color: !noColor,
                    seed: seed,
                    folder: workspace.folder(for: size).appendingPathComponent("terminal", isDirectory: true),
                    app: app,
                    storm: StormSettings(rate: stormRate, seconds: stormSeconds)
                ).run()
            }
            return SizeReport.merge(controller: controller, terminal: terminal)
        }
        print(json ? Report.json(reports) : Report.table(reports) + Report.targets(reports))
    }

    /// The controller part on PostgreSQL: on `--postgres-url`'s server, or on a throwaway one
    /// started here and stopped at the end.
    private func runPostgres(sizes: [Int]) throws -> [SizeReport] {
        let opened = try BenchServer.open(postgresURL: postgresURL, maxConnections: 50)
        defer { opened.stop() }
        let server = opened.url
        let results = try sizes.map { size in try PostgresSizeBenchmark(settings: settings(at: size), server: server).run() }
        return SizeReport.merge(controller: results, terminal: [])
    }

    /// What a size's run measures, on either store: the controller's measured taps are `--taps`,
    /// or fewer on large boards, where each tap of the peer it is compared with costs a whole
    /// refetch; the peer's are `--peer-taps`, or far fewer on large boards.
    private func settings(at size: Int) -> SizeSettings {
        SizeSettings(rows: size, taps: taps ?? (size > 100_000 ? 1_000 : 2_000), peerTaps: peerTaps ?? (size > 100_000 ? 30 : 200), seed: seed)
    }

    /// The `worldcup` executable for the terminal part, found before the long controller part.
    /// Nil when not needed, or when it is missing and was not asked for by name or by
    /// `--terminal-only` (a build of `--product worldcup-bench` alone then still benchmarks).
    private func terminalApp(needed: Bool) throws -> String? {
        guard needed else { return nil }
        do {
            return try TerminalBenchmark.locateApp(worldcup)
        } catch let error as BenchError where worldcup == nil && !terminalOnly {
            Progress.say("\(error) Skipping the terminal measurement.")
            return nil
        }
    }
}

/// `worldcup-bench rss-probe --database PATH` (or `--database-url URL`): run by the benchmark in a child process, so that
/// only a process holding one controller is measured. Prints `key value` lines (kB).
struct RSSProbeCommand: ParsableCommand {
    static let configuration = CommandConfiguration.childProcess("rss-probe", abstract: "Hold a controller over the database and print the resident memory (used by the benchmark).")

    @Option(help: ArgumentHelp("The database to open.", valueName: "path"))
    var database: String?

    // Not --postgres-url: the parent command's option of that name would take it.
    @Option(name: .customLong("database-url"), help: ArgumentHelp("The PostgreSQL database to read instead (a postgres:// URL).", valueName: "url"))
    var databaseURL: String?

    func validate() throws {
        guard (database == nil) != (databaseURL == nil) else { throw ValidationError("Give either --database or --database-url.") }
        if let databaseURL, PostgresURL(string: databaseURL) == nil { throw ValidationError("--database-url must be a postgres:// URL.") }
    }

    func run() throws {
        try BenchError.readable {
            let lines = if let databaseURL, let url = PostgresURL(string: databaseURL) {
                try MemoryProbe.measureHere(postgresURL: url)
            } else {
                try MemoryProbe.measureHere(databasePath: database ?? "")
            }
            for line in lines { print(line) }
        }
    }
}

/// A failure of the benchmark, described in one sentence.
struct BenchError: Error, CustomStringConvertible {
    var description: String

    init(_ description: String) {
        self.description = description
    }

    /// Runs `body`, turning every error into a `BenchError` whose text is one sentence.
    static func readable<T>(_ body: () throws -> T) rethrows -> T {
        do {
            return try body()
        } catch let error as BenchError {
            throw error
        } catch let error as PSQLError {
            throw BenchError("PostgreSQL failed: \(PG.message(error)).")
        } catch let error as DatabaseError {
            throw BenchError("The database failed: \(error.message ?? "error \(error.resultCode.rawValue)").")
        } catch let error as CustomStringConvertible {
            throw BenchError("\(error)")
        }
    }
}

/// Progress lines, on standard error so standard output stays machine-readable.
enum Progress {
    static func say(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}

extension BenchStore: ExpressibleByArgument {}
