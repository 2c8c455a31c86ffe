import Foundation
import LiveResults

/// What one run of the fan-out benchmark measured, over all viewers and the measured taps.
struct FanoutResult: Equatable {
    var viewers = 0
    /// The viewers' request.
    var request = FanoutRequest.joined
    var processes = 0
    /// Measured taps (the warm-up taps are checked, not timed).
    var taps = 0
    var intervalMs = 0.0
    /// Start of a tap's UPDATE → end of a viewer's batch naming it, over every (tap, viewer).
    var fanout = Latencies()
    /// Where that time went: start of the tap → `onChangesAvailable` in the viewer (the
    /// commit, the NOTIFY, the feed's log read), then → end of the batch (waiting for the
    /// viewer process's drain thread, `processPendingChanges`).
    var wake = Latencies()
    var deliver = Latencies()
    /// (tap, viewer) pairs the viewer never reported, even after its final look.
    var missed = 0
    /// Reports of a tap beyond a viewer's first.
    var duplicated = 0
    /// Rows reported that no tap changed.
    var unexpected = 0
    /// Viewers whose result differed from a fresh fetch after their final look.
    var notConverged = 0
    var resets = 0
    /// Batches delivered per tap and viewer (1 when each tap was a batch of its own).
    var batchesPerTap = 0.0
    /// The tapper's UPDATE round trip (its commit, with the change log's triggers).
    var commit = Latencies()
    /// The server's CPU while the taps ran, and before them with the viewers idle, in
    /// percent of one core; nil for a server elsewhere (`--postgres-url`).
    var serverCPUPercent: Double?
    var serverIdleCPUPercent: Double?
    /// The server's CPU while the taps ran, in milliseconds a tap.
    var serverCPUMsPerTap: Double?
    /// The statements the server ran while the taps ran, but the taps' own (measured while the
    /// plain listeners heard the same taps), per tap and viewer (`pg_stat_statements`; the
    /// heartbeat's empty statement is not one); nil where the server has not loaded it.
    var serverQueriesPerTapViewer: Double?
    /// The floor: the same taps heard by as many plain LISTEN connections (postgres-nio, no
    /// LiveResults), from the start of the tap to the notification's arrival.
    var rawNotify = Latencies()
    var rawMissed = 0
    var rawServerCPUPercent: Double?
    var rawServerCPUMsPerTap: Double?
    /// The viewer processes' CPU while the taps ran, in milliseconds a tap; and the plain
    /// listeners' processes'.
    var viewersCPUMsPerTap = 0.0
    var rawListenersCPUMsPerTap = 0.0
    /// The server's memory (the proportional set sizes of its processes) with every viewer connected.
    var serverMemoryMB: Double?
    /// The server's client connections to the board's database while the viewers watched,
    /// per viewer (counted by the server in `pg_stat_activity`).
    var backendsPerViewer: Double?
    /// The viewer processes' resident memory, together.
    var viewersMemoryMB = 0.0

    /// Joins the taps with what every viewer process saw. The first `warmUpTaps` taps count
    /// for missed and duplicated reports, not for latencies.
    static func tally(taps: [FanoutTap], warmUpTaps: Int, reports: [FanoutViewerReport]) -> FanoutResult {
        var result = FanoutResult()
        result.taps = max(0, taps.count - warmUpTaps)
        let tapped = Set(taps.map(\.id))
        var latencies: [Double] = []
        var wakes: [Double] = []
        var deliveries: [Double] = []
        var batches = 0
        var viewers = 0
        for viewer in reports.flatMap(\.viewers) {
            viewers += 1
            batches += viewer.batches
            result.resets += viewer.resets
            if !viewer.converged { result.notConverged += 1 }
            var seen: [RecordID: [FanoutViewerReport.Sighting]] = [:]
            for sighting in viewer.sightings { seen[sighting.id, default: []].append(sighting) }
            result.unexpected += seen.filter { !tapped.contains($0.key) }.values.reduce(0) { $0 + $1.count }
            for (index, tap) in taps.enumerated() {
                guard let sightings = seen[tap.id], let first = sightings.min(by: { $0.at < $1.at }) else {
                    result.missed += 1
                    continue
                }
                result.duplicated += sightings.count - 1
                guard index >= warmUpTaps else { continue }
                latencies.append(Self.milliseconds(from: tap.start, to: first.at))
                wakes.append(Self.milliseconds(from: tap.start, to: first.woken))
                deliveries.append(Self.milliseconds(from: first.woken, to: first.at))
            }
        }
        (result.fanout, result.wake, result.deliver) = (Latencies(latencies), Latencies(wakes), Latencies(deliveries))
        result.commit = Latencies(taps.dropFirst(warmUpTaps).map { Monotonic.milliseconds(from: $0.start, to: $0.committed) })
        result.batchesPerTap = viewers > 0 && !taps.isEmpty ? Double(batches) / Double(viewers * taps.count) : 0
        result.viewersMemoryMB = Double(reports.reduce(0) { $0 + $1.rssKB }) / 1024
        return result
    }

    /// Milliseconds from `start` to `end`, 0 when `end` is earlier (a wake-up left over from
    /// a heartbeat read that ran as the tap began).
    private static func milliseconds(from start: UInt64, to end: UInt64) -> Double {
        end > start ? Monotonic.milliseconds(from: start, to: end) : 0
    }

    /// The columns, named as the JSON keys, with each value (nil: not measured).
    var columns: [(key: String, value: String?)] {
        let run: [(key: String, value: String?)] = [
            ("viewers", String(viewers)),
            ("request", request.rawValue),
            ("processes", String(processes)),
            ("taps", String(taps)),
            ("interval_ms", Report.format(intervalMs, decimals: 0)),
        ]
        let exactness: [(key: String, value: String?)] = [
            ("missed", String(missed)),
            ("duplicated", String(duplicated)),
            ("unexpected", String(unexpected)),
            ("not_converged", String(notConverged)),
            ("resets", String(resets)),
            ("batches_per_tap", Report.format(batchesPerTap, decimals: 3)),
        ]
        let floorAndCosts: [(key: String, value: String?)] = [
            ("raw_missed", String(rawMissed)),
            ("p50_vs_raw", Report.format(fanout.p50Ms / max(rawNotify.p50Ms, 0.001), decimals: 2)),
            ("p99_vs_raw", Report.format(fanout.p99Ms / max(rawNotify.p99Ms, 0.001), decimals: 2)),
            ("server_tap_cpu_percent", serverCPUPercent.map { Report.format($0, decimals: 1) }),
            ("server_cpu_ms_per_tap", serverCPUMsPerTap.map { Report.format($0, decimals: 1) }),
            ("raw_server_tap_cpu_percent", rawServerCPUPercent.map { Report.format($0, decimals: 1) }),
            ("raw_server_cpu_ms_per_tap", rawServerCPUMsPerTap.map { Report.format($0, decimals: 1) }),
            ("viewers_cpu_ms_per_tap", Report.format(viewersCPUMsPerTap, decimals: 1)),
            ("raw_listeners_cpu_ms_per_tap", Report.format(rawListenersCPUMsPerTap, decimals: 1)),
            ("viewer_cpu_us_per_tap", Report.format(perViewerMicroseconds(viewersCPUMsPerTap), decimals: 1)),
            ("raw_cpu_us_per_tap", Report.format(perViewerMicroseconds(rawListenersCPUMsPerTap), decimals: 1)),
            ("server_queries_per_tap_viewer", serverQueriesPerTapViewer.map { Report.format($0, decimals: 3) }),
            ("server_idle_cpu_percent", serverIdleCPUPercent.map { Report.format($0, decimals: 1) }),
            ("server_pss_mb", serverMemoryMB.map { Report.format($0, decimals: 0) }),
            ("backends_per_viewer", backendsPerViewer.map { Report.format($0, decimals: 2) }),
            ("viewers_rss_mb", Report.format(viewersMemoryMB, decimals: 0)),
        ]
        return run + fanout.columns("fanout", withMax: true) + wake.columns("wake") + deliver.columns("deliver") + exactness
            + commit.columns("commit") + rawNotify.columns("raw_notify") + floorAndCosts
    }

    /// Processes' CPU in milliseconds a tap, in microseconds a tap and viewer (or listener).
    private func perViewerMicroseconds(_ milliseconds: Double) -> Double {
        1000 * milliseconds / Double(max(viewers, 1))
    }

    /// One line for the progress output.
    var summary: String {
        "tap→batch p50 \(Report.format(fanout.p50Ms, decimals: 2)) ms, p99 \(Report.format(fanout.p99Ms, decimals: 2)) ms, max \(Report.format(fanout.maxMs, decimals: 2)) ms "
            + "(to the viewer's wake-up p50 \(Report.format(wake.p50Ms, decimals: 2)) ms, then to its batch p50 \(Report.format(deliver.p50Ms, decimals: 2)) ms); "
            + "missed \(missed), duplicated \(duplicated), unexpected \(unexpected), not converged \(notConverged), resets \(resets); "
            + "commit p50 \(Report.format(commit.p50Ms, decimals: 2)) ms; server CPU \(serverCPUPercent.map { Report.format($0, decimals: 1) + " %" } ?? "n/a")"
            + " (idle \(serverIdleCPUPercent.map { Report.format($0, decimals: 1) + " %" } ?? "n/a")), server memory \(serverMemoryMB.map { Report.format($0, decimals: 0) + " MB" } ?? "n/a")"
            + ", \(backendsPerViewer.map { Report.format($0, decimals: 2) } ?? "n/a") server connections a viewer"
    }

    /// Whether every tap reached every viewer exactly once, and every viewer ended as a fresh fetch.
    var isExact: Bool { missed == 0 && duplicated == 0 && unexpected == 0 && notConverged == 0 }

    /// A table, one line per run.
    static func table(_ results: [FanoutResult]) -> String {
        Report.aligned(results.map(\.columns))
    }

    /// A JSON array, one object per run.
    static func json(_ results: [FanoutResult]) -> String {
        Report.jsonArray(results.map(\.columns))
    }
}
