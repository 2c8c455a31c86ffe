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
    var settings: SizeSettings
    var folder: URL
    /// Keep the database in `folder` after the run, and reuse the one an earlier run left there.
    var keepDatabase = false

    /// Taps before measuring, to warm caches and code paths.
    static let warmUpTaps = 20
    static let peerWarmUpTaps = 3
    /// `performFetch()` runs whose median is reported.
    static let fetchRuns = 3
    /// Cached `performFetch()` runs whose median is reported: more, since they are quick, so
    /// that one stalled run does not move the median (and with it the ratio of the largest
    /// board; how far it moved it: docs/BENCHMARKS.md).
    static let cachedFetchRuns = 7
    /// Taps timed from this process to a batch in another.
    static let crossProcessTaps = 200

    func run() throws -> SizeResult {
        let (rows, taps, peerTaps, seed) = (settings.rows, settings.taps, settings.peerTaps, settings.seed)
        defer { try? FileManager.default.removeItem(at: keepDatabase ? folder.appendingPathComponent("cache") : folder) }
        let databaseURL = folder.appendingPathComponent("bench.sqlite")
        let label = "[\(rows) teams]"

        Progress.say("\(label) building the database in \(folder.path)")
        let buildStart = Monotonic.now()
        let (scoreboard, reused) = keepDatabase
            ? try BenchDatabase.reuseOrBuild(rows: rows, at: databaseURL, seed: seed)
            : (try BenchDatabase.build(rows: rows, at: databaseURL, seed: seed), false)
        Progress.say("\(label) \(reused ? "reused the database of an earlier run" : "built") in \(Report.format(Monotonic.milliseconds(from: buildStart, to: Monotonic.now()) / 1000, decimals: 2)) s")

        let steps = SizeSteps(label: label)
        let bareSelect = steps.median("bare SELECT id … ORDER BY", try BareSelect.times(scoreboard: scoreboard, rows: rows, runs: Self.fetchRuns))
        let fetchCold = steps.median("performFetch cold", try ControllerContender.fetchTimes(scoreboard: scoreboard, rows: rows, runs: Self.fetchRuns),
                                     versus: ("bare select", bareSelect))
        let fetchCached = steps.median("performFetch with a valid section cache",
                                       try ControllerContender.fetchTimes(scoreboard: scoreboard, rows: rows, runs: Self.cachedFetchRuns,
                                                                          cacheDirectory: folder.appendingPathComponent("cache")))

        let plan = BenchDatabase.tapPlan(rows: rows, count: max(taps, peerTaps), seed: seed &+ 1)
        let warmUp = BenchDatabase.tapPlan(rows: rows, count: Self.warmUpTaps, seed: seed &+ 2)
        let warmStart = Monotonic.now()
        try BenchDatabase.warmPages(for: warmUp + plan, in: scoreboard)
        Progress.say("\(label) read the pages the taps write, for every contender alike, in \(Report.format(Monotonic.milliseconds(from: warmStart, to: Monotonic.now()), decimals: 1)) ms")

        // The floor twice, before the controller and after everything, and the lower of the two
        // kept: one measurement of it swings widely on a shared machine (docs/BENCHMARKS.md),
        // and a high one would flatter the controller.
        Progress.say("\(label) floor (the bare commit: the UPDATE and its history entry), first time: \(Self.warmUpTaps) warm-up taps, then \(taps) measured")
        let firstFloor = try FloorContender.measure(databasePath: databaseURL.path, warmUp: warmUp, taps: Array(plan.prefix(taps)))

        Progress.say("\(label) controller: \(Self.warmUpTaps) warm-up taps, then \(taps) measured")
        let oursRun = try ControllerContender.measure(scoreboard: scoreboard, rows: rows, warmUp: warmUp, taps: Array(plan.prefix(taps)))
        let p50 = SizeSteps.p50
        let ours = steps.latencies("controller", oursRun.latencies,
                                   detail: "p50s: the tap's commit with the log's trigger and the observer \(p50(oursRun.write)) µs, then processPendingChanges until the batch \(p50(oursRun.apply)) µs")

        Progress.say("\(label) peer (ValueObservation + difference(from:)): \(Self.peerWarmUpTaps) warm-up taps, then \(peerTaps) measured")
        let peerRun = try RefetchDiffPeer.measure(scoreboard: scoreboard, rows: rows, warmUp: Array(warmUp.prefix(Self.peerWarmUpTaps)), taps: Array(plan.prefix(peerTaps)))
        let peer = steps.latencies("peer", peerRun.latencies, detail: "of which difference(from:) p50 \(p50(peerRun.diffTimes)) µs")

        let crossTaps = BenchDatabase.tapPlan(rows: rows, count: Self.crossProcessTaps, seed: seed &+ 3)
        let cross = Percentiles(try CrossProcessLatency.measure(databasePath: databaseURL.path, rows: rows, taps: crossTaps, scoreboard: scoreboard))
        Progress.say("\(label) another process: \(Self.crossProcessTaps) taps here, batches there: p50 \(Report.format(cross.median ?? 0, decimals: 2)) ms, p99 \(Report.format(cross.p99 ?? 0, decimals: 2)) ms")

        let rssMB = steps.memory(try MemoryProbe.measure(databasePath: databaseURL.path), before: "before opening the database")

        Progress.say("\(label) floor (the bare commit: the UPDATE and its history entry), second time: \(Self.warmUpTaps) warm-up taps, then \(taps) measured")
        let secondFloor = try FloorContender.measure(databasePath: databaseURL.path, warmUp: warmUp, taps: Array(plan.prefix(taps)))
        let floors = [firstFloor, secondFloor].map { (run: $0, bare: Percentiles($0.bare)) }
        let floor = floors.min { ($0.bare.median ?? 0) < ($1.bare.median ?? 0) }!.bare
        let withLog = floors.map { Percentiles($0.run.withLog).median ?? 0 }.min() ?? 0
        Progress.say("\(label) floor: p50 \(floors.map { Report.format($0.bare.median ?? 0, decimals: 1) }.joined(separator: " and ")) µs, the lower kept (p99 \(Report.format(floor.p99 ?? 0, decimals: 1)) µs); ours is \(Report.format((ours.median ?? 0) / max(floor.median ?? 1, 0.001), decimals: 2))× the floor (the same commit with the change log's trigger, no controller: p50 \(Report.format(withLog, decimals: 1)) µs, the lower of two)")

        return withExtendedLifetime(scoreboard) {
            var result = SizeResult(store: .sqlite, rows: rows, ours: ours, peer: peer, floor: floor, fetchColdMs: fetchCold, bareSelectMs: bareSelect, rssMB: rssMB)
            result.fetchCachedMs = fetchCached
            (result.crossProcessP50Ms, result.crossProcessP99Ms) = (cross.median ?? 0, cross.p99 ?? 0)
            result.floorLogP50 = withLog
            return result
        }
    }
}
