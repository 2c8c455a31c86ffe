import Foundation

/// Everything measured at one size: the controller part, the terminal part, or both.
struct SizeReport {
    var rows: Int
    var controller: SizeResult?
    var terminal: TerminalResult?

    /// One report per size measured by either part, smallest first.
    static func merge(controller: [SizeResult], terminal: [TerminalResult]) -> [SizeReport] {
        let sizes = Set(controller.map(\.rows) + terminal.map(\.rows)).sorted()
        return sizes.map { rows in
            SizeReport(rows: rows, controller: controller.first { $0.rows == rows }, terminal: terminal.first { $0.rows == rows })
        }
    }
}

/// Prints the results: tables for people, or a JSON array with one object per size.
enum Report {
    /// The controller columns, named as the JSON keys, with each value (nil: not measured).
    private static func controllerColumns(_ report: SizeReport) -> [(key: String, value: String?)] {
        let result = report.controller
        return [
            ("store", result?.store.rawValue),
            ("rows", String(report.rows)),
            ("incremental_p50_us", result.map { format($0.incrementalP50, decimals: 1) }),
            ("incremental_p99_us", result.map { format($0.incrementalP99, decimals: 1) }),
            ("peer_p50_us", result.map { format($0.peerP50, decimals: 1) }),
            ("peer_p99_us", result.map { format($0.peerP99, decimals: 1) }),
            ("speedup", result.map { format($0.speedup, decimals: 1) }),
            ("fetch_cold_ms", result.map { format($0.fetchColdMs, decimals: 1) }),
            ("bare_select_ms", result?.bareSelectMs.map { format($0, decimals: 1) }),
            ("cold_vs_bare", result.flatMap { result in result.bareSelectMs.map { format($0 > 0 ? result.fetchColdMs / $0 : 0, decimals: 2) } }),
            ("fetch_cached_ms", result?.fetchCachedMs.map { format($0, decimals: 1) }),
            ("rss_mb", result.map { format($0.rssMB, decimals: 1) }),
            ("cross_process_p50_ms", result?.crossProcessP50Ms.map { format($0, decimals: 2) }),
            ("cross_process_p99_ms", result?.crossProcessP99Ms.map { format($0, decimals: 2) }),
            ("floor_p50_us", result.map { format($0.floorP50, decimals: 1) }),
            ("floor_p99_us", result.map { format($0.floorP99, decimals: 1) }),
            ("vs_floor", result.map { format($0.floorP50 > 0 ? $0.incrementalP50 / $0.floorP50 : 0, decimals: 2) }),
            ("floor_log_p50_us", result?.floorLogP50.map { format($0, decimals: 1) }),
            ("vs_floor_log", result.flatMap { result in result.floorLogP50.map { format($0 > 0 ? result.incrementalP50 / $0 : 0, decimals: 2) } }),
        ]
    }

    /// The terminal columns (see `TerminalBenchmark`), named as the JSON keys.
    private static func terminalColumns(_ report: SizeReport) -> [(key: String, value: String?)] {
        let result = report.terminal
        return [
            ("terminal_launch_ms", result.map { format($0.launchMs, decimals: 1) }),
            ("terminal_tap_bytes_p50", result.map { format($0.tapBytesP50, decimals: 0) }),
            ("terminal_tap_p50_ms", result.map { format($0.tap.p50, decimals: 2) }),
            ("terminal_tap_p99_ms", result.map { format($0.tap.p99, decimals: 2) }),
            ("terminal_moving_tap_p50_ms", result.map { format($0.movingTap.p50, decimals: 2) }),
            ("terminal_moving_tap_p99_ms", result.map { format($0.movingTap.p99, decimals: 2) }),
            ("terminal_page_p50_ms", result.map { format($0.page.p50, decimals: 2) }),
            ("terminal_page_p99_ms", result.map { format($0.page.p99, decimals: 2) }),
            ("terminal_end_p50_ms", result.map { format($0.end.p50, decimals: 2) }),
            ("terminal_end_p99_ms", result.map { format($0.end.p99, decimals: 2) }),
            ("terminal_filter_p50_ms", result.map { format($0.filter.all.p50, decimals: 2) }),
            ("terminal_filter_p99_ms", result.map { format($0.filter.all.p99, decimals: 2) }),
            ("terminal_filter_keeping_all_p50_ms", result.map { format($0.filter.keepingAll.p50, decimals: 2) }),
            ("terminal_filter_narrowing_p50_ms", result.map { format($0.filter.narrowing.p50, decimals: 2) }),
            ("terminal_filter_erasing_p50_ms", result.map { format($0.filter.erasing.p50, decimals: 2) }),
            // Every filter key against a tap: the slowest key over the median tap.
            ("terminal_filter_p99_vs_tap_p50", result.map { format($0.tap.p50 > 0 ? $0.filter.all.p99 / $0.tap.p50 : 0, decimals: 2) }),
            ("terminal_filter_open_p50_ms", result.map { format($0.filter.open.p50, decimals: 2) }),
            ("terminal_filter_ready_p50_ms", result.map { format($0.filter.ready.p50, decimals: 2) }),
            ("terminal_filter_clear_p50_ms", result.map { format($0.filter.clear.p50, decimals: 2) }),
            ("terminal_app_rss_mb", result.map { format($0.filter.boardRSSMB, decimals: 1) }),
            ("terminal_filtered_rss_mb", result.map { format($0.filter.filteredRSSMB, decimals: 1) }),
            ("storm_commits_per_s", result?.storm.map { format($0.commitsPerSecond, decimals: 0) }),
            ("storm_cpu_percent", result?.storm.map { format($0.cpuPercent, decimals: 1) }),
            ("storm_frames_per_s", result?.storm.map { format($0.framesPerSecond, decimals: 1) }),
            ("storm_key_p99_ms", result?.storm.map { format($0.key.p99, decimals: 2) }),
        ]
    }

    /// One table per part, each with a line per size that part measured.
    static func table(_ reports: [SizeReport]) -> String {
        let controller = reports.filter { $0.controller != nil }.map(controllerColumns)
        let terminal = reports.filter { $0.terminal != nil }.map { [("rows", String($0.rows))] + terminalColumns($0) }
        return [controller, terminal].filter { !$0.isEmpty }.map(aligned).joined(separator: "\n\n")
    }

    /// Issue 14's targets, each as its ratio in this run against its bound, for those the
    /// run's sizes allow; empty when none. (The default run has all but ten million's.)
    static func targets(_ reports: [SizeReport]) -> String {
        func controller(_ rows: Int) -> SizeResult? { reports.first { $0.rows == rows }?.controller }
        func terminal(_ rows: Int) -> TerminalResult? { reports.first { $0.rows == rows }?.terminal }
        var lines: [String] = []
        func check(_ name: String, _ measured: Double, atMost bound: Double, unit: String = "×") {
            lines.append("  \(name): \(format(measured, decimals: 2))\(unit), at most \(format(bound, decimals: 2))\(unit): \(measured <= bound ? "met" : "not met")")
        }
        let thousand = controller(1_000), million = controller(1_000_000), tenMillion = controller(10_000_000)
        if let million, million.floorP50 > 0 { check("1. tap / floor at 1,000,000", million.incrementalP50 / million.floorP50, atMost: 1.25) }
        if let million, let thousand, thousand.incrementalP50 > 0 {
            check("2. tap at 1,000,000 / at 1,000", million.incrementalP50 / thousand.incrementalP50, atMost: 1.3)
        }
        if let million { lines.append("  2. speedup over the peer at 1,000,000: \(format(million.speedup, decimals: 0))×, at least 1000×: \(million.speedup >= 1_000 ? "met" : "not met")") }
        if let large = terminal(1_000_000), let small = terminal(32), small.launchMs > 0 {
            check("3. launch at 1,000,000 / at 32", large.launchMs / small.launchMs, atMost: 2)
        }
        if let million, let bare = million.bareSelectMs, bare > 0 { check("3. cold performFetch / bare select at 1,000,000", million.fetchColdMs / bare, atMost: 3) }
        if let large = terminal(1_000_000), large.tap.p50 > 0 { check("4. filter key p99 / tap p50 at 1,000,000", large.filter.all.p99 / large.tap.p50, atMost: 3) }
        if let million { check("5. resident memory at 1,000,000", million.rssMB, atMost: 64, unit: " MB") }
        if let tenMillion, let thousand, thousand.incrementalP50 > 0 {
            check("6. tap at 10,000,000 / at 1,000", tenMillion.incrementalP50 / thousand.incrementalP50, atMost: 1.5)
        }
        if let tenMillion { check("6. resident memory at 10,000,000", tenMillion.rssMB, atMost: 600, unit: " MB") }
        if let tenMillion, let million, let large = tenMillion.fetchCachedMs, let small = million.fetchCachedMs, small > 0 {
            check("6. cached performFetch at 10,000,000 / at 1,000,000", large / small, atMost: 10)
        }
        if let storm = terminal(32)?.storm { check("7. a core's share under a storm (32 teams)", storm.cpuPercent, atMost: 15, unit: " %") }
        return lines.isEmpty ? "" : "\n\nThe performance targets (docs/BENCHMARKS.md), in this run:\n" + lines.joined(separator: "\n")
    }

    /// Columns aligned to the right under their keys.
    static func aligned(_ lines: [[(key: String, value: String?)]]) -> String {
        let header = lines.first?.map(\.key) ?? []
        let rows = lines.map { $0.map { $0.value ?? "n/a" } }
        let widths = header.indices.map { column in
            ([header[column]] + rows.map { $0[column] }).map(\.count).max() ?? 0
        }
        func line(_ cells: [String]) -> String {
            zip(cells, widths).map { String(repeating: " ", count: $1 - $0.count) + $0 }.joined(separator: "  ")
        }
        return ([line(header)] + rows.map(line)).joined(separator: "\n")
    }

    /// A JSON array, one object per size: the controller keys, then the terminal keys.
    /// Numbers print bare, names (the store) as JSON strings.
    static func json(_ reports: [SizeReport]) -> String {
        jsonArray(reports.map { controllerColumns($0) + terminalColumns($0) })
    }

    /// A JSON array of objects, one a line, each with its columns' keys in order.
    static func jsonArray(_ objects: [[(key: String, value: String?)]]) -> String {
        let lines = objects.map { columns in
            "  {" + columns.map { "\"\($0.key)\": \(jsonValue($0.value))" }.joined(separator: ", ") + "}"
        }
        return "[\n" + lines.joined(separator: ",\n") + "\n]"
    }

    /// A cell as JSON: null, a number, or a string (whose characters need no escaping: store names).
    private static func jsonValue(_ value: String?) -> String {
        guard let value else { return "null" }
        return Double(value) != nil ? value : "\"" + value + "\""
    }

    /// A number with a fixed count of decimals; JSON has no infinity, so those print as 0.
    static func format(_ value: Double, decimals: Int) -> String {
        guard value.isFinite else { return "0" }
        return String(format: "%.\(decimals)f", value)
    }
}
