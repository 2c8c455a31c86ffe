import Dispatch
import Foundation
import LiveResults
import LiveResultsPostgres
import PostgresNIO
import Synchronization
import WorldCup
import WorldCupPostgres

/// The tap every PostgreSQL contender times: the app's tap (`PostgresTeamStore.recordedTap`'s
/// statement: the UPDATE and its history entry, one autocommitted statement), sent on a
/// writer connection of its own, waiting for the server's answer.
enum PostgresTap {
    static func run(_ writer: PostgresConnection, id: Int64) throws {
        let result = try writer.query(write(id).statement, logger: PostgresBoard.logger).waitWithin(.long(.minutes(30)))
        guard result.metadata.rows == 1 else { throw BenchError("A tap updated \(result.metadata.rows ?? 0) teams instead of team \(id).") }
    }

    /// The same tap through a `PostgresWriter`, which hands the row it committed to the
    /// controllers of `reader` from the statement's own answer.
    static func run(_ writer: PostgresConnection, id: Int64, through reader: PostgresReader) throws {
        let rows = try PostgresWriter(handingOverTo: reader).write(write(id), on: writer)
        guard rows.count == 1 else { throw BenchError("A tap updated \(rows.count) teams instead of team \(id).") }
    }

    private static func write(_ id: Int64) -> PostgresWrite {
        PostgresRecordedWrite.tap(teamID: id, author: "bench")
    }
}

/// Our contender on PostgreSQL: `ResultsController<Team>` over a `PostgresReader`, woken by
/// `onChangesAvailable`, applying each commit on this thread. Its taps go through the reader
/// (`PostgresWriter.write`), which hands each commit to the feed from the UPDATE's own answer;
/// or, on the notified path, on a plain connection, which the feed hears of by NOTIFY and
/// reads from the log.
enum PostgresControllerContender {
    /// How the controller learns of the contender's taps.
    enum Path {
        /// `PostgresWriter.write`: from the UPDATE's answer, in the writer's process.
        case written
        /// A plain UPDATE: NOTIFY, then the feed's log read (as a tap of another process).
        case notified
    }

    static func controller(_ reader: PostgresReader) -> ResultsController<Team> {
        ResultsController(database: reader, fetchRequest: BenchRequest.postgresRequest, sectionNameKeyPath: BenchRequest.postgresSectionColumn)
    }

    /// Where a tap's time goes, in microseconds per measured tap.
    struct Breakdown {
        /// Sending the UPDATE until the server answered (the commit, with the log's triggers;
        /// on the written path, the hand-over to the feed too).
        var update: [Double] = []
        /// The answer until `onChangesAvailable` (NOTIFY to the feed, its log read; none on the
        /// written path, which calls it during the hand-over).
        var wake: [Double] = []
        /// `onChangesAvailable` until the batch was delivered (this thread waking, `processPendingChanges`).
        var apply: [Double] = []
    }

    /// When `onChangesAvailable` was last called, set from an event loop.
    private final class WakeClock: Sendable {
        let last = Atomic<UInt64>(0)
    }

    /// Latencies in microseconds, from just before sending each tap's UPDATE to the end of the
    /// batch the controller delivered for it, and where that time went.
    static func measure(board: PostgresBoard, rows: Int, warmUp: [Int64], taps: [Int64], path: Path) throws -> (latencies: [Double], breakdown: Breakdown) {
        let reader = PostgresReader(configuration: board.url.configuration)
        defer { reader.close() }
        let controller = controller(reader)
        let recorder = DeliveryRecorder()
        let available = DispatchSemaphore(value: 0)
        let wakeClock = WakeClock()
        controller.onChangesAvailable = {
            wakeClock.last.store(Monotonic.now(), ordering: .relaxed)
            available.signal()
        }
        controller.delegate = recorder
        try controller.performFetch()
        guard controller.numberOfObjects == rows else {
            throw BenchError("The controller fetched \(controller.numberOfObjects) teams instead of \(rows).")
        }
        let writer = try PG.connect(board.url)
        defer { try? writer.close().waitWithin(.long(.minutes(30))) }
        var breakdown = Breakdown()
        func tap(_ id: Int64) throws -> Double {
            let before = recorder.deliveries
            let start = Monotonic.now()
            switch path {
            case .written: try PostgresTap.run(writer, id: id, through: reader)
            case .notified: try PostgresTap.run(writer, id: id)
            }
            let updated = Monotonic.now()
            // A wake-up may find nothing new (one left over from the tap before): wait again.
            while recorder.deliveries == before {
                guard available.wait(timeout: .now() + 30) == .success else {
                    throw BenchError("The controller heard of no change within 30 seconds of tapping team \(id).")
                }
                try controller.processPendingChanges()
            }
            guard recorder.deliveries == before + 1 else {
                throw BenchError("The controller delivered \(recorder.deliveries - before) batches for one tap instead of one.")
            }
            // The feed may call before the UPDATE's answer arrives here.
            let woken = max(wakeClock.last.load(ordering: .relaxed), updated)
            breakdown.update.append(Monotonic.microseconds(from: start, to: updated))
            breakdown.wake.append(Monotonic.microseconds(from: updated, to: woken))
            breakdown.apply.append(Monotonic.microseconds(from: woken, to: recorder.lastDelivery))
            return Monotonic.microseconds(from: start, to: recorder.lastDelivery)
        }
        for id in warmUp { _ = try tap(id) }
        breakdown = Breakdown()
        let latencies = try withExtendedLifetime(controller) { try taps.map(tap) }
        return (latencies, breakdown)
    }

    /// Milliseconds of `performFetch()` on fresh controllers without a delegate, each over a
    /// fresh `PostgresReader` (so each includes connecting, as an app's first fetch does).
    static func fetchTimes(board: PostgresBoard, rows: Int, runs: Int) throws -> [Double] {
        try (0..<runs).map { _ in
            let reader = PostgresReader(configuration: board.url.configuration)
            defer { reader.close() }
            let controller = controller(reader)
            let start = Monotonic.now()
            try controller.performFetch()
            let end = Monotonic.now()
            guard controller.numberOfObjects == rows else {
                throw BenchError("The controller fetched \(controller.numberOfObjects) teams instead of \(rows).")
            }
            return Monotonic.milliseconds(from: start, to: end)
        }
    }
}

/// The peer a PostgreSQL user would pick: LISTEN on the table's channel (the change log's
/// trigger notifies it once per statement) and, on each notification, refetch the ordered ids
/// and `difference(from:)` them against the previous ones.
enum PostgresRefetchDiffPeer {
    /// Latencies in microseconds, from just before sending each tap's UPDATE to the end of the
    /// diff of the ids refetched after its notification, the diffs' own microseconds, and the
    /// microseconds from sending the UPDATE to this thread waking on the notification.
    static func measure(board: PostgresBoard, rows: Int, warmUp: [Int64], taps: [Int64]) throws -> (latencies: [Double], diffTimes: [Double], notifyTimes: [Double]) {
        let listener = try PG.connect(board.url)
        defer { try? listener.close().waitWithin(.long(.minutes(30))) }
        let notified = DispatchSemaphore(value: 0)
        let channel = try PostgresChangeLog.channel(for: "team")
        listener.addListener(channel: channel) { _, _ in notified.signal() }
        try PG.execute(listener, "LISTEN \(PostgresBoard.identifier(channel))")
        let reader = try PG.connect(board.url)
        defer { try? reader.close().waitWithin(.long(.minutes(30))) }
        let writer = try PG.connect(board.url)
        defer { try? writer.close().waitWithin(.long(.minutes(30))) }

        // The rows as they arrive, decoded on the event loop (postgres-nio's fastest way, the one
        // the controller's key query uses too), while this thread waits.
        final class IDs: @unchecked Sendable { var ids: [Int64] = [] } // Written on the event loop, read after the wait.
        func fetchIDs() throws -> [Int64] {
            let collected = IDs()
            collected.ids.reserveCapacity(rows)
            _ = try reader.query(PostgresQuery(unsafeSQL: PostgresBoard.peerSQL), logger: PostgresBoard.logger) { row in
                collected.ids.append(try row.decode(Int64.self))
            }.waitWithin(.long(.minutes(30)))
            return collected.ids
        }
        var previous = try fetchIDs()
        guard previous.count == rows else { throw BenchError("The peer fetched \(previous.count) teams instead of \(rows).") }
        var diffTimes: [Double] = []
        var notifyTimes: [Double] = []
        func tap(_ id: Int64) throws -> Double {
            let start = Monotonic.now()
            try PostgresTap.run(writer, id: id)
            guard notified.wait(timeout: .now() + 120) == .success else {
                throw BenchError("The peer was not notified within two minutes of tapping team \(id).")
            }
            notifyTimes.append(Monotonic.microseconds(from: start, to: Monotonic.now()))
            let ids = try fetchIDs()
            let diffStart = Monotonic.now()
            let difference = ids.difference(from: previous)
            let end = Monotonic.now()
            guard ids.count == rows, difference.count <= 2 else {
                throw BenchError("The peer found \(ids.count) teams and \(difference.count) differences after one tap.")
            }
            previous = ids
            diffTimes.append(Monotonic.microseconds(from: diffStart, to: end))
            return Monotonic.microseconds(from: start, to: end)
        }
        for id in warmUp { _ = try tap(id) }
        diffTimes.removeAll()
        notifyTimes.removeAll()
        let latencies = try taps.map(tap)
        return (latencies, diffTimes, notifyTimes)
    }
}

/// The floor on PostgreSQL: the same tap (the UPDATE and its history entry) round trip on the
/// same table with no change-log trigger and nobody listening. It drops the triggers, so it
/// runs last.
enum PostgresFloorContender {
    /// Microseconds of each measured tap, from sending its statement to the server's answer (the commit).
    static func measure(board: PostgresBoard, warmUp: [Int64], taps: [Int64]) throws -> [Double] {
        try board.dropTriggers()
        let writer = try PG.connect(board.url)
        defer { try? writer.close().waitWithin(.long(.minutes(30))) }
        func tap(_ id: Int64) throws -> Double {
            let start = Monotonic.now()
            try PostgresTap.run(writer, id: id)
            return Monotonic.microseconds(from: start, to: Monotonic.now())
        }
        for id in warmUp { _ = try tap(id) }
        return try taps.map(tap)
    }
}

/// The floor of a cold `performFetch` on PostgreSQL: the key query's shape,
/// `SELECT id, <sort keys>, <section> FROM team ORDER BY …` (`PostgresBoard.keyQuerySQL`), on a
/// fresh connection (as each cold fetch makes one), streamed to this process, with only the
/// ids kept: no controller, no decoding of the keys, no index.
enum PostgresBareSelect {
    /// Milliseconds of one bare select per run, each on a new connection, connecting included.
    static func times(board: PostgresBoard, rows: Int, runs: Int) throws -> [Double] {
        final class IDs: @unchecked Sendable { var ids: [Int64] = [] } // Written on the event loop, read after the wait.
        return try (0..<runs).map { _ in
            let collected = IDs()
            collected.ids.reserveCapacity(rows)
            let start = Monotonic.now()
            try PG.withConnection(board.url) { connection in
                _ = try connection.query(PostgresQuery(unsafeSQL: PostgresBoard.keyQuerySQL), logger: PostgresBoard.logger) { row in
                    collected.ids.append(try row.decode(Int64.self))
                }.waitWithin(.long(.minutes(30)))
            }
            let end = Monotonic.now()
            guard collected.ids.count == rows else { throw BenchError("The bare select read \(collected.ids.count) ids instead of \(rows).") }
            return Monotonic.milliseconds(from: start, to: end)
        }
    }
}
