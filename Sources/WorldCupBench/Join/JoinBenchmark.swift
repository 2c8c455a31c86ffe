import Foundation

/// Renames and moves of zones, by SQL text, and how long each took (microseconds), warm-ups dropped.
typealias JoinTimes = (renames: [Double], moves: [Double])

/// How one store builds the joined board and takes each figure of the join benchmark; the plan
/// (the board, the zones renamed and moved, the checks, the medians and the lines said) is
/// `JoinBenchmark`'s, the same for both.
protocol JoinStore {
    /// The store's name, in the labels and the result.
    var name: String { get }
    /// Whether the SQL is PostgreSQL's (`JoinTables`' statements differ a little).
    var isPostgres: Bool { get }
    /// How a cold fetch is made, said after "cold performFetch".
    var coldFetchNote: String { get }
    /// How the peer hears and reads a change, said after "peer".
    var peerNote: String { get }
    /// The ways the controller hears a change, each measured in turn: what is said of it, and
    /// whether it is this program's own write (the result's "ours") or another connection's.
    var controllerWays: [(note: String, written: Bool)] { get }
    /// Builds the board of `rows` teams in `zones` zones (the teams' wins from `seed`).
    mutating func build(rows: Int, zones: Int, seed: UInt64) throws
    /// Removes the board.
    func remove()
    /// Milliseconds to read the ids `sql` selects, and how many it read.
    func bareSelect(_ sql: String) throws -> (milliseconds: Double, ids: Int)
    /// Milliseconds of a new controller's `performFetch`, and what it fetched.
    func coldFetch() throws -> (milliseconds: Double, teams: Int, zones: Int)
    /// The controller's times, from each statement sent to the end of its batch.
    func measureController(written: Bool, rows: Int, zones: Int, renames: [String], moves: [String]) throws -> JoinTimes
    /// The peer's times: the write, the refetch of the joined board and its difference.
    func measurePeer(rows: Int, renames: [String], moves: [String]) throws -> JoinTimes
    /// The bare UPDATEs' times, with the zone table's triggers dropped (last: it leaves them so).
    func measureFloor(renames: [String], moves: [String]) throws -> JoinTimes
}

/// The join benchmark on one store: the cold fetch against the bare selects, then renaming
/// and moving zones through the controller, the refetch-and-diff peer and the bare UPDATE.
struct JoinBenchmark<Store: JoinStore> {
    var rows: Int
    var zoneRows: Int
    var changes: Int
    var peerChanges: Int
    /// Cold fetches (and bare selects) whose median is reported.
    var fetchRuns: Int
    /// Measure the cold fetch only, not the changes.
    var fetchOnly: Bool
    var seed: UInt64
    var store: Store

    private var zones: Int { max(2, rows / zoneRows) }

    func run() throws -> JoinResult {
        var store = store
        let label = "[\(rows) teams in zones of \(zoneRows), \(store.name)]"
        Progress.say("\(label) building the database")
        try store.build(rows: rows, zones: zones, seed: seed)
        defer { store.remove() }
        let fetch = try measureFetch(store, label: label)
        guard !fetchOnly else { return JoinResult(store: store.name, rows: rows, zoneRows: zoneRows, fetch: fetch) }
        let renames = plan(count: changes + peerChanges + 10, salt: 1)
        let moves = plan(count: changes + peerChanges + 10, salt: 2).map { $0 - 1 } // positions 0..<zones-1
        var renamed = Set<Int>()
        func rename(_ zone: Int) -> String {
            let name = JoinTables.zoneName(zone, renamed: !renamed.contains(zone))
            if renamed.contains(zone) { renamed.remove(zone) } else { renamed.insert(zone) }
            return JoinTables.renameSQL(zone, to: name)
        }
        func median(_ sample: [Double]) -> Double { Percentiles(sample).median ?? 0 }
        func say(_ what: String, _ times: JoinTimes) {
            Progress.say("\(label) \(what): rename p50 \(Report.format(median(times.renames), decimals: 0)) µs, move p50 \(Report.format(median(times.moves), decimals: 0)) µs")
        }
        var ours: JoinTimes = ([], []), notified: JoinTimes?
        for way in store.controllerWays {
            let times = try store.measureController(written: way.written, rows: rows, zones: zones, renames: renames.prefix(changes + 5).map(rename),
                                                    moves: moves.prefix(changes + 5).map(JoinTables.moveSQL))
            say("controller\(way.note)", times)
            if way.written { ours = times } else { notified = times }
        }
        let peer = try store.measurePeer(rows: rows, renames: renames.dropFirst(changes + 5).prefix(peerChanges + 1).map(rename),
                                         moves: moves.dropFirst(changes + 5).prefix(peerChanges + 1).map(JoinTables.moveSQL))
        say("peer \(store.peerNote)", peer)
        let floor = try store.measureFloor(renames: renames.prefix(changes + 5).map(rename), moves: moves.prefix(changes + 5).map(JoinTables.moveSQL))
        say("floor (the bare UPDATE of the zone rows, no trigger)", floor)
        func contest(_ change: (JoinTimes) -> [Double]) -> JoinContest {
            JoinContest(ours: median(change(ours)), peer: median(change(peer)), floor: median(change(floor)), notified: notified.map { median(change($0)) })
        }
        return JoinResult(store: store.name, rows: rows, zoneRows: zoneRows, fetch: fetch,
                          changes: JoinChangeResult(rename: contest { $0.renames }, move: contest { $0.moves }))
    }

    /// Milliseconds of cold fetches and of the bare selects, alternated, medians.
    private func measureFetch(_ store: Store, label: String) throws -> JoinFetchResult {
        func bare(_ sql: String) throws -> Double {
            let read = try store.bareSelect(sql)
            guard read.ids == rows else { throw BenchError("The bare select read \(read.ids) ids instead of \(rows).") }
            return read.milliseconds
        }
        var cold: [Double] = [], joined: [Double] = [], index: [Double] = []
        for _ in 0..<fetchRuns {
            index.append(try bare(JoinTables.indexOrderIDsSQL(postgres: store.isPostgres)))
            joined.append(try bare(JoinTables.joinedIDsSQL(textOrder: "")))
            let fetched = try store.coldFetch()
            cold.append(fetched.milliseconds)
            try JoinTables.checkFetched(teams: fetched.teams, zones: fetched.zones, rows: rows, zoneCount: zones)
        }
        func list(_ sample: [Double]) -> String { sample.map { Report.format($0, decimals: 1) }.joined(separator: ", ") + " ms" }
        Progress.say("\(label) cold performFetch\(store.coldFetchNote): \(list(cold)); bare select through the join: \(list(joined)); in the index's order: \(list(index))")
        func median(_ sample: [Double]) -> Double { Percentiles(sample).median ?? 0 }
        return JoinFetchResult(cold: median(cold), bareJoined: median(joined), bareIndex: median(index))
    }

    /// `count` zone numbers in 1...zones, the same for every run with the same seed.
    private func plan(count: Int, salt: UInt64) -> [Int] {
        BenchDatabase.tapPlan(rows: zones - 1, count: count, seed: seed &+ salt).map { Int($0) }
    }
}

extension JoinTables {
    /// Throws unless a controller fetched every team (`rows`) in every zone (`zoneCount`).
    static func checkFetched(teams: Int, zones: Int, rows: Int, zoneCount: Int) throws {
        guard teams == rows, zones == zoneCount else {
            throw BenchError("The controller fetched \(teams) teams in \(zones) zones instead of \(rows) in \(zoneCount).")
        }
    }

    /// The peer's times, in microseconds: each statement written (`write`, which returns once
    /// the peer would know of it), then the joined board refetched (`fetch`) and diffed against
    /// the last; the first of each is a warm-up.
    static func peerTimes(rows: Int, renames: [String], moves: [String], write: (String) throws -> Void,
                          fetch: () throws -> JoinedPeerState) throws -> JoinTimes {
        var previous = try fetch()
        func change(_ sql: String) throws -> Double {
            let start = Monotonic.now()
            try write(sql)
            let state = try fetch()
            let changes = state.changes(from: previous)
            let end = Monotonic.now()
            guard state.ids.count == rows, changes > 0 else { throw BenchError("The peer found \(state.ids.count) teams and no change after “\(sql)”.") }
            previous = state
            return Monotonic.microseconds(from: start, to: end)
        }
        return (Array(try renames.map(change).dropFirst()), Array(try moves.map(change).dropFirst()))
    }
}
