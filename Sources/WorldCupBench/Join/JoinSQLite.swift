import Foundation
import GRDB
import LiveResults
import LiveResultsSQLite

/// The joined board on SQLite (`JoinBenchmark` runs the plan): renaming and moving a zone
/// through the controller's own connection (`liveResultsWrite`: the commit reaches the
/// controller before the write returns), against a peer that refetches the joined result after
/// the write and diffs it (with no notification to wait for: the peer's best case), and
/// against the bare UPDATE of the zone row.
struct JoinSQLite: JoinStore {
    var folder: URL
    /// The board's database, once built.
    var pool: DatabasePool!
    private var path: String { folder.appendingPathComponent("join.sqlite").path }

    let name = "SQLite"
    let isPostgres = false
    let coldFetchNote = ""
    let peerNote = "(UPDATE, refetch the joined ids and zones, difference(from:))"
    let controllerWays = [(note: " (liveResultsWrite, then processPendingChanges)", written: true)]

    mutating func build(rows: Int, zones: Int, seed: UInt64) throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        remove()
        var configuration = Configuration()
        configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = NORMAL") }
        pool = try DatabasePool(path: path, configuration: configuration)
        try build(pool, rows: rows, zones: zones, seed: seed)
    }

    func remove() {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }

    func bareSelect(_ sql: String) throws -> (milliseconds: Double, ids: Int) {
        try pool.read { db in
            let start = Monotonic.now()
            let ids = try Int64.fetchAll(db, sql: sql)
            return (Monotonic.milliseconds(from: start, to: Monotonic.now()), ids.count)
        }
    }

    func coldFetch() throws -> (milliseconds: Double, teams: Int, zones: Int) {
        let controller = ResultsController(database: pool, fetchRequest: JoinTables.request, sections: JoinTables.sections)
        let start = Monotonic.now()
        try controller.performFetch()
        return (Monotonic.milliseconds(from: start, to: Monotonic.now()), controller.numberOfObjects, controller.numberOfSections)
    }

    /// The tables, the teams in one transaction, the indexes, both change logs.
    private func build(_ pool: DatabasePool, rows: Int, zones: Int, seed: UInt64) throws {
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
    func measureController(written: Bool, rows: Int, zones: Int, renames: [String], moves: [String]) throws -> JoinTimes {
        let controller = ResultsController(database: pool, fetchRequest: JoinTables.request, sections: JoinTables.sections)
        let recorder = JoinDeliveries()
        controller.delegate = recorder
        try controller.performFetch()
        try JoinTables.checkFetched(teams: controller.numberOfObjects, zones: controller.numberOfSections, rows: rows, zoneCount: zones)
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
    func measurePeer(rows: Int, renames: [String], moves: [String]) throws -> JoinTimes {
        let sql = JoinTables.peerSQL(textOrder: "")
        func fetch() throws -> JoinedPeerState {
            try pool.read { db in
                var state = JoinedPeerState()
                let rows = try Row.fetchCursor(db, sql: sql)
                while let row = try rows.next() { state.append(id: row[0], zone: row[1], name: row[2]) }
                return state
            }
        }
        return try JoinTables.peerTimes(rows: rows, renames: renames, moves: moves, write: { sql in try pool.write { db in try db.execute(sql: sql) } },
                                        fetch: fetch)
    }

    /// The bare UPDATE of the zone rows, with the zone table's triggers dropped (last).
    func measureFloor(renames: [String], moves: [String]) throws -> JoinTimes {
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
