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

    /// The server's CPU a subscriber and tap over the floor's; nil when either read 0 (less
    /// than one tick of the kernel's CPU clock over a short run: not measured).
    var cpuRatio: Double? {
        guard let floor, floor.cpuMicrosecondsPerDelivery > 0, server.cpuMicrosecondsPerDelivery > 0 else { return nil }
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

    /// For the human table: each count with a floor, its two ratios; at the targets' count
    /// (1,000 subscribers), whether they meet them.
    static func verdicts(_ comparisons: [SSEComparison]) -> String {
        let lines = comparisons.compactMap { comparison -> String? in
            guard let floor = comparison.floor else { return nil }
            let server = comparison.server
            func verdict(_ ratio: Double, _ target: Double) -> String {
                server.subscribers == 1_000 ? " (at most \(Report.format(target, decimals: 1))×: \(ratio <= target ? "met" : "not met"))" : ""
            }
            let p99 = comparison.p99Ratio.map { "\(Report.format($0, decimals: 2))×" + verdict($0, p99Target) } ?? "not measured"
            let cpu = comparison.cpuRatio.map { "\(Report.format($0, decimals: 2))×" + verdict($0, cpuTarget) } ?? "not measured"
            return "\(server.subscribers) subscribers against the floor: p99 \(Report.format(server.latency.p99Ms, decimals: 2)) / \(Report.format(floor.latency.p99Ms, decimals: 2)) ms = \(p99); "
                + "CPU a subscriber and tap \(Report.format(server.cpuMicrosecondsPerDelivery, decimals: 2)) / \(Report.format(floor.cpuMicrosecondsPerDelivery, decimals: 2)) µs = \(cpu)"
        }
        return lines.isEmpty ? "" : "\n\n" + lines.joined(separator: "\n")
    }
}
