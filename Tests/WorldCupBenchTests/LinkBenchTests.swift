import Foundation
import TestSupport
import Testing
@testable import WorldCupBench

/// `worldcup-bench link`: every figure measured on both relays through the real programs
/// (correctness only: timings are never checked), and the targets it prints from them.
@Suite("worldcup-bench link")
struct LinkBenchTests {
    @Test("One run over a 5 ms link: psql, every command and the board give a figure on both relays")
    func oneRun() throws {
        let ran = try Executable.run(["link", "--runs", "1", "--delay-ms", "5", "--json", "--worldcup", Executable.worldcup.path,
                                      "--relay", Executable.folder.appendingPathComponent("tcp-relay").path],
                                     executable: Executable.worldcupBench, limit: .seconds(600))
        #expect(ran.status == 0, "\(ran.err)")
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        let result = try decoder.decode(LinkResult.self, from: Data(ran.out.utf8))
        #expect(result.figures.map(\.name) == ["psql SELECT 1", "psql UPDATE", "worldcup tap", "worldcup undo", "worldcup list", "worldcup history",
                                                "worldcup check", "board launch to rows", "board Enter drawn", "board Enter confirmed", "another's tap seen"])
        #expect(result.figures.allSatisfy { $0.linkedMs.isFinite && $0.directMs.isFinite && $0.linkedMs > 0 })
    }

    @Test("The targets compare each figure with its limit: the commands with psql's own round trips")
    func targets() {
        let figures = [("psql SELECT 1", 3.0), ("psql UPDATE", 3.0), ("worldcup tap", 4.0), ("worldcup undo", 4.5), ("worldcup list", 3.5),
                       ("board launch to rows", 6.0), ("board Enter drawn", 0.0), ("board Enter confirmed", 1.0), ("another's tap seen", 0.5)]
        let result = LinkResult(delayMilliseconds: 50, runs: 1, figures: figures.map {
            LinkFigure(name: $0.0, directMs: 10, linkedMs: 10 + $0.1 * 100, roundTrips: $0.1)
        })
        let lines = LinkCommand.targets(result).split(separator: "\n").map(String.init)
        #expect(lines.contains("met     worldcup tap, psql UPDATE + 1: 4.00 (at most 4.00)"))
        #expect(lines.contains("not met worldcup undo, psql UPDATE + 1: 4.50 (at most 4.00)"))
        #expect(lines.contains("not met board launch to rows, psql SELECT 1 + 2: 6.00 (at most 5.00)"))
        #expect(lines.contains("met     board Enter confirmed, from Enter: 1.10 (at most 1.20)"))
    }
}
