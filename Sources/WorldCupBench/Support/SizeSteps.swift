import Foundation

/// What one size's run measures, on either store: the board's teams, the controller's and
/// the peer's measured taps, and the seed of the board and of the taps.
struct SizeSettings {
    var rows: Int
    var taps: Int
    var peerTaps: Int
    var seed: UInt64
}

/// What both stores' size benchmarks (`SizeBenchmark`, `PostgresSizeBenchmark`) measure alike,
/// said alike: each step takes a measurement, says it after the run's label, and returns the
/// figure the result keeps.
struct SizeSteps {
    /// The run's label ("[1000 teams]"), before every line said.
    var label: String

    /// The median of `times` (milliseconds of runs of `what`), said with every run; `versus`,
    /// a median the line compares it to (the bare select, for the fetch).
    func median(_ what: String, _ times: [Double], versus: (name: String, median: Double)? = nil) -> Double {
        let median = Percentiles(times).median ?? 0
        let comparison = versus.map { ", \(Report.format(median / max($0.median, 0.001), decimals: 2))× the \($0.name)" } ?? ""
        Progress.say("\(label) \(what): \(times.map { Report.format($0, decimals: 1) }.joined(separator: ", ")) ms; median \(Report.format(median, decimals: 1)) ms\(comparison)")
        return median
    }

    /// The latencies of `who` (µs): p50 and p99 said, then `detail` (where the time went).
    func latencies(_ who: String, _ sample: [Double], detail: String) -> Percentiles {
        let percentiles = Percentiles(sample)
        Progress.say("\(label) \(who): p50 \(Report.format(percentiles.median ?? 0, decimals: 1)) µs, p99 \(Report.format(percentiles.p99 ?? 0, decimals: 1)) µs (\(detail))")
        return percentiles
    }

    /// The memory probe's reading said (`before`: what the baseline is before); the resident MB.
    func memory(_ reading: MemoryProbe.Reading, before: String) -> Double {
        let rssMB = Double(reading.rssKB) / 1024
        Progress.say("\(label) memory probe: \(Report.format(rssMB, decimals: 1)) MB resident holding the controller (\(Report.format(Double(reading.baselineKB) / 1024, decimals: 1)) MB \(before), peak \(Report.format(Double(reading.peakKB) / 1024, decimals: 1)) MB)")
        return rssMB
    }

    /// A sample's median as the latency lines' details say it (µs, one decimal).
    static func p50(_ sample: [Double]) -> String {
        Report.format(Percentiles(sample).median ?? 0, decimals: 1)
    }
}

extension SizeResult {
    /// The figures both stores measure: the controller's (`ours`), the peer's and the floor's
    /// latencies, the cold fetch, the bare select and the memory; the store's own are added after.
    init(store: BenchStore, rows: Int, ours: Percentiles, peer: Percentiles, floor: Percentiles, fetchColdMs: Double, bareSelectMs: Double, rssMB: Double) {
        let (oursP50, peerP50) = (ours.median ?? 0, peer.median ?? 0)
        self.init(store: store, rows: rows, incrementalP50: oursP50, incrementalP99: ours.p99 ?? 0, peerP50: peerP50, peerP99: peer.p99 ?? 0,
                  speedup: oursP50 > 0 ? peerP50 / oursP50 : 0, fetchColdMs: fetchColdMs, bareSelectMs: bareSelectMs, rssMB: rssMB,
                  floorP50: floor.median ?? 0, floorP99: floor.p99 ?? 0)
    }
}
