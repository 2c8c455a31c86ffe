import Foundation
import PostgresNIO
import PostgresSupport
import TestSupport
import Testing
import ThrowawayPostgres
@testable import WorldCupBench

/// `worldcup-bench fanout`: ten viewers in two processes on the PostgreSQL test server see
/// every tap exactly once (correctness only: timings are never checked), and the tally that
/// says so.
@Suite("worldcup-bench fanout")
struct FanoutBenchTests {
    /// The test server as a postgres:// URL, which the viewer processes are given.
    static func serverURL() throws -> PostgresURL {
        let configuration = try TestServer.configuration()
        var url = PostgresURL(user: configuration.username, password: configuration.password, database: configuration.database ?? "postgres")
        if let socket = configuration.unixSocketPath {
            let path = URL(fileURLWithPath: socket)
            url.socketDirectory = path.deletingLastPathComponent().path
            url.port = Int(path.lastPathComponent.split(separator: ".").last ?? "") ?? 5432
        } else {
            url.host = configuration.host ?? "localhost"
            url.port = configuration.port ?? 5432
        }
        return url
    }

    @Test("Ten viewers in two processes, on the board's joined request and on the plain one: every tap reported once by each, none unexpected, each ends as a fresh fetch")
    func tenViewers() throws {
        let results = try FanoutCommand.measure(viewers: [10], requests: [.joined, .plain], server: Self.serverURL(), usage: nil, rows: 100, taps: 12,
                                                intervalMs: 40, viewersPerProcess: 5, seed: 7, executable: Executable.worldcupBench)
        #expect(results.map(\.request) == [.joined, .plain])
        for result in results { try check(result) }
    }

    func check(_ result: FanoutResult) throws {
        #expect(result.viewers == 10 && result.processes == 2 && result.taps == 12)
        #expect(result.missed == 0)
        #expect(result.duplicated == 0)
        #expect(result.unexpected == 0)
        #expect(result.notConverged == 0)
        #expect(result.resets == 0)
        #expect(result.isExact)
        // Every viewer delivered at least one batch for the 15 taps, and at most one per tap.
        #expect(result.batchesPerTap > 0 && result.batchesPerTap <= 1)
        #expect(result.fanout.maxMs >= result.fanout.p99Ms && result.fanout.p99Ms >= result.fanout.p50Ms && result.fanout.p50Ms > 0)
        #expect(result.viewersMemoryMB > 0)
        #expect(result.backendsPerViewer == 1, "one server connection a viewer, counted by the server")
        // The floor: as many plain listeners heard every one of the same taps.
        #expect(result.rawMissed == 0)
        #expect(result.rawNotify.p99Ms >= result.rawNotify.p50Ms && result.rawNotify.p50Ms > 0)
        #expect(result.columns.contains { $0.key == "p99_vs_raw" && $0.value != nil })
    }

    static func tap(_ id: Int64, at start: UInt64) -> FanoutTap {
        FanoutTap(id: id, start: start, committed: start + 1_000_000)
    }

    @Test("The tally: a tap a viewer never reported is missed, a second report is duplicated, a row no tap changed is unexpected")
    func tally() {
        let taps = [Self.tap(1, at: 0), Self.tap(2, at: 100_000_000), Self.tap(3, at: 200_000_000)]
        var report = FanoutViewerReport()
        report.viewers = [
            .init(index: 0, batches: 3, resets: 0, converged: true,
                  sightings: [.init(id: 1, at: 5_000_000, woken: 4_000_000), .init(id: 2, at: 110_000_000, woken: 104_000_000),
                              .init(id: 3, at: 230_000_000, woken: 228_000_000)]),
            .init(index: 1, batches: 3, resets: 1, converged: false,
                  sightings: [.init(id: 1, at: 7_000_000, woken: 6_000_000), .init(id: 3, at: 220_000_000, woken: 219_000_000),
                              .init(id: 3, at: 240_000_000, woken: 239_000_000), .init(id: 9, at: 1, woken: 1)]),
        ]
        report.rssKB = 2048
        let result = FanoutResult.tally(taps: taps, warmUpTaps: 1, reports: [report])
        #expect(result.taps == 2)
        #expect(result.missed == 1, "viewer 1 never reported team 2")
        #expect(result.duplicated == 1, "viewer 1 reported team 3 twice")
        #expect(result.unexpected == 1, "team 9 was not tapped")
        #expect(result.notConverged == 1 && result.resets == 1)
        // Measured: team 2 in viewer 0 (10 ms), team 3 in viewers 0 (30 ms) and 1 (20 ms, its first report).
        #expect(result.fanout.p50Ms == 20 && result.fanout.maxMs == 30)
        // Wake-ups 4, 28 and 19 ms after their taps; batches 6, 2 and 1 ms after the wake-ups.
        #expect(result.wake.p50Ms == 19 && result.wake.p99Ms == 28)
        #expect(result.deliver.p50Ms == 2 && result.deliver.p99Ms == 6)
        #expect(result.commit.p50Ms == 1)
        #expect(result.batchesPerTap == 1)
        #expect(result.viewersMemoryMB == 2)
        #expect(!result.isExact)
    }

    @Test("A viewer process's report reads back from its lines; other lines are refused")
    func reportLines() {
        var report = FanoutViewerReport()
        report.viewers = [.init(index: 0, batches: 2, resets: 0, converged: true, sightings: [.init(id: 4, at: 12, woken: 10), .init(id: 5, at: 13, woken: 10)]),
                          .init(index: 1, batches: 0, resets: 1, converged: false, sightings: [])]
        report.rssKB = 999
        #expect(FanoutViewerReport(lines: report.lines) == report)
        #expect(FanoutViewerReport(lines: ["viewer 0 1 0 yes"]) == nil)
        #expect(FanoutViewerReport(lines: ["viewer 0 1 0 1 4-12"]) == nil)
        #expect(FanoutViewerReport(lines: ["viewer 0 1 0 1 4:12"]) == nil)
    }

    @Test("Viewers are spread evenly over processes of at most the given size; the interval grows with the viewers")
    func spreading() {
        #expect(FanoutBenchmark.processShares(viewers: 10, perProcess: 250) == [10])
        #expect(FanoutBenchmark.processShares(viewers: 1_000, perProcess: 250) == [250, 250, 250, 250])
        #expect(FanoutBenchmark.processShares(viewers: 1_001, perProcess: 250) == [201, 200, 200, 200, 200])
        #expect(FanoutBenchmark.defaultInterval(viewers: 10) == .milliseconds(100))
        #expect(FanoutBenchmark.defaultInterval(viewers: 1_000) == .milliseconds(500))
        #expect(FanoutCommand.maxConnections(viewers: 1_000) == 2_050)
    }

    @Test("fanout takes several --viewers and its own --postgres-url; the viewer process is a hidden subcommand")
    func arguments() throws {
        let defaults = try FanoutCommand.parse([])
        #expect(defaults.viewers == [10, 100, 1_000] && defaults.postgresURL == nil && defaults.taps == 100 && defaults.rows == 1_000)
        #expect(defaults.request == [.joined], "the board's own request")
        let given = try FanoutCommand.parse(["--viewers", "10", "100", "--request", "joined", "plain", "--postgres-url", "postgres://u@h:1/d", "--taps", "20", "--json"])
        #expect(given.viewers == [10, 100] && given.postgresURL == "postgres://u@h:1/d" && given.taps == 20 && given.json)
        #expect(given.request == [.joined, .plain])
        #expect(throws: (any Error).self) { try FanoutCommand.parse(["--request", "zones"]) }
        for refused in [["--viewers", "0"], ["--taps", "200", "--rows", "100"], ["--postgres-url", "mysql://u@h/d"], ["--interval-ms", "0"]] {
            #expect(throws: (any Error).self, "\(refused)") { try FanoutCommand.parse(refused) }
        }
        #expect((try? BenchCommand.parseAsRoot(["fanout-viewer", "--database-url", "postgres://u@/d?host=/tmp/x", "--viewers", "3"])) is FanoutViewerCommand)
        let viewer = try? BenchCommand.parseAsRoot(["fanout-viewer", "--database-url", "postgres://u@/d?host=/tmp/x", "--viewers", "3", "--request", "plain"])
        #expect((viewer as? FanoutViewerCommand)?.request == .plain)
    }
}
