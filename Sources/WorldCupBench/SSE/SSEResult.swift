import Foundation

/// What one run of `worldcup-bench sse` measured.
struct SSERunResult: Equatable {
    var subscribers: Int
    /// Measured taps (the warm-up taps are checked, not timed).
    var taps: Int
    /// Start of a tap's write → a subscriber's read of the batch carrying it, over every
    /// (measured tap, subscriber).
    var latency = Latencies()
    /// The median over the taps of the time until the last subscriber read it.
    var lastSubscriberP50Ms = 0.0
    /// (tap, subscriber) pairs never read, warm-up taps included.
    var missed = 0
    var laterSnapshots = 0
    var duplicates = 0
    /// The tap's write, through the store (its commit).
    var commitP50Ms = 0.0
    /// The server's resident memory: started, before any subscriber; with every subscriber
    /// holding its board; the most seen while the taps ran; its peak (VmHWM) at the end.
    var rssIdleMB = 0.0
    var rssSubscribedMB = 0.0
    var rssTapsMB = 0.0
    var rssPeakMB = 0.0
    /// The server's CPU while the subscribers connected and got their boards, and per measured
    /// tap (its write, until every subscriber read it).
    var connectCPUMs = 0.0
    var cpuMsPerTap = 0.0
    var connectSeconds = 0.0
    /// The server's connections to the database with every subscriber connected; nil: unknown.
    var databaseConnections: Int?

    /// The memory each subscriber costs the server, with its board sent.
    var kBPerSubscriber: Double { (rssSubscribedMB - rssIdleMB) * 1024 / Double(max(subscribers, 1)) }
    /// The server's CPU per tap and subscriber.
    var cpuMicrosecondsPerDelivery: Double { cpuMsPerTap * 1000 / Double(max(subscribers, 1)) }

    /// Every subscriber read every tap, once, and no board came again.
    var isExact: Bool { missed == 0 && duplicates == 0 && laterSnapshots == 0 }

    /// Fills the latencies and the missed count from `seen` (`SSESubscribers.seen`, tap-major)
    /// and the taps' `starts`.
    mutating func tally(seen: [UInt64], starts: [UInt64], warmUpTaps: Int, subscribers: Int) {
        var latencies: [Double] = []
        latencies.reserveCapacity(max(0, starts.count - warmUpTaps) * subscribers)
        var lasts: [Double] = []
        missed = 0
        for (tap, start) in starts.enumerated() {
            var last = 0.0
            for subscriber in 0..<subscribers {
                let read = seen[tap * subscribers + subscriber]
                guard read != 0 else { missed += 1; continue }
                let latency = Monotonic.milliseconds(from: start, to: read)
                last = max(last, latency)
                if tap >= warmUpTaps { latencies.append(latency) }
            }
            if tap >= warmUpTaps { lasts.append(last) }
        }
        latency = Latencies(latencies)
        lastSubscriberP50Ms = Percentiles(lasts).median ?? 0
    }

    /// The run in one line, for the progress output.
    var summary: String {
        "p50 \(Report.format(latency.p50Ms, decimals: 2)) ms, p99 \(Report.format(latency.p99Ms, decimals: 2)) ms, last subscriber \(Report.format(lastSubscriberP50Ms, decimals: 1)) ms; "
            + "missed \(missed), duplicated \(duplicates), boards again \(laterSnapshots); server \(Report.format(rssSubscribedMB, decimals: 1)) MB, "
            + "CPU \(Report.format(cpuMsPerTap, decimals: 1)) ms a tap"
    }

    /// The median of several runs at one count: each figure's median; the counts of what
    /// went wrong added up.
    static func median(_ runs: [SSERunResult]) -> SSERunResult {
        precondition(!runs.isEmpty)
        var result = SSERunResult(subscribers: runs[0].subscribers, taps: runs.map(\.taps).reduce(0, +))
        let medians: [WritableKeyPath<SSERunResult, Double>] = [\.latency.p50Ms, \.latency.p99Ms, \.latency.maxMs, \.lastSubscriberP50Ms, \.commitP50Ms, \.rssIdleMB, \.rssSubscribedMB,
                                                              \.rssTapsMB, \.rssPeakMB, \.connectCPUMs, \.cpuMsPerTap, \.connectSeconds]
        for figure in medians { result[keyPath: figure] = Percentiles(runs.map { $0[keyPath: figure] }).median ?? 0 }
        let wrong: [WritableKeyPath<SSERunResult, Int>] = [\.missed, \.duplicates, \.laterSnapshots]
        for count in wrong { result[keyPath: count] = runs.map { $0[keyPath: count] }.reduce(0, +) }
        result.databaseConnections = runs.compactMap(\.databaseConnections).max()
        return result
    }

    /// The columns of the table, named as a reader of docs/BENCHMARKS.md reads them.
    var columns: [(key: String, value: String?)] {
        [
            ("subscribers", String(subscribers)),
            ("taps", String(taps)),
            ("p50_ms", Report.format(latency.p50Ms, decimals: 2)),
            ("p99_ms", Report.format(latency.p99Ms, decimals: 2)),
            ("max_ms", Report.format(latency.maxMs, decimals: 1)),
            ("last_p50_ms", Report.format(lastSubscriberP50Ms, decimals: 1)),
            ("missed", String(missed)),
            ("commit_ms", Report.format(commitP50Ms, decimals: 2)),
            ("rss_idle_mb", Report.format(rssIdleMB, decimals: 1)),
            ("rss_mb", Report.format(rssSubscribedMB, decimals: 1)),
            ("kb_per_sub", Report.format(kBPerSubscriber, decimals: 1)),
            ("peak_mb", Report.format(rssPeakMB, decimals: 1)),
            ("cpu_ms_tap", Report.format(cpuMsPerTap, decimals: 2)),
            ("cpu_us_sub_tap", Report.format(cpuMicrosecondsPerDelivery, decimals: 2)),
            ("connect_s", Report.format(connectSeconds, decimals: 2)),
            ("connect_cpu_ms", Report.format(connectCPUMs, decimals: 0)),
            ("db_conns", databaseConnections.map(String.init)),
        ]
    }

    /// The table of the medians, and the issue's target: the p99 at 1,000 subscribers within
    /// twice the p99 at 10, when both were measured.
    static func table(_ results: [SSERunResult]) -> String {
        var text = Report.aligned(results.map(\.columns)) + ratio(results)
        if let large = results.first(where: { $0.subscribers == 10_000 }) {
            text += "\n10,000 subscribers: p99 \(Report.format(large.latency.p99Ms, decimals: 1)) ms, \(Report.format(large.rssSubscribedMB, decimals: 0)) MB resident "
                + "(\(Report.format(large.kBPerSubscriber, decimals: 1)) kB a subscriber), \(Report.format(large.cpuMsPerTap, decimals: 0)) ms of CPU a tap, "
                + "\(large.databaseConnections.map { "\($0) database connection\($0 == 1 ? "" : "s")" } ?? "database connections unknown")"
        }
        return text
    }

    /// The floor's table (`SSEFloor`): its latencies, and the CPU of the thread writing each
    /// event to every stream.
    static func floorTable(_ results: [SSERunResult]) -> String {
        let rows = results.map { result in
            result.columns.filter { ["subscribers", "taps", "p50_ms", "p99_ms", "max_ms", "last_p50_ms", "missed"].contains($0.key) }
                + [("write_cpu_ms_tap", Report.format(result.cpuMsPerTap, decimals: 2)),
                   ("write_cpu_us_sub", Report.format(result.cpuMicrosecondsPerDelivery, decimals: 2))]
        }
        return Report.aligned(rows) + ratio(results)
    }

    /// The p99 at 1,000 subscribers over the p99 at 10, when both were measured.
    private static func ratio(_ results: [SSERunResult]) -> String {
        guard let ten = results.first(where: { $0.subscribers == 10 }), let thousand = results.first(where: { $0.subscribers == 1_000 }),
              ten.latency.p99Ms > 0 else { return "" }
        let ratio = thousand.latency.p99Ms / ten.latency.p99Ms
        return "\n\np99 at 1,000 subscribers / p99 at 10: \(Report.format(ratio, decimals: 2))×, at most 2×: \(ratio <= 2 ? "met" : "not met")"
    }
}
