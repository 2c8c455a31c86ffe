import Dispatch
import Foundation
import LiveResults
import LiveResultsPostgres
import NIOCore
import PostgresNIO
import Synchronization
import ThrowawayPostgres

/// The joined board on PostgreSQL (`JoinBenchmark` runs the plan): renaming and moving a zone,
/// heard by the controller (NOTIFY, then its log read, which reads the zone rows alone),
/// against a peer that LISTENs and refetches the joined result, and against the bare UPDATE of
/// the zone row.
struct JoinPostgres: JoinStore {
    var server: PostgresURL
    /// The board's database, once built.
    var url: PostgresURL!

    let name = "PostgreSQL"
    let isPostgres = true
    let coldFetchNote = " (new connection)"
    let peerNote = "(LISTEN + refetch the joined ids and zones + difference(from:))"
    let controllerWays = [
        (note: ", written (PostgresWriter: the zone rows handed over from the UPDATE's answer)", written: true),
        (note: ", notified (another connection's UPDATE: NOTIFY, the log read of the zone rows alone)", written: false),
    ]

    mutating func build(rows: Int, zones: Int, seed: UInt64) throws {
        url = try build(rows: rows, zones: zones, seed: seed, server: server)
    }

    func remove() {
        guard let url else { return }
        _ = try? PG.withConnection(server) { admin in
            try PG.execute(admin, "DROP DATABASE IF EXISTS \(PostgresBoard.identifier(url.database)) WITH (FORCE)")
        }
    }

    /// On a new connection, the ids streamed here.
    func bareSelect(_ sql: String) throws -> (milliseconds: Double, ids: Int) {
        final class IDs: @unchecked Sendable { var count = 0 } // Written on the event loop, read after the wait.
        let ids = IDs()
        let start = Monotonic.now()
        try PG.withConnection(url) { connection in
            _ = try connection.query(PostgresQuery(unsafeSQL: sql), logger: PostgresBoard.logger) { row in
                _ = try row.decode(Int64.self)
                ids.count += 1
            }.waitWithin(.long(.minutes(30)))
        }
        return (Monotonic.milliseconds(from: start, to: Monotonic.now()), ids.count)
    }

    /// A new reader and controller: connecting included.
    func coldFetch() throws -> (milliseconds: Double, teams: Int, zones: Int) {
        let reader = PostgresReader(configuration: url.configuration)
        defer { reader.close() }
        let controller = ResultsController(database: reader, fetchRequest: JoinTables.request, sections: JoinTables.sections)
        let start = Monotonic.now()
        try controller.performFetch()
        return (Monotonic.milliseconds(from: start, to: Monotonic.now()), controller.numberOfObjects, controller.numberOfSections)
    }

    /// A fresh database with the joined board: COPY, the indexes, VACUUM ANALYZE, both change logs.
    private func build(rows: Int, zones: Int, seed: UInt64, server: PostgresURL) throws -> PostgresURL {
        var url = server
        url.database = PostgresBoard.databasePrefix + "join_\(getpid())_\(rows)"
        try PG.withConnection(server) { admin in
            try PG.execute(admin, "DROP DATABASE IF EXISTS \(PostgresBoard.identifier(url.database)) WITH (FORCE)")
            try PG.execute(admin, "CREATE DATABASE \(PostgresBoard.identifier(url.database))")
        }
        try PG.withConnection(url) { connection in
            for statement in JoinTables.create(integer: "int8", text: "text COLLATE \"C\"") { try PG.execute(connection, statement) }
            try PG.await {
                try await connection.copyFrom(table: JoinTables.zone, columns: ["id", "name", "position"], logger: PostgresBoard.logger) { writer in
                    var buffer = ByteBuffer()
                    for number in 1...zones {
                        let zone = JoinTables.zoneRow(number)
                        buffer.writeString("\(zone.id)\t\(zone.name)\t\(zone.position)\n")
                    }
                    try await writer.write(buffer)
                }
                try await connection.copyFrom(table: JoinTables.team, columns: ["id", "name", "zone_id", "wins", "name_key"], logger: PostgresBoard.logger) { writer in
                    var buffer = ByteBuffer()
                    var lines: [String] = []
                    JoinTables.forEachTeam(rows: rows, zones: zones, seed: seed) { id, name, zone, wins in
                        lines.append("\(id)\t\(name)\t\(zone)\t\(wins)\t\(name.lowercased())\n")
                    }
                    for line in lines {
                        buffer.writeString(line)
                        if buffer.readableBytes >= 1 << 20 {
                            try await writer.write(buffer)
                            buffer.clear()
                        }
                    }
                    if buffer.readableBytes > 0 { try await writer.write(buffer) }
                }
            }
            for statement in JoinTables.indexes(postgres: true) { try PG.execute(connection, statement) }
            try PG.execute(connection, "VACUUM (ANALYZE) \(JoinTables.team)")
            try PG.execute(connection, "VACUUM (ANALYZE) \(JoinTables.zone)")
            for table in [JoinTables.team, JoinTables.zone] {
                try PG.await { try await PostgresChangeLog.install(on: table, connection: connection, logger: PostgresBoard.logger) }
            }
        }
        return url
    }

    /// Microseconds from sending each statement to the end of the controller's batch for it:
    /// `written` through the reader's `PostgresWriter`, otherwise as another connection's.
    func measureController(written: Bool, rows: Int, zones: Int, renames: [String], moves: [String]) throws -> JoinTimes {
        let reader = PostgresReader(configuration: url.configuration)
        defer { reader.close() }
        let controller = ResultsController(database: reader, fetchRequest: JoinTables.request, sections: JoinTables.sections)
        let recorder = JoinDeliveries()
        let available = DispatchSemaphore(value: 0)
        controller.onChangesAvailable = { available.signal() }
        controller.delegate = recorder
        try controller.performFetch()
        try JoinTables.checkFetched(teams: controller.numberOfObjects, zones: controller.numberOfSections, rows: rows, zoneCount: zones)
        let writer = try PG.connect(url)
        defer { try? writer.close().waitWithin(.long(.minutes(30))) }
        func change(_ sql: String) throws -> Double {
            let before = recorder.deliveries
            let start = Monotonic.now()
            if written {
                _ = try PostgresWriter(handingOverTo: reader).write(PostgresWrite(table: JoinTables.zone, PostgresQuery(unsafeSQL: sql)), on: writer)
            } else {
                try PG.execute(writer, sql)
            }
            if written { try controller.processPendingChanges() }
            while recorder.deliveries == before {
                guard available.wait(timeout: .now() + 30) == .success else {
                    throw BenchError("The controller heard of no change within 30 seconds of “\(sql)”.")
                }
                try controller.processPendingChanges()
            }
            guard recorder.deliveries == before + 1, recorder.lastRowEvents == 0 else {
                throw BenchError("The controller delivered \(recorder.deliveries - before) batches with \(recorder.lastRowEvents) row events for “\(sql)” instead of one batch of section events.")
            }
            return Monotonic.microseconds(from: start, to: recorder.lastDelivery)
        }
        let renameTimes = try renames.map(change).dropFirst(5)
        let moveTimes = try moves.map(change).dropFirst(5)
        return (Array(renameTimes), Array(moveTimes))
    }

    /// The peer: LISTEN on the zone table's channel, then refetch every team's id, zone and
    /// zone name in order, and `difference(from:)` the sections and the ids.
    func measurePeer(rows: Int, renames: [String], moves: [String]) throws -> JoinTimes {
        let listener = try PG.connect(url)
        defer { try? listener.close().waitWithin(.long(.minutes(30))) }
        let notified = DispatchSemaphore(value: 0)
        let channel = try PostgresChangeLog.channel(for: JoinTables.zone)
        listener.addListener(channel: channel) { _, _ in notified.signal() }
        try PG.execute(listener, "LISTEN \(PostgresBoard.identifier(channel))")
        let reader = try PG.connect(url)
        defer { try? reader.close().waitWithin(.long(.minutes(30))) }
        let writer = try PG.connect(url)
        defer { try? writer.close().waitWithin(.long(.minutes(30))) }
        final class State: @unchecked Sendable { var state = JoinedPeerState() } // Written on the event loop, read after the wait.
        func fetch() throws -> JoinedPeerState {
            let collected = State()
            _ = try reader.query(PostgresQuery(unsafeSQL: JoinTables.peerSQL(textOrder: "")), logger: PostgresBoard.logger) { row in
                let (id, zone, name) = try row.decode((Int64, Int64, String).self)
                collected.state.append(id: id, zone: zone, name: name)
            }.waitWithin(.long(.minutes(30)))
            return collected.state
        }
        func write(_ sql: String) throws {
            try PG.execute(writer, sql)
            guard notified.wait(timeout: .now() + 120) == .success else { throw BenchError("The peer was not notified of “\(sql)”.") }
        }
        return try JoinTables.peerTimes(rows: rows, renames: renames, moves: moves, write: write, fetch: fetch)
    }

    /// The bare UPDATE round trips, with the zone table's triggers dropped (last: it leaves them so).
    func measureFloor(renames: [String], moves: [String]) throws -> JoinTimes {
        try PG.withConnection(url) { connection in
            for trigger in ["liveresults_log", "liveresults_log_truncate", "liveresults_notify"] {
                try PG.execute(connection, "DROP TRIGGER IF EXISTS \(trigger) ON \(JoinTables.zone)")
            }
            func change(_ sql: String) throws -> Double {
                let start = Monotonic.now()
                try PG.execute(connection, sql)
                return Monotonic.microseconds(from: start, to: Monotonic.now())
            }
            return (Array(try renames.map(change).dropFirst(5)), Array(try moves.map(change).dropFirst(5)))
        }
    }
}

/// Counts the joined controller's batches and the row events of the last one.
final class JoinDeliveries: ResultsControllerDelegate {
    typealias Record = JoinedTeam

    private(set) var deliveries = 0
    private(set) var lastDelivery: UInt64 = 0
    private(set) var lastRowEvents = 0
    private var rowEvents = 0

    func controllerWillChangeContent(_ controller: ResultsController<JoinedTeam>) {
        rowEvents = 0
    }

    func controller(_ controller: ResultsController<JoinedTeam>, didChangeRecordWithID id: RecordID, at indexPath: IndexPath?,
                    for type: ChangeKind, newIndexPath: IndexPath?) {
        rowEvents += 1
    }

    func controllerDidChangeContent(_ controller: ResultsController<JoinedTeam>) {
        lastDelivery = Monotonic.now()
        lastRowEvents = rowEvents
        deliveries += 1
    }

    /// A reset is a batch of every row: a rename must never cause one.
    func controllerDidResetContent(_ controller: ResultsController<JoinedTeam>) {
        rowEvents = .max
        controllerDidChangeContent(controller)
    }
}
