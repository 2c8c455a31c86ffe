import Foundation
import TestSupport
import Testing
@testable import WorldCupBench

/// The benchmark's pure parts: statistics, frame assembly and the report.
@Suite("worldcup-bench")
struct WorldCupBenchTests {
    @Test("Percentiles by the nearest rank")
    func percentiles() {
        #expect(Percentiles([]).median == nil)
        #expect(Percentiles([7]).median == 7 && Percentiles([7]).p99 == 7)
        let sample = Percentiles((1...100).map(Double.init).shuffled())
        #expect(sample.median == 50)
        #expect(sample.p99 == 99)
        #expect(sample.value(at: 100) == 100)
        #expect(sample.value(at: 0) == 1)
        #expect(Percentiles([4, 1, 3, 2]).median == 2, "the smallest value with half the sample at or below it")
    }

    @Test("A frame is complete once its marker came and the output was quiet long enough; its time is its last byte's")
    func frames() {
        var assembler = FrameAssembler(quietNanoseconds: 1_000, marker: "q quit")
        #expect(assembler.frame(now: 0) == nil && assembler.wait(now: 0) == nil)
        assembler.receive(Array("\u{1B}[H board ".utf8), at: 100)
        #expect(assembler.frame(now: 5_000) == nil, "no marker yet: the frame is not over")
        #expect(assembler.wait(now: 5_000) == nil)
        // The marker split across two reads is still found.
        assembler.receive(Array("q qu".utf8), at: 200)
        assembler.receive(Array("it".utf8), at: 300)
        #expect(assembler.wait(now: 800) == 500)
        #expect(assembler.frame(now: 800) == nil)
        let frame = assembler.frame(now: 1_300)
        #expect(frame?.firstByteAt == 100 && frame?.lastByteAt == 300)
        #expect(frame.map { String(decoding: $0.bytes, as: UTF8.self) } == "\u{1B}[H board q quit")
        #expect(assembler.wait(now: 1_300) == 0)
    }

    @Test("Without a marker, quiet alone ends a frame")
    func framesWithoutMarker() {
        var assembler = FrameAssembler(quietNanoseconds: 10)
        assembler.receive([65], at: 5)
        #expect(assembler.frame(now: 14) == nil)
        #expect(assembler.frame(now: 15)?.bytes == [65])
    }

    @Test("Terminal output is quoted readably: escapes as \\e, controls as ^X")
    func printable() {
        #expect(PseudoTerminal.printable(Array("\u{1B}[1mA\r\n".utf8)) == "\\e[1mA^M^J")
    }

    @Test("Microseconds and milliseconds between two readings of the clock")
    func durations() {
        #expect(Monotonic.microseconds(from: 1_000, to: 3_500) == 2.5)
        #expect(Monotonic.milliseconds(from: 0, to: 2_000_000) == 2)
        let a = Monotonic.now(), b = Monotonic.now()
        #expect(b >= a)
    }

    @Test("A storm's commits are due evenly spaced at its rate; without a rate, none waits")
    func stormPace() {
        let pace = StormPace(rate: 4_000, start: 1_000)
        #expect(pace.deadline(ofCommit: 0) == 1_000)
        #expect(pace.deadline(ofCommit: 1) == 1_000 + 250_000)
        #expect(pace.deadline(ofCommit: 4_000) == 1_000 + 1_000_000_000, "4,000 commits take one second")
        #expect(StormPace(rate: 0, start: 1_000).deadline(ofCommit: 5) == nil)
    }

    @Test("The performance targets are computed from the sizes a run measured, each against its bound")
    func targets() {
        func result(rows: Int, tap: Double, floor: Double, cached: Double, rss: Double) -> SizeResult {
            SizeResult(rows: rows, incrementalP50: tap, incrementalP99: tap * 3, peerP50: tap * 2_000, peerP99: tap * 3_000, speedup: 2_000,
                       fetchColdMs: 300, bareSelectMs: 120, fetchCachedMs: cached, rssMB: rss, floorP50: floor, floorP99: floor * 2)
        }
        let thousand = result(rows: 1_000, tap: 40, floor: 20, cached: 0.2, rss: 29)
        let million = result(rows: 1_000_000, tap: 60, floor: 30, cached: 6, rss: 62.5)
        let tenMillion = result(rows: 10_000_000, tap: 70, floor: 38, cached: 90, rss: 355)
        let lines = Report.targets([
            SizeReport(rows: 1_000, controller: thousand, terminal: nil),
            SizeReport(rows: 1_000_000, controller: million, terminal: nil),
            SizeReport(rows: 10_000_000, controller: tenMillion, terminal: nil),
        ]).split(separator: "\n").map(String.init)
        #expect(lines.contains("  1. tap / floor at 1,000,000: 2.00×, at most 1.25×: not met"))
        #expect(lines.contains("  2. tap at 1,000,000 / at 1,000: 1.50×, at most 1.30×: not met"))
        #expect(lines.contains("  3. cold performFetch / bare select at 1,000,000: 2.50×, at most 3.00×: met"))
        #expect(lines.contains("  5. resident memory at 1,000,000: 62.50 MB, at most 64.00 MB: met"))
        #expect(lines.contains("  6. tap at 10,000,000 / at 1,000: 1.75×, at most 1.50×: not met"))
        #expect(lines.contains("  6. cached performFetch at 10,000,000 / at 1,000,000: 15.00×, at most 10.00×: not met"))
        // Without a terminal part, no launch, filter or storm line.
        #expect(!lines.contains { $0.hasPrefix("  4.") || $0.hasPrefix("  7.") })
        // A run of one size alone has nothing to compare but its own figures.
        #expect(Report.targets([SizeReport(rows: 1_000, controller: thousand, terminal: nil)]).isEmpty)
    }

    @Test("A kept database folder is held by one run at a time, and free again when that run's workspace goes")
    func keptFolderIsHeldByOneRun() throws {
        let folder = try TemporaryFolder(prefix: "worldcup-bench-tests")
        defer { folder.remove() }
        try withExtendedLifetime(try Workspace(keeping: folder.url.path)) { first in
            #expect(first.keepsDatabases)
            let error = #expect(throws: BenchError.self) { try Workspace(keeping: folder.url.path) }
            #expect(error?.description.hasPrefix("Another worldcup-bench is using the database folder") == true)
            // Temporary folders are the run's own: no lock between them.
            try Workspace().remove()
        }
        _ = try Workspace(keeping: folder.url.path)
    }
}
