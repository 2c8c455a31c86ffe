import Foundation
import GRDB
import Testing
@testable import LiveResults
@testable import LiveResultsSQLite

/// Sections through a related table by the thousand: a rename or a reorder of one related row
/// is still one section event, and the weights that choose the sections that stay cannot
/// overflow however many sections survive.
@Suite("Sections through a related table: many sections")
struct RelatedSectionScaleTests {
    /// More sections than the weights of the sections that stay could once add up without
    /// overflowing, two members each.
    static let clubCount = 10_000

    static func makeFixture() throws -> ClubFixture {
        let clubs = (1...clubCount).map { (Int64($0), "Club \($0)", $0) }
        let players = (1...clubCount).flatMap { club in
            [Member(name: "A\(club)", clubID: Int64(club), wins: 2), Member(name: "B\(club)", clubID: Int64(club), wins: 1)]
        }
        return try ClubFixture(clubs: clubs, players: players)
    }

    @Test("Renaming one of ten thousand related rows is one section update")
    func rename() throws {
        let fixture = try Self.makeFixture()
        let events = try fixture.execute("UPDATE club SET name = 'Renamed' WHERE id = 5000")
        #expect(events == [.willChange, .sectionKept(.update, from: 4999, to: 4999, name: "Renamed", count: 2), .didChange])
        #expect(fixture.controller.layout == (try fixture.freshLayout()))
    }

    @Test("Moving the last of ten thousand related rows to the front is one section move")
    func move() throws {
        let fixture = try Self.makeFixture()
        let events = try fixture.execute("UPDATE club SET position = 0 WHERE id = ?", [Self.clubCount])
        #expect(events == [.willChange, .sectionKept(.move, from: Self.clubCount - 1, to: 0, name: "Club \(Self.clubCount)", count: 2), .didChange])
        #expect(fixture.controller.layout == (try fixture.freshLayout()))
    }

    @Test("The heaviest increasing run picks what the quadratic reference picks, ties included")
    func heaviestRunMatchesReference() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2_000 {
            let count = Int.random(in: 0...12, using: &generator)
            let values = Array((0..<(count + 3)).shuffled(using: &generator).prefix(count))
            let weights = (0..<count).map { _ in Int.random(in: 0...3, using: &generator) }
            #expect(SectionedIndex.heaviestIncreasingRun(values, weights: weights) == Self.referenceRun(values, weights: weights),
                    "\(values) \(weights)")
        }
    }

    /// The heaviest strictly increasing run by trying every predecessor (the earliest of equal
    /// scores wins, scores by weight then count): what the fast one must agree with.
    static func referenceRun(_ values: [Int], weights: [Int]) -> [Int] {
        guard !values.isEmpty else { return [] }
        var best = values.indices.map { (weight: weights[$0], count: 1) }
        var previous = Array(repeating: -1, count: values.count)
        for i in values.indices {
            for j in 0..<i where values[j] < values[i] {
                let candidate = (weight: best[j].weight + weights[i], count: best[j].count + 1)
                if candidate > best[i] {
                    best[i] = candidate
                    previous[i] = j
                }
            }
        }
        var i = values.indices.max { best[$0] < best[$1] } ?? 0
        var run: [Int] = []
        while i >= 0 {
            run.append(values[i])
            i = previous[i]
        }
        return run.reversed()
    }
}
