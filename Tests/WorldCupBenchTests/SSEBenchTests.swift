import Foundation
import PostgresSupport
import TestSupport
import Testing
@testable import WorldCupBench

/// `worldcup-bench sse`: Examples/LiveBoardServer's binary (`make example` builds it) with 10
/// and 50 subscribers, briefly; every subscriber reads every tap once (correctness only:
/// timings are never checked), on a file and on the PostgreSQL test server.
@Suite("worldcup-bench sse", .serialized)
struct SSEBenchTests {
    static let server = Repository.root.appendingPathComponent("Examples/LiveBoardServer/.build/debug/live-board-server")

    func measure(store: BenchStore, postgresURL: String? = nil) throws -> [SSERunResult] {
        try #require(FileManager.default.isExecutableFile(atPath: Self.server.path),
                     "Examples/LiveBoardServer is not built: run `make example` (make test does).")
        let runs = try SSECommand.measure(server: Self.server, counts: [10, 50], taps: 6, interval: .milliseconds(60), runs: 1,
                                          store: store, postgresURL: postgresURL, seed: 3, floor: true)
        #expect(runs.server.map(\.count) == [1, 1] && runs.floor.map(\.count) == [1, 1])
        for floor in runs.floor.joined() {
            #expect(floor.taps == 6 && floor.isExact, "the floor's subscribers read every event once")
            #expect(floor.latency.maxMs >= floor.latency.p99Ms && floor.latency.p99Ms >= floor.latency.p50Ms && floor.latency.p50Ms > 0)
        }
        return runs.server.joined().map { $0 }
    }

    func check(_ result: SSERunResult) {
        #expect(result.taps == 6)
        #expect(result.missed == 0, "every subscriber read every tap")
        #expect(result.duplicates == 0 && result.laterSnapshots == 0)
        #expect(result.latency.maxMs >= result.latency.p99Ms && result.latency.p99Ms >= result.latency.p50Ms && result.latency.p50Ms > 0)
        #expect(result.lastSubscriberP50Ms >= result.latency.p50Ms)
        #expect(result.rssIdleMB > 0 && result.rssSubscribedMB > 0 && result.rssPeakMB >= result.rssSubscribedMB)
        #expect(result.cpuMsPerTap > 0 && result.commitP50Ms > 0)
    }

    @Test("On a SQLite file: 10 and 50 subscribers read every tap once; the server holds the file open")
    func sqlite() throws {
        let results = try measure(store: .sqlite)
        #expect(results.map(\.subscribers) == [10, 50])
        for result in results {
            check(result)
            #expect((result.databaseConnections ?? 0) >= 1)
        }
    }

    @Test("On PostgreSQL: 10 and 50 subscribers read every tap once, over the same few server connections")
    func postgres() throws {
        let url = TestServer.url(of: try TestServer.configuration())
        let results = try measure(store: .postgres, postgresURL: url.connectionString)
        #expect(results.map(\.subscribers) == [10, 50])
        for result in results { check(result) }
        let connections = results.map { $0.databaseConnections ?? 0 }
        #expect(connections[0] >= 1 && connections[0] <= 3 && connections[1] == connections[0], "\(connections)")
    }

    @Test("The event stream parser: a chunked response cut anywhere gives the same events")
    func parser() throws {
        let events = "retry: 1000\nid: 0\nevent: snapshot\ndata: {\"version\":0,\"sections\":[{\"id\":\"1\",\"title\":\"A\",\"rows\":[{\"id\":4,\"name\":\"X\",\"wins\":2,\"zone\":\"A\"}]}]}\n\n"
            + "id: 2\nevent: batches\ndata: [{\"version\":1,\"sections\":[],\"rows\":[{\"kind\":\"move\",\"id\":4,\"from\":[0,0],\"to\":[0,0],\"team\":{\"id\":4,\"name\":\"X\",\"wins\":3,\"zone\":\"A\"}}]},"
            + "{\"version\":2,\"sections\":[],\"rows\":[{\"kind\":\"delete\",\"id\":5,\"from\":[0,1]}]}]\n\n"
        let body = Array(events.utf8)
        var response = Array("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n".utf8)
        for piece in [body[..<30], body[30..<200], body[200...]] {
            response += Array(String(piece.count, radix: 16).utf8) + [13, 10] + piece + [13, 10]
        }
        response += Array("0\r\n\r\n".utf8)
        var random = SplitMix64(seed: 11)
        for _ in 0..<50 {
            var parser = EventStreamParser()
            var got: [EventStreamParser.Event] = []
            var start = 0
            while start < response.count {
                let end = min(response.count, start + random.int(1...40))
                got += try response[start..<end].withUnsafeBytes { try parser.feed($0) }
                start = end
            }
            #expect(got.map(\.name) == ["snapshot", "batches"] && got.map(\.id) == ["0", "2"])
            #expect(parser.ended)
            #expect(BoardEvents.rows(inSnapshot: got[0].data) == [.init(id: 4, wins: 2)])
            #expect(BoardEvents.placedRows(inBatches: got[1].data) == [.init(id: 4, wins: 3)])
        }
        var refused = EventStreamParser()
        #expect(throws: BenchError.self) { try Array("HTTP/1.1 503 Busy\r\n\r\n".utf8).withUnsafeBytes { _ = try refused.feed($0) } }
    }

    @Test("The tally: a (tap, subscriber) pair never read is missed; latencies run from the tap's start, warm-up taps untimed")
    func tally() {
        var result = SSERunResult(subscribers: 2, taps: 2)
        // Tap 0 is the warm-up; taps 1 and 2 are measured; subscriber 1 never read tap 2.
        let ms: UInt64 = 1_000_000
        result.tally(seen: [5 * ms, 6 * ms, 110 * ms, 130 * ms, 204 * ms, 0], starts: [0, 100 * ms, 200 * ms], warmUpTaps: 1, subscribers: 2)
        #expect(result.missed == 1)
        #expect(result.latency.p50Ms == 10 && result.latency.maxMs == 30)
        #expect(result.lastSubscriberP50Ms == 4)
    }

    @Test("--json: each count's p99_ms beside floor_p99_ms and cpu_us_sub_tap beside floor_cpu_us_sub_tap, with their ratios; null without a floor")
    func comparisonJSON() throws {
        func run(_ subscribers: Int, p99: Double, cpuMsPerTap: Double) -> SSERunResult {
            var result = SSERunResult(subscribers: subscribers, taps: 30)
            result.latency.p50Ms = p99 / 2
            result.latency.p99Ms = p99
            result.cpuMsPerTap = cpuMsPerTap
            return result
        }
        let comparisons = SSEComparison.pair(store: .postgres, server: [run(1_000, p99: 60, cpuMsPerTap: 20), run(10_000, p99: 600, cpuMsPerTap: 250)],
                                             floor: [run(1_000, p99: 50, cpuMsPerTap: 6.5)])
        let text = SSEComparison.json(comparisons)
        let objects = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [[String: Any]])
        #expect(objects.count == 2)
        let thousand = objects[0], tenThousand = objects[1]
        #expect(thousand["store"] as? String == "postgres" && thousand["subscribers"] as? Int == 1_000)
        #expect(thousand["p99_ms"] as? Double == 60 && thousand["floor_p99_ms"] as? Double == 50 && thousand["p99_vs_floor"] as? Double == 1.2)
        #expect(thousand["cpu_us_sub_tap"] as? Double == 20 && thousand["floor_cpu_us_sub_tap"] as? Double == 6.5)
        #expect(thousand["cpu_vs_floor"] as? Double == 3.08)
        #expect(tenThousand["floor_p99_ms"] is NSNull && tenThousand["floor_cpu_us_sub_tap"] is NSNull && tenThousand["cpu_vs_floor"] is NSNull)
        #expect(tenThousand["cpu_us_sub_tap"] as? Double == 25)
        let verdicts = SSEComparison.verdicts(comparisons)
        #expect(verdicts.contains("1000 subscribers against the floor: p99 60.00 / 50.00 ms = 1.20× (at most 1.5×: met)"))
        #expect(verdicts.contains("= 3.08× (at most 2.0×: not met)") && !verdicts.contains("10000 subscribers"))
        // A short run's server CPU under one clock tick reads 0: not measured, never "met".
        let short = SSEComparison.pair(store: .sqlite, server: [run(10, p99: 3, cpuMsPerTap: 0)], floor: [run(10, p99: 0.5, cpuMsPerTap: 0.2)])
        #expect(short[0].cpuRatio == nil && SSEComparison.verdicts(short).hasSuffix("µs = not measured"))
        #expect(SSEComparison.verdicts(short).contains("= 6.00×;"), "no verdict away from the targets' count")
    }
}
