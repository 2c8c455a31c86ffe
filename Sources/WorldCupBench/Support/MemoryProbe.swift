import Foundation
import LiveResults
import LiveResultsPostgres
import ThrowawayPostgres
import WorldCup
import WorldCupSQLite

/// The resident memory of a process holding one controller, measured in a child process
/// (this same executable, `rss-probe`) so the benchmark's own memory does not count.
enum MemoryProbe {
    /// What the child reports, in kB as `/proc/self/status` gives it.
    struct Reading {
        /// Resident memory before the database is opened: the runtime and libraries.
        var baselineKB: Int
        /// Resident memory while holding the fetched controller.
        var rssKB: Int
        /// The peak resident memory of the child.
        var peakKB: Int
    }

    /// Runs the probe in a child process against the database at `path`.
    static func measure(databasePath path: String) throws -> Reading {
        try measure(probeArguments: ["--database", path])
    }

    /// Runs the probe in a child process with `arguments` (`--database PATH` or `--database-url URL`).
    static func measure(probeArguments arguments: [String]) throws -> Reading {
        let output = Pipe()
        let process = try ChildProcess.startSelf(["rss-probe"] + arguments, output: output)
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationReason == .exit, process.terminationStatus == 0 else {
            throw BenchError("The memory probe failed with status \(process.terminationStatus).")
        }
        var values: [String: Int] = [:]
        for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
            let parts = line.split(separator: " ")
            if parts.count == 2, let value = Int(parts[1]) { values[String(parts[0])] = value }
        }
        guard let baseline = values["baseline_kb"], let rss = values["rss_kb"], let peak = values["peak_kb"] else {
            throw BenchError("The memory probe printed no reading.")
        }
        return Reading(baselineKB: baseline, rssKB: rss, peakKB: peak)
    }

    /// The child's side: opens the database, holds a fetched controller with a delegate and
    /// fetchBatchSize 50, reads the first 50 rows, and returns its `key value` lines.
    static func measureHere(databasePath path: String) throws -> [String] {
        let baseline = try statusKB("VmRSS")
        guard FileManager.default.fileExists(atPath: path) else { throw BenchError("There is no database at \(path).") }
        let scoreboard = try SQLiteTeamStore(databaseURL: URL(fileURLWithPath: path), seedURL: nil)
        let controller = BenchRequest.controller(scoreboard)
        return try withExtendedLifetime(scoreboard) { try hold(controller, baseline: baseline) }
    }

    /// The child's side on PostgreSQL: the same, over a `PostgresReader` (its read connection,
    /// and the feed's listening one).
    static func measureHere(postgresURL url: PostgresURL) throws -> [String] {
        let baseline = try statusKB("VmRSS")
        let reader = PostgresReader(configuration: url.configuration)
        defer { reader.close() }
        return try hold(PostgresControllerContender.controller(reader), baseline: baseline)
    }

    /// Fetches with a delegate, reads the first 50 rows, and returns the `key value` lines.
    private static func hold(_ controller: ResultsController<Team>, baseline: Int) throws -> [String] {
        let recorder = DeliveryRecorder()
        controller.delegate = recorder
        try controller.performFetch()
        var touched = 0
        sections: for section in 0..<controller.sections.count {
            for row in 0..<controller.numberOfObjects(inSection: section) {
                guard touched < 50 else { break sections }
                _ = try controller.object(at: IndexPath(row: row, section: section))
                touched += 1
            }
        }
        let rss = try statusKB("VmRSS")
        let peak = try statusKB("VmHWM")
        return withExtendedLifetime((controller, recorder)) {
            ["baseline_kb \(baseline)", "rss_kb \(rss)", "peak_kb \(peak)", "rows \(controller.numberOfObjects)"]
        }
    }

    /// A `kB` field of `/proc/self/status` (or of another process's), such as VmRSS.
    static func statusKB(_ field: String, of process: pid_t? = nil) throws -> Int {
        let path = "/proc/" + (process.map(String.init) ?? "self") + "/status"
        guard let status = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw BenchError("Cannot read \(path).")
        }
        for line in status.split(separator: "\n") where line.hasPrefix(field + ":") {
            let number = line.dropFirst(field.count + 1).filter(\.isNumber)
            if let value = Int(number) { return value }
        }
        throw BenchError("\(path) has no \(field) field.")
    }
}
