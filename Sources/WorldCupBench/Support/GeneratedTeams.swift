import LiveResults
import SeededRandom
import WorldCup

/// The teams of a benchmark's board, the same on both stores for a seed: team `n` of `rows` is
/// named "Team 000000n" (unique, in id order), in a random one of six zones, with random wins.
/// Each store writes the columns a new team's row holds (`columns`), as the app writes them.
struct GeneratedTeams: Sequence, IteratorProtocol {
    /// The zones, ids 1...6 in alphabetical positions, as the app numbers them.
    static let zones = ["Africa", "Asia", "Europe", "North America", "Oceania", "South America"]

    /// The `team` table's columns a new team's row holds (`Team.columns`), in the table's order.
    static let columns = Team.columns.filter { $0.writtenBy.contains(.add) }

    /// A team's row: each of `columns`' values.
    static func values(of team: Team) -> [ColumnValue] {
        columns.map { $0.value(team) }
    }

    private let rows: Int
    private let digits: Int
    private var random: SplitMix64
    private var number = 0

    /// Teams 1...rows (`id` set), in id order.
    init(rows: Int, seed: UInt64) {
        self.rows = rows
        self.digits = Swift.max(7, String(rows).count)
        self.random = SplitMix64(seed: seed)
    }

    mutating func next() -> Team? {
        guard number < rows else { return nil }
        number += 1
        let digitsOfNumber = String(number)
        let name = "Team " + String(repeating: "0", count: digits - digitsOfNumber.count) + digitsOfNumber
        let zone = Int.random(in: 0..<Self.zones.count, using: &random)
        let wins = Int.random(in: 0..<1000, using: &random)
        return Team(id: Int64(number), teamName: name, qualifyingZone: Self.zones[zone], imageName: Team.secretImageName,
                    wins: wins, zoneID: Int64(zone + 1))
    }
}
