import Foundation
import WorldCup

/// Where the benchmarked scoreboard lives.
public enum BenchStore: String, CaseIterable, Sendable {
    case sqlite, postgres
}

/// The figures of one size, as the report prints them.
struct SizeResult {
    var store: BenchStore = .sqlite
    var rows: Int
    var incrementalP50: Double
    var incrementalP99: Double
    var peerP50: Double
    var peerP99: Double
    var speedup: Double
    var fetchColdMs: Double
    /// The bare select of the board's order, on the same database: `SELECT id … ORDER BY` on
    /// SQLite (`BareSelect`), the key query's columns streamed on PostgreSQL (`PostgresBareSelect`).
    var bareSelectMs: Double?
    /// From a valid section cache (SQLite only).
    var fetchCachedMs: Double?
    var rssMB: Double
    /// From a tap's commit in this process to the batch delivered in another process, in ms
    /// (SQLite only).
    var crossProcessP50Ms: Double?
    var crossProcessP99Ms: Double?
    /// The same tap's commit with no controller, observer or change log (`FloorContender`), in µs:
    /// the lower of two measurements, one before the controller's and one after everything.
    var floorP50: Double
    var floorP99: Double
    /// The floor's commit with the change log's trigger, still with no controller or observer,
    /// in µs (SQLite only): the README's "floor + log".
    var floorLogP50: Double? = nil
}

/// Every measurement of one size, on one database built for it and deleted afterwards.
struct SizeBenchmark {
    var rows: Int
    var taps: Int
    var peerTaps: Int
    var seed: UInt64
    var folder: URL
    /// Keep the database in `folder` after the run, and reuse the one an earlier run left there.
    var keepDatabase = false

    /// Taps before measuring, to warm caches and code paths.
    static let warmUpTaps = 20
    static let peerWarmUpTaps = 3
    /// `performFetch()` runs whose median is reported.
    static let fetchRuns = 3
    /// Cached `performFetch()` runs whose median is reported: more, since they are quick and
    /// one slow run in three (a stall of a few milliseconds) moved the million's median,
    /// and with it the ten million's ratio, by half.
    static let cachedFetchRuns = 7
    /// Taps timed from this process to a batch in another.
    static let crossProcessTaps = 200

    func run() throws -> SizeResult {
        defer { try? FileManager.default.removeItem(at: keepDatabase ? folder.appendingPathComponent("cache") : folder) }
        let databaseURL = folder.appendingPathComponent("bench.sqlite")
        let label = "[\(rows) teams]"

        Progress.say("\(label) building the database in \(folder.path)")
        let buildStart = Monotonic.now()
        let (scoreboard, reused) = keepDatabase
            ? try BenchDatabase.reuseOrBuild(rows: rows, at: databaseURL, seed: seed)
            : (try BenchDatabase.build(rows: rows, at: databaseURL, seed: seed), false)
        Progress.say("\(label) \(reused ? "reused the database of an earlier run" : "built") in \(Report.format(Monotonic.milliseconds(from: buildStart, to: Monotonic.now()) / 1000, decimals: 2)) s")

        let bareTimes = try BareSelect.times(scoreboard: scoreboard, rows: rows, runs: Self.fetchRuns)
        let bareSelect = Percentiles(bareTimes).median ?? 0
        Progress.say("\(label) bare SELECT id … ORDER BY: \(bareTimes.map { Report.format($0, decimals: 1) }.joined(separator: ", ")) ms; median \(Report.format(bareSelect, decimals: 1)) ms")
        let fetchTimes = try ControllerContender.fetchTimes(scoreboard: scoreboard, rows: rows, runs: Self.fetchRuns)
        let fetchCold = Percentiles(fetchTimes).median ?? 0
        Progress.say("\(label) performFetch cold: \(fetchTimes.map { Report.format($0, decimals: 1) }.joined(separator: ", ")) ms; median \(Report.format(fetchCold, decimals: 1)) ms, \(Report.format(fetchCold / max(bareSelect, 0.001), decimals: 2))× the bare select")
        let cachedTimes = try ControllerContender.fetchTimes(scoreboard: scoreboard, rows: rows, runs: Self.cachedFetchRuns,
                                                             cacheDirectory: folder.appendingPathComponent("cache"))
        let fetchCached = Percentiles(cachedTimes).median ?? 0
        Progress.say("\(label) performFetch with a valid section cache: \(cachedTimes.map { Report.format($0, decimals: 1) }.joined(separator: ", ")) ms; median \(Report.format(fetchCached, decimals: 1)) ms")

        let plan = BenchDatabase.tapPlan(rows: rows, count: max(taps, peerTaps), seed: seed &+ 1)
        let warmUp = BenchDatabase.tapPlan(rows: rows, count: Self.warmUpTaps, seed: seed &+ 2)
        let warmStart = Monotonic.now()
        try BenchDatabase.warmPages(for: warmUp + plan, in: scoreboard)
        Progress.say("\(label) read the pages the taps write, for every contender alike, in \(Report.format(Monotonic.milliseconds(from: warmStart, to: Monotonic.now()), decimals: 1)) ms")

        // The floor twice, before the controller and after everything, and the lower of the two
        // kept: one measurement of it swings by half on this kind of machine, and a high one
        // would flatter the controller.
        Progress.say("\(label) floor (the bare commit: the UPDATE and its history entry), first time: \(Self.warmUpTaps) warm-up taps, then \(taps) measured")
        let firstFloor = try FloorContender.measure(databasePath: databaseURL.path, warmUp: warmUp, taps: Array(plan.prefix(taps)))

        Progress.say("\(label) controller: \(Self.warmUpTaps) warm-up taps, then \(taps) measured")
        let oursRun = try ControllerContender.measure(scoreboard: scoreboard, rows: rows, warmUp: warmUp, taps: Array(plan.prefix(taps)))
        let ours = Percentiles(oursRun.latencies)
        let oursP50 = ours.median ?? 0
        let oursP99 = ours.p99 ?? 0
        func p50(_ sample: [Double]) -> String { Report.format(Percentiles(sample).median ?? 0, decimals: 1) }
        Progress.say("\(label) controller: p50 \(Report.format(oursP50, decimals: 1)) µs, p99 \(Report.format(oursP99, decimals: 1)) µs (p50s: the tap's commit with the log's trigger and the observer \(p50(oursRun.write)) µs, then processPendingChanges until the batch \(p50(oursRun.apply)) µs)")

        Progress.say("\(label) peer (ValueObservation + difference(from:)): \(Self.peerWarmUpTaps) warm-up taps, then \(peerTaps) measured")
        let peerRun = try RefetchDiffPeer.measure(scoreboard: scoreboard, rows: rows, warmUp: Array(warmUp.prefix(Self.peerWarmUpTaps)), taps: Array(plan.prefix(peerTaps)))
        let peer = Percentiles(peerRun.latencies)
        let peerP50 = peer.median ?? 0
        Progress.say("\(label) peer: p50 \(Report.format(peerP50, decimals: 1)) µs, p99 \(Report.format(peer.p99 ?? 0, decimals: 1)) µs (of which difference(from:) p50 \(Report.format(Percentiles(peerRun.diffTimes).median ?? 0, decimals: 1)) µs)")

        let crossTaps = BenchDatabase.tapPlan(rows: rows, count: Self.crossProcessTaps, seed: seed &+ 3)
        let cross = Percentiles(try CrossProcessLatency.measure(databasePath: databaseURL.path, rows: rows, taps: crossTaps, scoreboard: scoreboard))
        Progress.say("\(label) another process: \(Self.crossProcessTaps) taps here, batches there: p50 \(Report.format(cross.median ?? 0, decimals: 2)) ms, p99 \(Report.format(cross.p99 ?? 0, decimals: 2)) ms")

        let memory = try MemoryProbe.measure(databasePath: databaseURL.path)
        let rssMB = Double(memory.rssKB) / 1024
        Progress.say("\(label) memory probe: \(Report.format(rssMB, decimals: 1)) MB resident holding the controller (\(Report.format(Double(memory.baselineKB) / 1024, decimals: 1)) MB before opening the database, peak \(Report.format(Double(memory.peakKB) / 1024, decimals: 1)) MB)")

        Progress.say("\(label) floor (the bare commit: the UPDATE and its history entry), second time: \(Self.warmUpTaps) warm-up taps, then \(taps) measured")
        let secondFloor = try FloorContender.measure(databasePath: databaseURL.path, warmUp: warmUp, taps: Array(plan.prefix(taps)))
        let floors = [firstFloor, secondFloor].map { (run: $0, bare: Percentiles($0.bare)) }
        let floor = floors.min { ($0.bare.median ?? 0) < ($1.bare.median ?? 0) }!.bare
        let withLog = floors.map { Percentiles($0.run.withLog).median ?? 0 }.min() ?? 0
        Progress.say("\(label) floor: p50 \(floors.map { Report.format($0.bare.median ?? 0, decimals: 1) }.joined(separator: " and ")) µs, the lower kept (p99 \(Report.format(floor.p99 ?? 0, decimals: 1)) µs); ours is \(Report.format(oursP50 / max(floor.median ?? 1, 0.001), decimals: 2))× the floor (the same commit with the change log's trigger, no controller: p50 \(Report.format(withLog, decimals: 1)) µs, the lower of two)")

        return withExtendedLifetime(scoreboard) {
            SizeResult(
                rows: rows,
                incrementalP50: oursP50,
                incrementalP99: oursP99,
                peerP50: peerP50,
                peerP99: peer.p99 ?? 0,
                speedup: oursP50 > 0 ? peerP50 / oursP50 : 0,
                fetchColdMs: fetchCold,
                bareSelectMs: bareSelect,
                fetchCachedMs: fetchCached,
                rssMB: rssMB,
                crossProcessP50Ms: cross.median ?? 0,
                crossProcessP99Ms: cross.p99 ?? 0,
                floorP50: floor.median ?? 0,
                floorP99: floor.p99 ?? 0,
                floorLogP50: withLog
            )
        }
    }
}
