import Foundation
import LiveResultsPostgres
import PostgresNIO
import SeededRandom
import ThrowawayPostgres
import WorldCup
import WorldCupStores

/// One run of `worldcup-bench sse`: a live-board-server process on the board, `subscribers`
/// event streams opened from this process (`SSESubscribers`), and taps written through the
/// store as `worldcup tap` writes them, one every `interval`. For each tap and each
/// subscriber, the time from the start of the tap's write to the subscriber's read of the
/// batch carrying it; the server's memory and CPU around them.
struct SSEBenchmark {
    /// The live-board-server executable.
    var server: URL
    var board: SSEBoard
    var subscribers: Int
    var taps: Int
    /// Taps before the measured ones (checked: every subscriber must read them too).
    var warmUpTaps = 2
    var interval: Duration
    var seed: UInt64

    /// The pace that lets a tap reach every subscriber before the next: 100 ms, or a tenth of
    /// a millisecond a subscriber when that is longer (one second at 10,000).
    static func defaultInterval(subscribers: Int) -> Duration {
        .milliseconds(max(100, subscribers / 10))
    }

    /// How long every subscriber may take to read the last tap, and to get its board.
    static func deliveryTimeout(subscribers: Int) -> Duration { .seconds(30 + subscribers / 100) }

    func run() throws -> SSERunResult {
        let label = "[\(subscribers) subscribers]"
        let store = try StoreLocation(database: board.database).open(seed: Seed.bundled(), author: "worldcup-bench")
        defer { store.finish() }
        var wins = Dictionary(try store.teams().map { ($0.id!, $0.wins) }, uniquingKeysWith: max)
        let teams = wins.keys.sorted()
        let ownConnections = try board.databaseConnections(server: nil)

        let process = try BoardServerProcess(executable: server, database: board.database)
        defer { process.stop() }
        Thread.sleep(forTimeInterval: 0.3)
        var result = SSERunResult(subscribers: subscribers, taps: taps)
        result.rssIdleMB = try process.rssMB()

        let book = TapBook()
        let readers = SSESubscribers(count: subscribers, port: process.port, book: book, maxTaps: warmUpTaps + taps)
        let connectStart = (Monotonic.now(), try process.cpuSeconds())
        readers.start()
        defer { readers.stop() }
        guard try readers.wait(until: { $0.ready == subscribers }, timeout: Self.deliveryTimeout(subscribers: subscribers)) else {
            throw BenchError("Only \(readers.current.ready) of \(subscribers) subscribers got the board within \(Self.deliveryTimeout(subscribers: subscribers)).")
        }
        result.connectSeconds = Monotonic.milliseconds(from: connectStart.0, to: Monotonic.now()) / 1000
        result.connectCPUMs = (try process.cpuSeconds() - connectStart.1) * 1000
        result.rssSubscribedMB = try process.rssMB()
        result.databaseConnections = try board.databaseConnections(server: process.pid).map { $0 - (ownConnections ?? 0) }
        Progress.say("\(label) every subscriber has the board (\(Report.format(result.connectSeconds, decimals: 1)) s); tapping \(warmUpTaps) + \(taps) teams, one every \(interval)")

        var random = SplitMix64(seed: seed)
        var commits: [Double] = []
        var tapsCPUStart = 0.0
        var rssDuringTaps = 0.0
        var next = ContinuousClock.now
        for tap in 0..<(warmUpTaps + taps) {
            if tap == warmUpTaps { tapsCPUStart = try process.cpuSeconds() }
            let id = teams[Int(random.next() % UInt64(teams.count))]
            let placed = BoardEvents.Placed(id: id, wins: wins[id]! + 1)
            let start = Monotonic.now()
            _ = book.register(placed, start: start)
            let saved = try store.recordedTap(teamID: id).team
            guard saved.wins == placed.wins else {
                throw BenchError("Another program changed the board during the benchmark (team \(id) has \(saved.wins) wins, not \(placed.wins)).")
            }
            wins[id] = saved.wins
            if tap >= warmUpTaps {
                commits.append(Monotonic.milliseconds(from: start, to: Monotonic.now()))
                rssDuringTaps = max(rssDuringTaps, try process.rssMB())
            }
            next += interval
            Thread.sleep(forTimeInterval: max(0, (next - ContinuousClock.now) / .seconds(1)))
        }
        let expected = (warmUpTaps + taps) * subscribers
        _ = try readers.wait(until: { $0.seen == expected }, timeout: Self.deliveryTimeout(subscribers: subscribers))
        result.cpuMsPerTap = (try process.cpuSeconds() - tapsCPUStart) * 1000 / Double(taps)
        result.rssTapsMB = rssDuringTaps
        result.rssPeakMB = try process.peakRSSMB()
        readers.stop()
        let status = readers.current
        result.laterSnapshots = status.laterSnapshots
        result.duplicates = status.duplicates
        result.tally(seen: readers.seen, starts: book.starts, warmUpTaps: warmUpTaps, subscribers: subscribers)
        result.commitP50Ms = Percentiles(commits).median ?? 0
        Progress.say("\(label) \(result.summary)")
        return result
    }
}

/// Where the benchmark's board is, as `--database` names it to the server and the tapper.
struct SSEBoard {
    /// `--database`'s value: a file's path or a postgres:// URL.
    var database: String
    /// For a board on PostgreSQL: the server's `postgres` database (for the count of
    /// connections) and the board's database name.
    var postgres: (admin: PostgresURL, name: String)?

    /// The connections open on the board's database: on PostgreSQL, every client backend of
    /// its database but the one asking; on SQLite, the server process's descriptors open on
    /// the file (one a connection; none for `server` nil). Nil when it cannot be known.
    func databaseConnections(server: pid_t?) throws -> Int? {
        if let postgres {
            return try PG.withConnection(postgres.admin) { connection in
                try connection.query("""
                    SELECT count(*) FROM pg_stat_activity
                    WHERE datname = \(postgres.name) AND backend_type = 'client backend' AND pid <> pg_backend_pid()
                    """, logger: PostgresBoard.logger).waitWithin(.long(.minutes(1))).first.map { Int(try $0.decode(Int64.self)) }
            }
        }
        guard let server else { return 0 }
        let folder = "/proc/\(server)/fd"
        let file = URL(fileURLWithPath: database).resolvingSymlinksInPath().path
        let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        return descriptors.count { (try? FileManager.default.destinationOfSymbolicLink(atPath: folder + "/" + $0)) == file }
    }
}

/// A live-board-server process on a board, on a free port of the loopback.
final class BoardServerProcess {
    let process = Process()
    let port: Int
    var pid: pid_t { process.processIdentifier }

    /// Starts it and waits for the address it prints. Its standard error is this process's.
    init(executable: URL, database: String) throws {
        guard FileManager.default.isExecutableFile(atPath: executable.path) else {
            throw BenchError("There is no live-board-server at \(executable.path): build it with swift build -c release --package-path Examples/LiveBoardServer.")
        }
        let output = Pipe()
        process.executableURL = executable
        process.arguments = ["--database", database, "--port", "0"]
        process.standardOutput = output
        do { try process.run() } catch { throw BenchError("Cannot start \(executable.path): \(error).") }
        var printed = Data()
        while !printed.contains(UInt8(ascii: "\n")) {
            let more = output.fileHandleForReading.availableData
            if more.isEmpty { break }
            printed += more
        }
        let line = String(decoding: printed, as: UTF8.self)
        guard let address = line.split(separator: " at ").last, let url = URL(string: address.trimmingCharacters(in: .whitespacesAndNewlines)),
              let port = url.port else {
            process.waitUntilExit()
            throw BenchError("live-board-server did not start (it printed “\(line.trimmingCharacters(in: .whitespacesAndNewlines))”; see its error above).")
        }
        self.port = port
    }

    func rssMB() throws -> Double { Double(try MemoryProbe.statusKB("VmRSS", of: pid)) / 1024 }
    func peakRSSMB() throws -> Double { Double(try MemoryProbe.statusKB("VmHWM", of: pid)) / 1024 }

    func cpuSeconds() throws -> Double {
        guard let stat = ProcessStat(pid: pid) else { throw BenchError("live-board-server ended during the benchmark (see its error above).") }
        return stat.cpuSeconds
    }

    /// Interrupts it as Ctrl-C does, and kills it when it has not ended after ten seconds.
    func stop() {
        guard process.isRunning else { return }
        kill(pid, SIGINT)
        let deadline = ContinuousClock.now + .seconds(10)
        while process.isRunning, ContinuousClock.now < deadline { Thread.sleep(forTimeInterval: 0.02) }
        if process.isRunning { kill(pid, SIGKILL) }
        process.waitUntilExit()
    }
}
