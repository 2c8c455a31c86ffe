import Foundation
import GRDB
import LiveResults
import LiveResultsSQLite

/// The joined board on SQLite: renaming and moving a zone through the controller's own
/// connection (`liveResultsWrite`: the commit reaches the controller before the write returns),
/// against a peer that refetches the joined result after the write and diffs it (with no
/// notification to wait for: the peer's best case), and against the bare UPDATE of the zone row.
struct JoinSQLiteBenchmark {
    var rows: Int
    var zoneRows: Int
    var changes: Int
    var peerChanges: Int
    /// Cold fetches (and bare selects) whose median is reported.
    var fetchRuns: Int
    /// Measure the cold fetch only, not the changes.
    var fetchOnly: Bool
    var seed: UInt64
    var folder: URL

    private var zones: Int { max(2, rows / zoneRows) }

    func run() throws -> JoinResult {
        let label = "[\(rows) teams in zones of \(zoneRows), SQLite]"
        Progress.say("\(label) building the database")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let path = folder.appendingPathComponent("join-\(rows).sqlite").path
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        var configuration = Configuration()
        configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = NORMAL") }
        let pool = try DatabasePool(path: path, configuration: configuration)
        try build(pool)
        let fetch = try measureFetch(pool, label: label)
        guard !fetchOnly else { return JoinResult(store: "SQLite", rows: rows, zoneRows: zoneRows, fetch: fetch) }

        let renames = BenchDatabase.tapPlan(rows: zones - 1, count: changes + peerChanges + 10, seed: seed &+ 1).map { Int($0) }
        let moves = BenchDatabase.tapPlan(rows: zones - 1, count: changes + peerChanges + 10, seed: seed &+ 2).map { Int($0) - 1 }
        var renamed = Set<Int>()
        func rename(_ zone: Int) -> String {
            let name = JoinTables.zoneName(zone, renamed: !renamed.contains(zone))
            if renamed.contains(zone) { renamed.remove(zone) } else { renamed.insert(zone) }
            return JoinTables.renameSQL(zone, to: name)
        }
        func median(_ sample: [Double]) -> Double { Percentiles(sample).median ?? 0 }

        let ours = try measureController(pool, renames: renames.prefix(changes + 5).map(rename), moves: moves.prefix(changes + 5).map(JoinTables.moveSQL))
        Progress.say("\(label) controller (liveResultsWrite, then processPendingChanges): rename p50 \(Report.format(median(ours.renames), decimals: 0)) µs, move p50 \(Report.format(median(ours.moves), decimals: 0)) µs")
        let peer = try measurePeer(pool, renames: renames.dropFirst(changes + 5).prefix(peerChanges + 1).map(rename),
                                   moves: moves.dropFirst(changes + 5).prefix(peerChanges + 1).map(JoinTables.moveSQL))
        Progress.say("\(label) peer (UPDATE, refetch the joined ids and zones, difference(from:)): rename p50 \(Report.format(median(peer.renames), decimals: 0)) µs, move p50 \(Report.format(median(peer.moves), decimals: 0)) µs")
        let floor = try measureFloor(pool, renames: renames.prefix(changes + 5).map(rename), moves: moves.prefix(changes + 5).map(JoinTables.moveSQL))
        Progress.say("\(label) floor (the bare UPDATE of the zone rows, no trigger): rename p50 \(Report.format(median(floor.renames), decimals: 0)) µs, move p50 \(Report.format(median(floor.moves), decimals: 0)) µs")
        return JoinResult(store: "SQLite", rows: rows, zoneRows: zoneRows, fetch: fetch, changes: JoinChangeResult(
                          renameOurs: median(ours.renames), renamePeer: median(peer.renames), renameFloor: median(floor.renames),
                          moveOurs: median(ours.moves), movePeer: median(peer.moves), moveFloor: median(floor.moves)))
    }

    /// Milliseconds of cold fetches (each a new controller) and of the bare selects, alternated, medians.
    private func measureFetch(_ pool: DatabasePool, label: String) throws -> JoinFetchResult {
        let (rows, zones) = (rows, zones)
        func bare(_ sql: String) throws -> Double {
            try pool.read { db in
                let start = Monotonic.now()
                let ids = try Int64.fetchAll(db, sql: sql)
                let end = Monotonic.now()
                guard ids.count == rows else { throw BenchError("The bare select read \(ids.count) ids instead of \(rows).") }
                return Monotonic.milliseconds(from: start, to: end)
            }
        }
        var cold: [Double] = [], joined: [Double] = [], index: [Double] = []
        for _ in 0..<fetchRuns {
            index.append(try bare(JoinTables.indexOrderIDsSQL(postgres: false)))
            joined.append(try bare(JoinTables.joinedIDsSQL(textOrder: "")))
            let controller = ResultsController(database: pool, fetchRequest: JoinTables.request, sections: JoinTables.sections)
            let start = Monotonic.now()
            try controller.performFetch()
            cold.append(Monotonic.milliseconds(from: start, to: Monotonic.now()))
            guard controller.numberOfObjects == rows, controller.numberOfSections == zones else {
                throw BenchError("The controller fetched \(controller.numberOfObjects) teams in \(controller.numberOfSections) zones instead of \(rows) in \(zones).")
            }
        }
        func list(_ sample: [Double]) -> String { sample.map { Report.format($0, decimals: 1) }.joined(separator: ", ") + " ms" }
        Progress.say("\(label) cold performFetch: \(list(cold)); bare select through the join: \(list(joined)); in the index's order: \(list(index))")
        func median(_ sample: [Double]) -> Double { Percentiles(sample).median ?? 0 }
        return JoinFetchResult(cold: median(cold), bareJoined: median(joined), bareIndex: median(index))
    }

    /// The tables, the teams in one transaction, the indexes, both change logs.
    private func build(_ pool: DatabasePool) throws {
        let (rows, zones, seed) = (rows, zones, seed)
        try pool.write { db in
            for statement in JoinTables.create(integer: "INTEGER", text: "TEXT") { try db.execute(sql: statement) }
            let zone = try db.makeStatement(sql: "INSERT INTO \(JoinTables.zone) (id, name, position) VALUES (?, ?, ?)")
            for number in 1...zones {
                let row = JoinTables.zoneRow(number)
                try zone.execute(arguments: [row.id, row.name, row.position])
            }
            let team = try db.makeStatement(sql: "INSERT INTO \(JoinTables.team) (id, name, zone_id, wins, name_key) VALUES (?, ?, ?, ?, ?)")
            try JoinTables.forEachTeam(rows: rows, zones: zones, seed: seed) { id, name, zone, wins in
                try team.execute(arguments: [id, name, zone, wins, name.lowercased()])
            }
            for statement in JoinTables.indexes(postgres: false) { try db.execute(sql: statement) }
            try ChangeLog.install(on: JoinTables.team, in: db)
            try ChangeLog.install(on: JoinTables.zone, in: db)
        }
        try pool.writeWithoutTransaction { db in
            try db.execute(sql: "ANALYZE")
            _ = try db.checkpoint(.truncate)
        }
    }

    /// Microseconds from each write's start to the end of the controller's batch for it.
    private func measureController(_ pool: DatabasePool, renames: [String], moves: [String]) throws -> (renames: [Double], moves: [Double]) {
        let controller = ResultsController(database: pool, fetchRequest: JoinTables.request, sections: JoinTables.sections)
        let recorder = JoinDeliveries()
        controller.delegate = recorder
        try controller.performFetch()
        guard controller.numberOfObjects == rows, controller.numberOfSections == zones else {
            throw BenchError("The controller fetched \(controller.numberOfObjects) teams in \(controller.numberOfSections) zones instead of \(rows) in \(zones).")
        }
        func change(_ sql: String) throws -> Double {
            let before = recorder.deliveries
            let start = Monotonic.now()
            try pool.liveResultsWrite { db in try db.execute(sql: sql) }
            try controller.processPendingChanges()
            guard recorder.deliveries == before + 1, recorder.lastRowEvents == 0 else {
                throw BenchError("The controller delivered \(recorder.deliveries - before) batches with \(recorder.lastRowEvents) row events for “\(sql)” instead of one batch of section events.")
            }
            return Monotonic.microseconds(from: start, to: recorder.lastDelivery)
        }
        let renameTimes = try withExtendedLifetime(controller) { try renames.map(change) }
        let moveTimes = try withExtendedLifetime(controller) { try moves.map(change) }
        return (Array(renameTimes.dropFirst(5)), Array(moveTimes.dropFirst(5)))
    }

    /// The peer: the write, then every team's id, zone and zone name refetched in order, and
    /// `difference(from:)` of the sections and the ids.
    private func measurePeer(_ pool: DatabasePool, renames: [String], moves: [String]) throws -> (renames: [Double], moves: [Double]) {
        let sql = JoinTables.peerSQL(textOrder: "")
        func fetch() throws -> JoinedPeerState {
            try pool.read { db in
                var state = JoinedPeerState()
                let rows = try Row.fetchCursor(db, sql: sql)
                while let row = try rows.next() { state.append(id: row[0], zone: row[1], name: row[2]) }
                return state
            }
        }
        var previous = try fetch()
        func change(_ sql: String) throws -> Double {
            let start = Monotonic.now()
            try pool.write { db in try db.execute(sql: sql) }
            let state = try fetch()
            let changes = state.changes(from: previous)
            let end = Monotonic.now()
            guard state.ids.count == rows, changes > 0 else { throw BenchError("The peer found \(state.ids.count) teams and no change after “\(sql)”.") }
            previous = state
            return Monotonic.microseconds(from: start, to: end)
        }
        return (Array(try renames.map(change).dropFirst()), Array(try moves.map(change).dropFirst()))
    }

    /// The bare UPDATE of the zone rows, with the zone table's triggers dropped (last).
    private func measureFloor(_ pool: DatabasePool, renames: [String], moves: [String]) throws -> (renames: [Double], moves: [Double]) {
        try pool.write { db in
            let triggers = try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = ?", arguments: [JoinTables.zone])
            for trigger in triggers { try db.execute(sql: "DROP TRIGGER \(trigger.quotedDatabaseIdentifier)") }
        }
        func change(_ sql: String) throws -> Double {
            let start = Monotonic.now()
            try pool.write { db in try db.execute(sql: sql) }
            return Monotonic.microseconds(from: start, to: Monotonic.now())
        }
        return (Array(try renames.map(change).dropFirst(5)), Array(try moves.map(change).dropFirst(5)))
    }
}
