import Foundation
import LiveResults
import PostgresNIO
import SeededRandom
import ThrowawayPostgres
import WorldCup

/// One tap of the fan-out benchmark: the team, and when its UPDATE was sent and answered
/// (monotonic nanoseconds).
struct FanoutTap {
    var id: RecordID
    var start: UInt64
    var committed: UInt64
}

/// `worldcup-bench fanout`: `viewers` headless scoreboards on one PostgreSQL board, spread
/// over processes of at most `viewersPerProcess`, while this process taps a different team
/// every `interval`, so that each tap is one batch in an idle viewer. Each viewer reports
/// which rows its batches named and when each batch ended; the latency of a tap in a viewer
/// runs from the start of the tap's UPDATE to the end of the viewer's batch that named it.
struct FanoutBenchmark {
    var viewers: Int
    /// The viewers' request.
    var request: FanoutRequest = .joined
    var taps: Int
    /// Taps before the measured ones (checked for missed and duplicated, not timed).
    var warmUpTaps = 3
    var interval: Duration
    var viewersPerProcess: Int
    var board: PostgresBoard
    var rows: Int
    var seed: UInt64
    /// The server's cluster, when it runs on this machine: its CPU and memory are measured.
    var cluster: ClusterUsage?
    /// The `worldcup-bench` the viewer processes run (nil: this executable).
    var executable: URL?

    /// Quiet time before the taps, over which the viewers' heartbeats alone are measured: two
    /// of an idle viewer's ping periods (three heartbeats of a second each), so that every
    /// viewer pings in it as often as it does over time.
    static let idleSeconds = 6.0

    /// The interval that lets a tap reach every viewer before the next: 100 ms, or half a
    /// millisecond a viewer when that is longer.
    static func defaultInterval(viewers: Int) -> Duration {
        .milliseconds(max(100, viewers / 2))
    }

    /// How `viewers` are spread over processes of at most `perProcess`, as evenly as can be.
    static func processShares(viewers: Int, perProcess: Int) -> [Int] {
        let processes = (viewers + perProcess - 1) / perProcess
        return (0..<processes).map { viewers / processes + ($0 < viewers % processes ? 1 : 0) }
    }

    /// Starts the viewer processes, measures the server idle, taps, asks every viewer for
    /// a last look, and tallies what they saw.
    func run() throws -> FanoutResult {
        let label = "[\(viewers) viewers, \(request.rawValue)]"
        let shares = Self.processShares(viewers: viewers, perProcess: viewersPerProcess)
        Progress.say("\(label) starting \(shares.count) viewer process\(shares.count == 1 ? "" : "es") (\(shares.map(String.init).joined(separator: ", ")) viewers)")
        let setupStart = Monotonic.now()
        var children = try shares.map { share in try ViewerProcess(url: board.url, viewers: share, request: request, executable: executable) }
        defer { for child in children { child.stop() } }
        for index in children.indices { try children[index].waitUntilReady() }
        Progress.say("\(label) every viewer fetched \(rows) teams and listens (\(Report.format(Monotonic.milliseconds(from: setupStart, to: Monotonic.now()) / 1000, decimals: 1)) s)")

        let backends = try Self.clientBackends(board: board)
        let idleStart = (Monotonic.now(), cluster?.cpuSeconds())
        Thread.sleep(forTimeInterval: Self.idleSeconds)
        let idleCPU = cluster.flatMap { cluster in idleStart.1.map { cluster.cpuSeconds() - $0 } }
        let idleWindow = Monotonic.milliseconds(from: idleStart.0, to: Monotonic.now()) / 1000

        let teams = Self.tappedTeams(rows: rows, count: warmUpTaps + taps, seed: seed)
        Progress.say("\(label) tapping \(warmUpTaps) + \(taps) teams, one every \(interval)")
        let statements = try ServerStatements(board: board)
        let tapping = try tap(teams, statements: statements, clients: children.map(\.process.processIdentifier))
        let serverMemory = cluster?.memoryMB()

        let reports = try children.indices.map { index in try children[index].finish() }
        children = []
        var result = FanoutResult.tally(taps: tapping.taps, warmUpTaps: warmUpTaps, reports: reports)
        result.viewers = viewers
        result.request = request
        result.processes = shares.count
        result.intervalMs = Double(Self.nanoseconds(interval)) / 1e6
        result.serverCPUPercent = tapping.cpuPercent
        result.serverCPUMsPerTap = tapping.cpuMsPerTap
        result.viewersCPUMsPerTap = tapping.clientsCPUMsPerTap
        result.serverIdleCPUPercent = idleCPU.map { 100 * $0 / idleWindow }
        result.serverMemoryMB = serverMemory
        result.backendsPerViewer = Double(backends) / Double(viewers)
        Progress.say("\(label) \(result.summary)")
        let tapperQueries = try measureRawFloor(teams: teams, shares: shares, statements: statements, into: &result)
        // The plain listeners send nothing: what the server ran while they listened was the
        // taps' own (the tap, and the statements of its triggers that run at the commit).
        if let all = tapping.queries, let tapperQueries {
            result.serverQueriesPerTapViewer = max(0, all - tapperQueries) / Double(teams.count * viewers)
        }
        return result
    }

    /// The same taps heard by as many plain LISTEN connections (`RawListeners`), after the
    /// viewers have gone: the floor of the run's fan-out. Returns the statements the server ran
    /// meanwhile (the taps' own), when it counts them.
    private func measureRawFloor(teams: [RecordID], shares: [Int], statements: ServerStatements, into result: inout FanoutResult) throws -> Double? {
        let label = "[\(viewers) plain listeners]"
        var children = try shares.map { share in try ViewerProcess(url: board.url, viewers: share, raw: true, executable: executable) }
        defer { for child in children { child.stop() } }
        for index in children.indices { try children[index].waitUntilReady() }
        Progress.say("\(label) tapping the same \(teams.count) teams again")
        let tapping = try tap(teams, statements: statements, clients: children.map(\.process.processIdentifier))
        let reports = try children.indices.map { index in try children[index].finish() }
        children = []
        let raw = FanoutResult.tally(taps: tapping.taps, warmUpTaps: warmUpTaps, reports: reports)
        result.rawNotify = raw.fanout
        result.rawMissed = raw.missed
        result.rawServerCPUPercent = tapping.cpuPercent
        result.rawServerCPUMsPerTap = tapping.cpuMsPerTap
        result.rawListenersCPUMsPerTap = tapping.clientsCPUMsPerTap
        Progress.say("\(label) NOTIFY p50 \(Report.format(raw.fanout.p50Ms, decimals: 2)) ms, p99 \(Report.format(raw.fanout.p99Ms, decimals: 2)) ms, missed \(raw.missed); "
            + "server CPU \(tapping.cpuPercent.map { Report.format($0, decimals: 1) + " %" } ?? "n/a"); viewers' p99 is \(Report.format(result.fanout.p99Ms / max(raw.fanout.p99Ms, 0.001), decimals: 2))× it")
        return tapping.queries
    }

    /// What tapping `teams` one every `interval` cost: each tap's times, the server's CPU (in
    /// percent of a core, and milliseconds a tap), the statements it ran meanwhile, and the
    /// CPU of the `clients` (the viewer processes) in milliseconds a tap.
    private func tap(_ teams: [RecordID], statements: ServerStatements, clients: [pid_t]) throws
        -> (taps: [FanoutTap], cpuPercent: Double?, cpuMsPerTap: Double?, queries: Double?, clientsCPUMsPerTap: Double) {
        func clientsCPU() -> Double { clients.reduce(0) { $0 + (ProcessStat(pid: $1)?.cpuSeconds ?? 0) } }
        let before = (Monotonic.now(), cluster?.cpuSeconds(), try statements.count(), clientsCPU())
        let tapped = try PG.withConnection(board.url) { writer in
            let step = Self.nanoseconds(interval)
            var next = Monotonic.now()
            return try teams.map { id -> FanoutTap in
                Self.sleep(until: next)
                next += step
                let start = Monotonic.now()
                try PostgresTap.run(writer, id: id)
                return FanoutTap(id: id, start: start, committed: Monotonic.now())
            }
        }
        // The last tap gets as long as the others (half a second at least) to reach everyone, before the final look.
        Self.sleep(until: Monotonic.now() + Self.nanoseconds(max(interval, .milliseconds(500))))
        let cpu = cluster.flatMap { cluster in before.1.map { cluster.cpuSeconds() - $0 } }
        let queries = try statements.count().flatMap { after in before.2.map { Double(after - $0) } }
        let window = Monotonic.milliseconds(from: before.0, to: Monotonic.now()) / 1000
        return (tapped, cpu.map { 100 * $0 / window }, cpu.map { 1000 * $0 / Double(teams.count) }, queries,
                1000 * (clientsCPU() - before.3) / Double(teams.count))
    }

    /// The client connections the server counts on the board's database (`pg_stat_activity`),
    /// but the one asking.
    static func clientBackends(board: PostgresBoard) throws -> Int {
        try PG.withConnection(board.url) { connection in
            let rows = try connection.query("""
                SELECT count(*) FROM pg_stat_activity
                WHERE backend_type = 'client backend' AND datname = current_database() AND pid <> pg_backend_pid()
                """, logger: PostgresBoard.logger).waitWithin(.long(.minutes(30)))
            return Int(try rows.first?.decode(Int64.self) ?? 0)
        }
    }

    /// `count` different teams of 1...rows in a random order (a team tapped twice in a run
    /// could not tell its two taps apart).
    static func tappedTeams(rows: Int, count: Int, seed: UInt64) -> [RecordID] {
        var random = SplitMix64(seed: seed)
        return Array(Array(1...Int64(rows)).shuffled(using: &random).prefix(count))
    }

    /// A duration in nanoseconds (never negative here).
    static func nanoseconds(_ duration: Duration) -> UInt64 {
        UInt64(duration.components.seconds) * 1_000_000_000 + UInt64(duration.components.attoseconds / 1_000_000_000)
    }

    /// Sleeps until the monotonic clock reads `deadline`.
    private static func sleep(until deadline: UInt64) {
        let now = Monotonic.now()
        guard deadline > now else { return }
        var wait = timespec(tv_sec: Int((deadline - now) / 1_000_000_000), tv_nsec: Int((deadline - now) % 1_000_000_000))
        var left = timespec()
        while nanosleep(&wait, &left) == -1 && errno == EINTR { wait = left }
    }
}

/// A viewer process: `worldcup-bench fanout-viewer`, with its input and output on pipes.
private struct ViewerProcess {
    let process: Process
    let input: Pipe
    let output: Pipe
    var lines: LineReader
    let viewers: Int

    init(url: PostgresURL, viewers: Int, request: FanoutRequest = .joined, raw: Bool = false, executable: URL?) throws {
        input = Pipe()
        output = Pipe()
        process = try ChildProcess.startSelf(["fanout-viewer", "--database-url", url.connectionString, "--viewers", String(viewers),
                                              "--request", request.rawValue] + (raw ? ["--raw"] : []),
                                             output: output, input: input, executable: executable)
        lines = LineReader(descriptor: output.fileHandleForReading.fileDescriptor)
        self.viewers = viewers
    }

    mutating func waitUntilReady() throws {
        guard lines.next() == "ready \(viewers)" else {
            throw BenchError("A viewer process could not start its \(viewers) viewers (see its error above).")
        }
    }

    /// Asks for the final look and reads what the process saw.
    mutating func finish() throws -> FanoutViewerReport {
        do {
            try input.fileHandleForWriting.write(contentsOf: Data("finish\n".utf8))
        } catch {
            throw BenchError("A viewer process ended early (see its error above).")
        }
        var received: [String] = []
        while let line = lines.next(), line != "end" { received.append(line) }
        process.waitUntilExit()
        guard let report = FanoutViewerReport(lines: received), report.viewers.count == viewers else {
            throw BenchError("A viewer process ended without reporting its \(viewers) viewers (see its error above).")
        }
        return report
    }

    /// Ends the process if it still runs (the benchmark failed before `finish`).
    func stop() {
        try? input.fileHandleForWriting.close() // A viewer process finishes when its input closes.
        process.waitUntilExit()
    }
}

/// The statements the server ran on the board's database, counted by `pg_stat_statements`
/// (which counts each at its end, at once, unlike the cumulative statistics that backends
/// report when they get round to it), when the server has it loaded.
private struct ServerStatements {
    let board: PostgresBoard
    let available: Bool

    init(board: PostgresBoard) throws {
        self.board = board
        available = (try? PG.withConnection(board.url) { connection -> Bool in
            try PG.execute(connection, "CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
            try PG.execute(connection, "SELECT count(*) FROM pg_stat_statements")
            return true
        }) ?? false
    }

    /// How many statements ran on the board's database so far (nil: not known here), but
    /// those that read these counts.
    func count() throws -> Int64? {
        guard available else { return nil }
        return try PG.withConnection(board.url) { connection in
            try connection.query("""
                SELECT coalesce(sum(calls), 0)::int8 FROM pg_stat_statements
                WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database()) AND query NOT LIKE '%pg_stat_statements%'
                """, logger: PostgresBoard.logger).waitWithin(.long(.minutes(1))).first?.decode(Int64.self)
        }
    }
}
