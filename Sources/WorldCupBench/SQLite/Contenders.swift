import Dispatch
import Foundation
import GRDB
import LiveResults
import LiveResultsSQLite
import LiveResultsPostgres
import Synchronization
import WorldCup
import WorldCupApp
import WorldCupSQLite

/// The request both contenders answer: the scoreboard's, with records loaded 50 at a time.
enum BenchRequest {
    static var request: ResultsRequest<Team> {
        var request = ScoreboardScreen.fetchRequest
        request.fetchBatchSize = 50
        return request
    }

    /// The board's sections: its zones, through the zone table.
    static let sections = Team.boardSections

    /// On PostgreSQL, the board's teams sectioned by the zone's id, a column of their own (the
    /// fan-out's `plain` request, beside the board's own, `joined`). Its order is the board's
    /// index's.
    static var postgresRequest: ResultsRequest<Team> {
        var request = self.request
        request.sortDescriptors = [SortColumn(postgresSectionColumn)] + request.sortDescriptors
        return request
    }

    static let postgresSectionColumn = "zoneID"

    /// A viewer's controller on PostgreSQL, not yet fetched: the board's own request (`joined`,
    /// sectioned through the zone table) or the one sectioned by the team's zone id (`plain`).
    static func postgresController(_ reader: PostgresReader, _ kind: FanoutRequest) -> ResultsController<Team> {
        switch kind {
        case .joined: ResultsController(database: reader, fetchRequest: request, sections: sections)
        case .plain: ResultsController(database: reader, fetchRequest: postgresRequest, sectionNameKeyPath: postgresSectionColumn)
        }
    }

    /// A controller over the scoreboard, not yet fetched; with a cache name, tracking persistently.
    static func controller(_ scoreboard: SQLiteTeamStore, cacheName: String? = nil, cacheDirectory: URL? = nil) -> ResultsController<Team> {
        ResultsController(database: scoreboard.database, fetchRequest: request, sections: sections,
                          cacheName: cacheName, cacheDirectory: cacheDirectory)
    }
}

/// Records when the controller finished delivering each batch.
final class DeliveryRecorder: ResultsControllerDelegate {
    typealias Record = Team

    private(set) var deliveries = 0
    private(set) var lastDelivery: UInt64 = 0

    func controllerDidChangeContent(_ controller: ResultsController<Team>) {
        lastDelivery = Monotonic.now()
        deliveries += 1
    }

    func controllerDidResetContent(_ controller: ResultsController<Team>) {
        controllerDidChangeContent(controller)
    }
}

/// Our contender: `ResultsController<Team>` applying each commit incrementally.
enum ControllerContender {
    /// Microseconds of each measured tap: from just before the tap to the end of its delivered
    /// batch (`latencies`), and of its parts: the tap's write and commit, with the change log's
    /// trigger and the controller's commit observer (`write`), then `processPendingChanges` (`apply`).
    struct Run {
        var latencies: [Double] = []
        var write: [Double] = []
        var apply: [Double] = []
    }

    static func measure(scoreboard: SQLiteTeamStore, rows: Int, warmUp: [Int64], taps: [Int64]) throws -> Run {
        let controller = BenchRequest.controller(scoreboard)
        let recorder = DeliveryRecorder()
        controller.delegate = recorder
        try controller.performFetch()
        guard controller.numberOfObjects == rows else {
            throw BenchError("The controller fetched \(controller.numberOfObjects) teams instead of \(rows).")
        }
        var run = Run()
        func tap(_ id: Int64) throws {
            let before = recorder.deliveries
            let start = Monotonic.now()
            try scoreboard.tap(teamID: id)
            let written = Monotonic.now()
            try controller.processPendingChanges()
            guard recorder.deliveries == before + 1 else {
                throw BenchError("The controller delivered \(recorder.deliveries - before) batches for one tap instead of one.")
            }
            run.latencies.append(Monotonic.microseconds(from: start, to: recorder.lastDelivery))
            run.write.append(Monotonic.microseconds(from: start, to: written))
            run.apply.append(Monotonic.microseconds(from: written, to: recorder.lastDelivery))
        }
        for id in warmUp { try tap(id) }
        run = Run()
        try withExtendedLifetime(controller) { for id in taps { try tap(id) } }
        return run
    }

    /// Milliseconds of `performFetch()` on fresh controllers without a delegate, one per run:
    /// from the database (no cache name), or from a valid section cache in `cacheDirectory`,
    /// which a first, untimed fetch writes.
    static func fetchTimes(scoreboard: SQLiteTeamStore, rows: Int, runs: Int, cacheDirectory: URL? = nil) throws -> [Double] {
        let cacheName = cacheDirectory.map { _ in "bench" }
        if cacheDirectory != nil { try BenchRequest.controller(scoreboard, cacheName: cacheName, cacheDirectory: cacheDirectory).performFetch() }
        return try (0..<runs).map { _ in
            let controller = BenchRequest.controller(scoreboard, cacheName: cacheName, cacheDirectory: cacheDirectory)
            let start = Monotonic.now()
            try controller.performFetch()
            let end = Monotonic.now()
            guard controller.numberOfObjects == rows else {
                throw BenchError("The controller fetched \(controller.numberOfObjects) teams instead of \(rows).")
            }
            let expected: FetchSource = cacheDirectory == nil ? .database : .cache
            guard controller.lastFetchSource == expected else {
                throw BenchError("performFetch read the \(controller.lastFetchSource.map { "\($0)" } ?? "nothing") instead of the \(expected).")
            }
            return Monotonic.milliseconds(from: start, to: end)
        }
    }
}

/// The peer a GRDB user would pick: a `ValueObservation` refetching the ordered ids after each
/// commit, and Swift's `difference(from:)` against the previous ids to find what moved.
enum RefetchDiffPeer {
    /// The same order as the scoreboard's request.
    static let sql = "SELECT id FROM team ORDER BY \(Team.boardOrderSQL)"

    /// What the observation's queue hands to the measuring thread.
    private struct State {
        var previous: [Int64]?
        var deliveries = 0
        var lastDelivery: UInt64 = 0
        /// Microseconds spent in `difference(from:)`, one per value after the first.
        var diffTimes: [Double] = []
        var idCount = 0
        var error: String?
    }

    /// The observer's side: diffs each new value against the last one, then signals.
    private final class Observer: Sendable {
        let state = Mutex(State())
        let delivered = DispatchSemaphore(value: 0)

        func receive(_ ids: [Int64]) {
            let previous = state.withLock { $0.previous }
            let start = Monotonic.now()
            let difference = previous.map { ids.difference(from: $0) }
            let end = Monotonic.now()
            state.withLock { state in
                state.previous = ids
                state.deliveries += 1
                state.lastDelivery = end
                if difference != nil { state.diffTimes.append(Monotonic.microseconds(from: start, to: end)) }
                state.idCount = ids.count
            }
            delivered.signal()
        }

        func fail(_ error: any Error) {
            state.withLock { $0.error = "\(error)" }
            delivered.signal()
        }

        /// Takes the deliveries that arrive until one second passes without any; returns their total.
        func settle(after expected: Int) throws -> Int {
            var expected = expected
            while delivered.wait(timeout: .now() + 1) == .success { expected += 1 }
            let state = state.withLock { $0 }
            if let error = state.error { throw BenchError("The peer's observation failed: \(error)") }
            guard state.deliveries == expected else {
                throw BenchError("The peer's observation delivered \(state.deliveries) values where \(expected) were expected.")
            }
            return expected
        }

        /// Waits for the next delivery, which must be number `expected` (nil: any number).
        /// Throws when the observation fails, is late, or delivered more than expected.
        func wait(for expected: Int?) throws -> State {
            guard delivered.wait(timeout: .now() + 120) == .success else {
                throw BenchError("The peer's observation delivered nothing within two minutes.")
            }
            let state = state.withLock { $0 }
            if let error = state.error { throw BenchError("The peer's observation failed: \(error)") }
            if let expected, state.deliveries != expected {
                throw BenchError("The peer's observation delivered \(state.deliveries) values where \(expected) were expected.")
            }
            return state
        }
    }

    /// Latencies in microseconds, from just before each tap to the end of the diff of its value,
    /// and the microseconds of the measured taps' `difference(from:)` calls alone.
    static func measure(scoreboard: SQLiteTeamStore, rows: Int, warmUp: [Int64], taps: [Int64]) throws -> (latencies: [Double], diffTimes: [Double]) {
        let observer = Observer()
        let observation = ValueObservation.tracking { db in try Int64.fetchAll(db, sql: sql) }
        let queue = DispatchQueue(label: "worldcup-bench.peer")
        let cancellable = observation.start(
            in: scoreboard.database,
            scheduling: .async(onQueue: queue),
            onError: { observer.fail($0) },
            onChange: { observer.receive($0) }
        )
        defer { cancellable.cancel() }
        // The second initial value (below) may already be in when the first is read.
        let initial = try observer.wait(for: nil)
        guard initial.idCount == rows else {
            throw BenchError("The peer fetched \(initial.idCount) teams instead of \(rows).")
        }
        // GRDB may notify the initial value twice: unless it can prove from a WAL snapshot that
        // nothing changed, it fetches again once it holds the writer. Passing the writer makes
        // sure that second fetch is done; then only two queue hops remain before it arrives.
        scoreboard.database.writeWithoutTransaction { _ in }
        var expected = try observer.settle(after: 1)
        func tap(_ id: Int64) throws -> Double {
            expected += 1
            let start = Monotonic.now()
            try scoreboard.tap(teamID: id)
            let state = try observer.wait(for: expected)
            return Monotonic.microseconds(from: start, to: state.lastDelivery)
        }
        for id in warmUp { _ = try tap(id) }
        let diffsBefore = observer.state.withLock { $0.diffTimes.count }
        let latencies = try taps.map(tap)
        return (latencies, observer.state.withLock { Array($0.diffTimes.dropFirst(diffsBefore)) })
    }
}
