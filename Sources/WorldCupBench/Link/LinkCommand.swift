import ArgumentParser
import Foundation

/// `worldcup-bench link`: the shared board and the command line over a long link, in round
/// trips, beside psql's on the same relays (see `LinkBenchmark`).
///
/// The executable parses its arguments with `LinkCommand.main` directly, as for `fanout`: the
/// root's options of the same names (`--json`, `--worldcup`) would take them.
public struct LinkCommand: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "link",
        abstract: "Measure the shared board and the command line over a long link, in round trips, beside psql's: a throwaway PostgreSQL server behind a relay that delays each chunk each way, and one that does not.",
        usage: "worldcup-bench link [--delay-ms <ms>] [--runs <n>] [--worldcup <path>] [--relay <path>] [--json]"
    )

    @Option(name: .customLong("delay-ms"), help: ArgumentHelp("Milliseconds the relay adds each way (a round trip takes twice that more).", valueName: "ms"))
    var delayMs = 50

    @Option(help: ArgumentHelp("Measured runs of each figure on each relay, after one warm-up; medians are quoted.", valueName: "n"))
    var runs = 5

    @Option(help: ArgumentHelp("The worldcup executable (default: the one beside this benchmark).", valueName: "path"))
    var worldcup: String?

    @Option(help: ArgumentHelp("The tcp-relay executable (default: the one beside this benchmark).", valueName: "path"))
    var relay: String?

    @Flag(help: "Print only a JSON object on standard output.")
    var json = false

    public init() {}

    public func validate() throws {
        guard delayMs >= 1 else { throw ValidationError("--delay-ms must be at least 1.") }
        guard runs >= 1 else { throw ValidationError("--runs must be at least 1.") }
    }

    public func run() throws {
        let result = try BenchError.readable {
            try LinkBenchmark(delayMilliseconds: delayMs, runs: runs, app: try TerminalBenchmark.locateApp(worldcup), relay: relay).run()
        }
        if json {
            let encoder = JSONEncoder()
            encoder.keyEncodingStrategy = .convertToSnakeCase
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            print(String(decoding: try encoder.encode(result), as: UTF8.self))
        } else {
            print(Self.table(result))
            print(Self.targets(result))
        }
    }

    static func table(_ result: LinkResult) -> String {
        Report.aligned(result.figures.map { figure in
            [("figure", figure.name), ("direct_ms", Report.format(figure.directMs, decimals: 1)),
             ("link_ms", Report.format(figure.linkedMs, decimals: 1)), ("round_trips", Report.format(figure.roundTrips, decimals: 2))]
        })
    }

    /// The issue's targets, each with the figures it compares.
    static func targets(_ result: LinkResult) -> String {
        let roundTrip = Double(2 * result.delayMilliseconds)
        func trips(_ name: String) -> Double { result.roundTrips(name) ?? .nan }
        func absolute(_ name: String) -> Double { (result.figures.first { $0.name == name }?.linkedMs ?? .nan) / roundTrip }
        func line(_ text: String, _ value: Double, _ limit: Double) -> String {
            "\(value <= limit ? "met    " : "not met") \(text): \(Report.format(value, decimals: 2)) (at most \(Report.format(limit, decimals: 2)))"
        }
        let select = trips("psql SELECT 1"), update = trips("psql UPDATE")
        return [
            "Targets (round trips of \(Report.format(roundTrip, decimals: 0)) ms):",
            line("board Enter drawn, from Enter", absolute("board Enter drawn"), 0.1),
            line("board Enter confirmed, from Enter", absolute("board Enter confirmed"), 1.2),
            line("another's tap seen after its commit", trips("another's tap seen"), 0.6),
            line("board launch to rows, psql SELECT 1 + 2", trips("board launch to rows"), select + 2),
            line("worldcup tap, psql UPDATE + 1", trips("worldcup tap"), update + 1),
            line("worldcup undo, psql UPDATE + 1", trips("worldcup undo"), update + 1),
            line("worldcup list, psql SELECT 1 + 1", trips("worldcup list"), select + 1),
        ].joined(separator: "\n")
    }
}
