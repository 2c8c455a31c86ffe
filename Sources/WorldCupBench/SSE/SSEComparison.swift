/// The server's medians at one count beside the floor's of the same runs (`SSEFloor`), as
/// issue 54's targets state them: the p99 at most 1.5× the floor's, the CPU a subscriber and
/// tap at most 2× the cost of writing the event (the floor's writing thread).
struct SSEComparison: Equatable {
    var store: BenchStore
    var server: SSERunResult
    /// nil where the floor was not measured (too few descriptors for both ends of its streams).
    var floor: SSERunResult?

    static let p99Target = 1.5
    static let cpuTarget = 2.0

    /// The server's p99 over the floor's.
    var p99Ratio: Double? {
        guard let floor, floor.latency.p99Ms > 0 else { return nil }
        return server.latency.p99Ms / floor.latency.p99Ms
    }

    /// The server's CPU a subscriber and tap over the floor's.
    var cpuRatio: Double? {
        guard let floor, floor.cpuMicrosecondsPerDelivery > 0 else { return nil }
        return server.cpuMicrosecondsPerDelivery / floor.cpuMicrosecondsPerDelivery
    }

    /// Each count's server medians paired with the floor's at the same count.
    static func pair(store: BenchStore, server: [SSERunResult], floor: [SSERunResult]) -> [SSEComparison] {
        server.map { served in SSEComparison(store: store, server: served, floor: floor.first { $0.subscribers == served.subscribers }) }
    }

    /// The server's columns, then the floor's and the two ratios beside them (null without a floor).
    var columns: [(key: String, value: String?)] {
        [("store", store.rawValue)] + server.columns + [
            ("floor_p50_ms", floor.map { Report.format($0.latency.p50Ms, decimals: 2) }),
            ("floor_p99_ms", floor.map { Report.format($0.latency.p99Ms, decimals: 2) }),
            ("p99_vs_floor", p99Ratio.map { Report.format($0, decimals: 2) }),
            ("floor_cpu_us_sub_tap", floor.map { Report.format($0.cpuMicrosecondsPerDelivery, decimals: 2) }),
            ("cpu_vs_floor", cpuRatio.map { Report.format($0, decimals: 2) }),
        ]
    }

    /// `--json`: one object a count, the server's figures and the floor's from the same runs.
    static func json(_ comparisons: [SSEComparison]) -> String {
        Report.jsonArray(comparisons.map(\.columns))
    }

    /// For the human table: each count with a floor, its two ratios and whether they meet the targets.
    static func verdicts(_ comparisons: [SSEComparison]) -> String {
        let lines = comparisons.compactMap { comparison -> String? in
            guard let p99 = comparison.p99Ratio, let cpu = comparison.cpuRatio, let floor = comparison.floor else { return nil }
            let server = comparison.server
            return "\(server.subscribers) subscribers against the floor: p99 \(Report.format(server.latency.p99Ms, decimals: 2)) / \(Report.format(floor.latency.p99Ms, decimals: 2)) ms = "
                + "\(Report.format(p99, decimals: 2))× (at most \(Report.format(p99Target, decimals: 1))×: \(p99 <= p99Target ? "met" : "not met")); "
                + "CPU a subscriber and tap \(Report.format(server.cpuMicrosecondsPerDelivery, decimals: 2)) / \(Report.format(floor.cpuMicrosecondsPerDelivery, decimals: 2)) µs = "
                + "\(Report.format(cpu, decimals: 2))× (at most \(Report.format(cpuTarget, decimals: 1))×: \(cpu <= cpuTarget ? "met" : "not met"))"
        }
        return lines.isEmpty ? "" : "\n\n" + lines.joined(separator: "\n")
    }
}
