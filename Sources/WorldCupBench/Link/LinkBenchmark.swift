import Foundation
import ThrowawayPostgres

/// What a shared board and the command line cost over a long link, in round trips: every
/// figure is measured through two relays to one server, one adding nothing and one adding
/// `delayMilliseconds` each way, alternately, and its round trips are the difference over the
/// round trip the delay adds. psql on the same relays is the floor: a fresh connection and one
/// statement, as a person at that distance gets it from libpq.
struct LinkBenchmark {
    let delayMilliseconds: Int
    let runs: Int
    let app: String
    let relay: String?

    /// Teams tapped by "another program", one a run, so that each tap's sentence is new text
    /// on the board (a terminal rewrites only what changed).
    static let othersTeams = ["Brazil", "Japan", "Ghana", "Mexico", "Spain", "Chile", "Korea", "Italy", "Iran", "USA"]

    private var roundTrip: Double { Double(2 * delayMilliseconds) }

    func run() throws -> LinkResult {
        let server = try BenchServer.open(postgresURL: nil, maxConnections: 50)
        defer { server.stop() }
        guard let cluster = server.cluster else { throw BenchError("The link benchmark needs a throwaway server of its own.") }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("worldcup-link-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        _ = try cluster.psql("CREATE DATABASE link")

        let direct = try DelayingRelay(upstream: cluster.socketPath, delayMilliseconds: 0, relay: relay)
        let linked = try DelayingRelay(upstream: cluster.socketPath, delayMilliseconds: delayMilliseconds, relay: relay)
        defer { direct.stop(); linked.stop() }
        let urls = Pair(direct: Self.url(port: direct.port), linked: Self.url(port: linked.port))
        // The first command seeds the database; it is not measured.
        _ = try command(["list"], url: urls.direct)

        var figures: [LinkFigure] = []
        let psql = "\(ThrowawayPostgres.binaries)/psql"
        Progress.say("[link \(delayMilliseconds) ms each way] psql, then worldcup's commands: \(runs) runs each, alternating the relays")
        figures.append(try measure("psql SELECT 1", urls) { try self.run(psql, [$0, "-tAc", "SELECT 1"]) })
        figures.append(try measure("psql UPDATE", urls) { try self.run(psql, [$0, "-tAc", "UPDATE team SET wins = wins + 1 WHERE \"teamName\" = 'Chile'"]) })
        for arguments in [["tap", "Brazil"], ["undo"], ["list"], ["history"], ["check"]] {
            figures.append(try measure("worldcup " + arguments[0], urls) { try self.command(arguments, url: $0) })
        }

        Progress.say("[link \(delayMilliseconds) ms each way] the board: launch, Enter, another's tap")
        figures.append(try measure("board launch to rows", urls) {
            let board = try LinkBoard(app: self.app, url: $0, folder: folder)
            board.quit()
            return board.launchMs
        })
        let boards = Pair(direct: try LinkBoard(app: app, url: urls.direct, folder: folder),
                          linked: try LinkBoard(app: app, url: urls.linked, folder: folder))
        defer { boards.direct.quit(); boards.linked.quit() }
        // Quiet long enough to span the round trips between a tap drawn and confirmed; before
        // each measure, quiet past the status line's sentence (it goes after 2.5 s, a redraw
        // that would pass for the answer).
        let quiet = 0.25 + 4 * roundTrip / 1000
        let settled = max(quiet, 3)
        var enter = Pair<[(drawn: Double, confirmed: Double)]>(direct: [], linked: [])
        var seen = Pair<[Double]>(direct: [], linked: [])
        for run in 0..<runs {
            for side in [\Pair<LinkBoard>.direct, \Pair<LinkBoard>.linked] {
                let board = boards[keyPath: side]
                board.settle(quiet: settled)
                let (typed, output) = try board.press("\r", quiet: quiet)
                guard let first = output.first, let last = output.last else { throw BenchError("The board drew nothing after Enter.") }
                let times = (Monotonic.milliseconds(from: typed, to: first), Monotonic.milliseconds(from: typed, to: last))
                if side == \Pair<LinkBoard>.direct { enter.direct.append(times) } else { enter.linked.append(times) }
            }
            let team = Self.othersTeams[run % Self.othersTeams.count]
            for side in [\Pair<LinkBoard>.direct, \Pair<LinkBoard>.linked] {
                let board = boards[keyPath: side]
                board.settle(quiet: settled)
                // Another program, next to the server: the board's link is the only distance.
                let committed = try acknowledgedTap(of: team, url: urls.direct)
                guard let first = board.outputTimes(quiet: quiet, timeout: 10).first else { throw BenchError("The board never showed another program's tap of \(team).") }
                let milliseconds = first >= committed ? Monotonic.milliseconds(from: committed, to: first) : -Monotonic.milliseconds(from: first, to: committed)
                if side == \Pair<LinkBoard>.direct { seen.direct.append(milliseconds) } else { seen.linked.append(milliseconds) }
            }
        }
        figures.append(figure("board Enter drawn", enter.map { $0.map(\.drawn) }))
        figures.append(figure("board Enter confirmed", enter.map { $0.map(\.confirmed) }))
        figures.append(figure("another's tap seen", seen))
        return LinkResult(delayMilliseconds: delayMilliseconds, runs: runs, figures: figures)
    }

    // MARK: - Measuring

    /// `body` on each relay's URL, alternately, `runs` times after one warm-up each.
    private func measure(_ name: String, _ urls: Pair<String>, _ body: (String) throws -> Double) throws -> LinkFigure {
        var times = Pair<[Double]>(direct: [], linked: [])
        for run in 0...runs {
            let direct = try body(urls.direct)
            let linked = try body(urls.linked)
            if run > 0 {
                times.direct.append(direct)
                times.linked.append(linked)
            }
        }
        let result = figure(name, times)
        Progress.say("  \(name): \(Report.format(result.directMs, decimals: 1)) ms direct, \(Report.format(result.linkedMs, decimals: 1)) ms over the link, \(Report.format(result.roundTrips, decimals: 2)) round trips")
        return result
    }

    private func figure(_ name: String, _ times: Pair<[Double]>) -> LinkFigure {
        let direct = Percentiles(times.direct).median ?? 0
        let linked = Percentiles(times.linked).median ?? 0
        return LinkFigure(name: name, directMs: direct, linkedMs: linked, roundTrips: (linked - direct) / roundTrip)
    }

    /// Runs `worldcup <arguments> --database url`; its time from spawn to exit (ms).
    private func command(_ arguments: [String], url: String) throws -> Double {
        try run(app, arguments + ["--database", url])
    }

    /// Runs `worldcup tap <team>` on `url`; when it said the tap counted (its one line of
    /// output: the commit's answer had come, and the process has yet to end).
    private func acknowledgedTap(of team: String, url: String) throws -> UInt64 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: app)
        process.arguments = ["tap", team, "--database", url]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            line.append(chunk)
        }
        let acknowledged = Monotonic.now()
        process.waitUntilExit()
        guard process.terminationStatus == 0, !line.isEmpty else { throw BenchError("worldcup tap \(team) failed.") }
        return acknowledged
    }

    /// Runs `executable` with `arguments`, its output dropped; its time from spawn to exit (ms).
    private func run(_ executable: String, _ arguments: [String]) throws -> Double {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        let errors = Pipe()
        process.standardError = errors
        let started = Monotonic.now()
        try process.run()
        let message = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let ended = Monotonic.now()
        guard process.terminationStatus == 0 else {
            throw BenchError("\(URL(fileURLWithPath: executable).lastPathComponent) \(arguments.first ?? "") failed: \(String(decoding: message, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))")
        }
        return Monotonic.milliseconds(from: started, to: ended)
    }

    private static func url(port: Int) -> String {
        "postgres://postgres@127.0.0.1:\(port)/link"
    }
}

/// One thing measured on both relays.
struct Pair<Value> {
    var direct: Value
    var linked: Value

    func map<T>(_ transform: (Value) -> T) -> Pair<T> {
        Pair<T>(direct: transform(direct), linked: transform(linked))
    }
}

/// One figure: its medians on both relays, and the round trips the link added.
struct LinkFigure: Codable, Equatable {
    var name: String
    var directMs: Double
    var linkedMs: Double
    var roundTrips: Double
}

/// A run of `worldcup-bench link`.
struct LinkResult: Codable, Equatable {
    var delayMilliseconds: Int
    var runs: Int
    var figures: [LinkFigure]

    func roundTrips(_ name: String) -> Double? { figures.first { $0.name == name }?.roundTrips }
}
