import Foundation

/// Nanoseconds on the monotonic clock.
enum Monotonic {
    static func now() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }

    /// Microseconds from `start` to `end`.
    static func microseconds(from start: UInt64, to end: UInt64) -> Double {
        Double(end &- start) / 1_000
    }

    /// Milliseconds from `start` to `end`.
    static func milliseconds(from start: UInt64, to end: UInt64) -> Double {
        Double(end &- start) / 1_000_000
    }
}

/// Percentiles of a sample, by the nearest-rank method.
struct Percentiles {
    private let sorted: [Double]

    init(_ sample: [Double]) {
        sorted = sample.sorted()
    }

    /// The smallest value with at least `p` percent of the sample at or below it; nil when empty.
    func value(at p: Double) -> Double? {
        guard !sorted.isEmpty else { return nil }
        let rank = Int((p / 100 * Double(sorted.count)).rounded(.up))
        return sorted[min(max(rank, 1), sorted.count) - 1]
    }

    var median: Double? { value(at: 50) }
    var p99: Double? { value(at: 99) }
}

/// What a result keeps of a latency's sample, in milliseconds: its median, its 99th
/// percentile and its largest value (0 each when the sample is empty).
struct Latencies: Equatable {
    var p50Ms = 0.0
    var p99Ms = 0.0
    var maxMs = 0.0

    init() {}

    init(_ sample: [Double]) {
        let percentiles = Percentiles(sample)
        (p50Ms, p99Ms, maxMs) = (percentiles.median ?? 0, percentiles.p99 ?? 0, percentiles.value(at: 100) ?? 0)
    }

    /// Its columns in a report, to two decimals: `<name>_p50_ms`, `<name>_p99_ms`, then
    /// `<name>_max_ms` when `withMax`.
    func columns(_ name: String, withMax: Bool = false) -> [(key: String, value: String?)] {
        [(name + "_p50_ms", Report.format(p50Ms, decimals: 2)), (name + "_p99_ms", Report.format(p99Ms, decimals: 2))]
            + (withMax ? [(name + "_max_ms", Report.format(maxMs, decimals: 2))] : [])
    }
}
