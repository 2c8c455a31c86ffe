import Foundation

/// Prints the results: a table for people, or a JSON array with one object per size.
enum Report {
    /// The columns, named as the JSON keys, with each size's value (nil: not measured).
    private static func columns(_ result: SizeResult) -> [(key: String, value: String?)] {
        [
            ("rows", String(result.rows)),
            ("incremental_p50_us", format(result.incrementalP50, decimals: 1)),
            ("incremental_p99_us", format(result.incrementalP99, decimals: 1)),
            ("peer_p50_us", format(result.peerP50, decimals: 1)),
            ("speedup", format(result.speedup, decimals: 1)),
            ("fetch_cold_ms", format(result.fetchColdMs, decimals: 1)),
            ("fetch_cached_ms", result.fetchCachedMs.map { format($0, decimals: 1) }),
            ("rss_mb", format(result.rssMB, decimals: 1)),
        ]
    }

    /// One line per size, columns aligned to the right.
    static func table(_ results: [SizeResult]) -> String {
        let header = columns(SizeResult(rows: 0, incrementalP50: 0, incrementalP99: 0, peerP50: 0, speedup: 0, fetchColdMs: 0, rssMB: 0)).map(\.key)
        let rows = results.map { columns($0).map { $0.value ?? "n/a" } }
        let widths = header.indices.map { column in
            ([header[column]] + rows.map { $0[column] }).map(\.count).max() ?? 0
        }
        func line(_ cells: [String]) -> String {
            zip(cells, widths).map { String(repeating: " ", count: $1 - $0.count) + $0 }.joined(separator: "  ")
        }
        return ([line(header)] + rows.map(line)).joined(separator: "\n")
    }

    /// A JSON array, one object per size, keys in the order of the table.
    static func json(_ results: [SizeResult]) -> String {
        let objects = results.map { result in
            "  {" + columns(result).map { "\"\($0.key)\": \($0.value ?? "null")" }.joined(separator: ", ") + "}"
        }
        return "[\n" + objects.joined(separator: ",\n") + "\n]"
    }

    /// A number with a fixed count of decimals; JSON has no infinity, so those print as 0.
    static func format(_ value: Double, decimals: Int) -> String {
        guard value.isFinite else { return "0" }
        return String(format: "%.\(decimals)f", value)
    }
}
