import Foundation
import GRDB
import LiveResults
import LiveResultsSQLite
import SeededRandom

/// The joined variant of the benchmark's board: teams in a table of their own, each naming its
/// zone by key in a zone table (`bench_zone`: a name and a position), sectioned and ordered
/// through it. Every zone holds the same number of teams, so renaming or moving one touches a
/// known number of rows.
enum JoinTables {
    static let team = "bench_team"
    static let zone = "bench_zone"

    /// The controller's sections: by the team's zone, titled by its name, in the zones' order.
    static let sections = RelatedSections(table: zone, foreignKey: "zone_id", key: "id", title: "name", order: [SortColumn("position")])

    /// Rows within a zone: most wins first, then the name's key.
    static let sortDescriptors = [SortColumn("wins", ascending: false), SortColumn("name_key")]

    static var request: ResultsRequest<JoinedTeam> {
        ResultsRequest(sortDescriptors: sortDescriptors, fetchBatchSize: 50)
    }

    /// The tables on either store (`integer` is SQLite's or PostgreSQL's 64-bit integer type,
    /// `text` the text type with the collation the order needs).
    static func create(integer: String, text: String) -> [String] {
        [
            "CREATE TABLE \(zone) (id \(integer) PRIMARY KEY, name \(text) NOT NULL, position \(integer) NOT NULL)",
            "CREATE TABLE \(team) (id \(integer) PRIMARY KEY, name \(text) NOT NULL, zone_id \(integer) NOT NULL REFERENCES \(zone)(id), wins \(integer) NOT NULL, name_key \(text) NOT NULL)",
        ]
    }

    /// The indexes: the board's order within a zone (which also finds a zone's teams), and the
    /// zones' order. On PostgreSQL with NULLs where the controller's query puts them (SQLite's
    /// place: smallest), or the index could not give its order (SQLite's CREATE INDEX has no NULLS).
    static func indexes(postgres: Bool) -> [String] {
        let (last, first) = postgres ? (" NULLS LAST", " NULLS FIRST") : ("", "")
        return [
            "CREATE INDEX \(team)_order ON \(team) (zone_id\(first), wins DESC\(last), name_key\(first), id)",
            "CREATE INDEX \(zone)_order ON \(zone) (position\(first), id)",
        ]
    }

    /// The zone of `number` (from 1) among `zones`: a name of fixed width, and its place.
    static func zoneRow(_ number: Int) -> (id: Int, name: String, position: Int) {
        (number, zoneName(number), number - 1)
    }

    static func zoneName(_ number: Int, renamed: Bool = false) -> String {
        let digits = String(number)
        return "Zone " + String(repeating: "0", count: max(0, 6 - digits.count)) + digits + (renamed ? " (renamed)" : "")
    }

    /// The teams, in id order (1...rows): name, zone number, wins. Zone `z` holds the teams
    /// whose id is congruent to `z` modulo the number of zones, so each holds `rows / zones`.
    static func forEachTeam(rows: Int, zones: Int, seed: UInt64, _ body: (_ id: Int, _ name: String, _ zone: Int, _ wins: Int) throws -> Void) rethrows {
        var random = SplitMix64(seed: seed)
        let digits = max(7, String(rows).count)
        for number in 1...rows {
            let digitsOfNumber = String(number)
            let name = "Team " + String(repeating: "0", count: digits - digitsOfNumber.count) + digitsOfNumber
            try body(number, name, (number - 1) % zones + 1, Int.random(in: 0..<1000, using: &random))
        }
    }

    /// The peer's query: every team's id with its zone's id and name, in the controller's order.
    static func peerSQL(textOrder: String) -> String {
        """
        SELECT t.id, z.id, z.name FROM \(team) AS t JOIN \(zone) AS z ON z.id = t.zone_id
        ORDER BY z.position, z.id, t.wins DESC, t.name_key\(textOrder), t.id
        """
    }

    /// The ids in the controller's order through the join, one statement as the planner runs it
    /// (`textOrder`: the text term's collation clause, "" on SQLite).
    static func joinedIDsSQL(textOrder: String) -> String {
        """
        SELECT t.id FROM \(team) AS t JOIN \(zone) AS z ON z.id = t.zone_id
        ORDER BY z.position, z.id, t.wins DESC, t.name_key\(textOrder), t.id
        """
    }

    /// The ids in the order of the team index (`indexes`), with no join: a zone's teams
    /// together, each zone's in the controller's order. The floor of a cold fetch: reading
    /// every team's key from the index, no sort.
    static func indexOrderIDsSQL(postgres: Bool) -> String {
        "SELECT id FROM \(team) ORDER BY zone_id, wins DESC\(postgres ? " NULLS LAST" : ""), name_key, id"
    }

    /// The statement renaming zone `id`.
    static func renameSQL(_ id: Int, to name: String) -> String {
        "UPDATE \(zone) SET name = '\(name)' WHERE id = \(id)"
    }

    /// The statement swapping the zones at `position` and the next: one zone moved down a place.
    static func moveSQL(position: Int) -> String {
        "UPDATE \(zone) SET position = CASE WHEN position = \(position) THEN \(position + 1) ELSE \(position) END WHERE position IN (\(position), \(position + 1))"
    }
}

/// A team of the joined board as the controller loads it.
struct JoinedTeam: FetchableRecord, TableRecord, ColumnRowRecord {
    static let databaseTableName = JoinTables.team
    var id: Int64
    var name: String
    var wins: Int

    init(row: Row) {
        id = row["id"]
        name = row["name"]
        wins = row["wins"]
    }
}

/// What the joined board's peer holds: the sections (zone id and name) and the ids in order.
struct JoinedPeerState: Equatable {
    var sections: [JoinedPeerSection] = []
    var ids: [Int64] = []

    /// Adds a row of the peer's query, in order.
    mutating func append(id: Int64, zone: Int64, name: String) {
        if sections.last?.zone != zone { sections.append(JoinedPeerSection(zone: zone, name: name, count: 0)) }
        sections[sections.count - 1].count += 1
        ids.append(id)
    }

    /// What changed from `previous`: the sections' difference and the ids'.
    func changes(from previous: JoinedPeerState) -> Int {
        sections.difference(from: previous.sections).count + ids.difference(from: previous.ids).count
    }
}

struct JoinedPeerSection: Hashable {
    var zone: Int64
    var name: String
    var count: Int
}

/// The cold fetch of the joined board against its floors, medians in milliseconds.
struct JoinFetchResult {
    /// `performFetch` of a new controller (on PostgreSQL a new reader: connecting included).
    var cold: Double
    /// The ids through the join in the controller's order (`JoinTables.joinedIDsSQL`).
    var bareJoined: Double
    /// The ids in the team index's order, no join (`JoinTables.indexOrderIDsSQL(postgres:)`).
    var bareIndex: Double

    func line(store: String, rows: Int, zoneRows: Int) -> String {
        func ms(_ value: Double) -> String { Report.format(value, decimals: 1) + " ms" }
        return "\(store), \(rows) teams, zones of \(zoneRows): cold performFetch \(ms(cold)); bare select of the ids through the join \(ms(bareJoined)), "
            + "in the index's order \(ms(bareIndex)) (the fetch is \(Report.format(cold / max(bareIndex, 0.001), decimals: 2))× the latter)"
    }
}

/// One store's joined measurement.
struct JoinResult {
    var store: String
    var rows: Int
    var zoneRows: Int
    /// The cold fetch.
    var fetch: JoinFetchResult
    /// The changes' medians; nil with `--fetch-only`.
    var changes: JoinChangeResult?

    var lines: [String] {
        [fetch.line(store: store, rows: rows, zoneRows: zoneRows)] + (changes?.lines(store: store, rows: rows, zoneRows: zoneRows) ?? [])
    }
}

/// The medians of renaming and moving a zone, in microseconds.
struct JoinChangeResult {
    var rename: JoinContest
    var move: JoinContest

    func lines(store: String, rows: Int, zoneRows: Int) -> [String] {
        let board = "\(store), \(rows) teams, zones of \(zoneRows)"
        return [rename.line(board + ": rename a zone"), move.line(board + ": move a zone one place")]
    }
}

/// One change's medians, in microseconds: the controller, the refetch-and-diff peer, the bare UPDATE.
struct JoinContest {
    var ours: Double
    var peer: Double
    var floor: Double
    /// PostgreSQL: the controller hearing another connection's change (NOTIFY, its log read).
    var notified: Double?

    /// The report's line, after `what`.
    func line(_ what: String) -> String {
        func us(_ value: Double) -> String { Report.format(value, decimals: 0) + " µs" }
        let fromElsewhere = notified.map { ", from another connection \(us($0))" } ?? ""
        return "\(what): ours \(us(ours))\(fromElsewhere), refetch peer \(us(peer)) (\(Report.format(peer / max(ours, 1), decimals: 0))×), bare UPDATE \(us(floor))"
    }
}
