import Foundation
import NIOPosix
@testable import LiveResults
@testable import LiveResultsPostgres
import PostgresNIO
import PostgresSupport
import TestSupport
import Testing

/// The controller under three writers on overlapping rows while its connection is terminated
/// every few seconds, as a failover or an idle-session reaper would: no look waits past the
/// reader's deadline, every batch obeys the rules of the events (a reset says "reload"), and
/// once the writers stop, the controller shows what a fresh read shows.
///
/// Alone a case takes well under a minute. The limit only catches a hang: in the full suite
/// the test's awaits share the cooperative pool (as many threads as cores) with tests that
/// block it, and a case waited past three minutes there twice (the other case, run after
/// the busiest part of the suite, took its usual time).
@Suite(.serialized, .timeLimit(.minutes(10))) struct PostgresTerminationStormTests {
    /// Every batch and reset the controller delivered, with the result right after it.
    final class Deliveries: ResultsControllerDelegate {
        typealias Record = Item

        struct Delivery {
            var events: [Recorder.Event]
            var after: [Layout]
            var isReset: Bool
        }

        private var open: [Recorder.Event] = []
        var deliveries: [Delivery] = []

        func controllerWillChangeContent(_ controller: ResultsController<Item>) {
            open = [.willChange]
        }

        func controller(_ controller: ResultsController<Item>, didChange section: SectionInfo, atSectionIndex sectionIndex: Int, for type: ChangeKind) {
            open.append(.section(type, index: sectionIndex, name: section.name, count: section.numberOfObjects))
        }

        func controller(_ controller: ResultsController<Item>, didChangeRecordWithID id: RecordID, at indexPath: IndexPath?,
                        for type: ChangeKind, newIndexPath: IndexPath?) {
            open.append(.row(type, id: id, from: indexPath, to: newIndexPath))
        }

        func controllerDidChangeContent(_ controller: ResultsController<Item>) {
            open.append(.didChange)
            deliveries.append(Delivery(events: open, after: controller.layout, isReset: false))
            open = []
        }

        func controllerDidResetContent(_ controller: ResultsController<Item>) {
            deliveries.append(Delivery(events: [.reset], after: controller.layout, isReset: true))
        }

        func take() -> [Delivery] {
            defer { deliveries.removeAll() }
            return deliveries
        }
    }

    /// A writer's random statements on any row (the writers' rows overlap: they wait for each
    /// other's locks, and now and then one of them is chosen as a deadlock's victim).
    static func statements(_ random: inout SplitMix64, ids: [Int64]) -> [String] {
        let zones = ["A", "B", "C", "D"]
        func id() -> Int64 { ids.isEmpty ? 1 : ids[random.int(0..<ids.count)] }
        func one() -> String {
            switch random.int(0..<100) {
            case ..<40: return "UPDATE item SET score = score + 1 WHERE id = \(id())"
            case ..<55: return "UPDATE item SET zone = '\(zones[random.int(0..<zones.count)])' WHERE id = \(id())"
            case ..<70: return "INSERT INTO item (name, zone, score, flag) VALUES ('n\(random.int(0..<1000))', '\(zones[random.int(0..<zones.count)])', \(random.int(0..<5)), 1)"
            case ..<80: return "DELETE FROM item WHERE id = \(id())"
            case ..<90: return "UPDATE item SET name = 'm\(random.int(0..<1000))' WHERE id = \(id())"
            default: return "UPDATE item SET score = \(random.int(0..<9)) WHERE zone = '\(zones[random.int(0..<zones.count)])'"
            }
        }
        // Two in three commits are a single statement, the rest a transaction of two or three.
        return random.int(0..<3) < 2 ? [one()] : ["BEGIN"] + (0..<random.int(2..<4)).map { _ in one() } + ["COMMIT"]
    }

    /// A connection of the test's own, made and used on a thread that blocks on it (so that
    /// tests blocking the shared pool's threads never starve the writers or the terminator).
    static func connect(_ configuration: PostgresConnection.Configuration, id: Int) throws -> PostgresConnection {
        try PostgresConnection.connect(on: MultiThreadedEventLoopGroup.singleton.next(), configuration: configuration, id: id,
                                       logger: TestServer.logger).wait()
    }

    /// Runs one writer for `seconds`: random commits, errors (a deadlock, a lock timeout)
    /// rolled back and passed over. Returns how many commits it made. Blocks its thread.
    static func write(_ configuration: PostgresConnection.Configuration, seed: UInt64, for seconds: Double, pids: PidList) throws -> Int {
        let connection = try connect(configuration, id: 500 + Int(seed % 100))
        defer { try? connection.close().wait() }
        func run(_ sql: String) throws -> PostgresQueryResult { try connection.query(PostgresQuery(unsafeSQL: sql), logger: TestServer.logger).wait() }
        if let pid = try run("SELECT pg_backend_pid()").rows.first?.decode(Int32.self) { pids.add(pid) }
        _ = try run("SET lock_timeout = '2s'")
        var random = SplitMix64(seed: seed)
        let end = Date().addingTimeInterval(seconds)
        var commits = 0
        while Date() < end {
            let ids = try run("SELECT id FROM item").rows.map { try $0.decode(Int64.self) }
            do {
                for statement in statements(&random, ids: ids) { _ = try run(statement) }
                commits += 1
            } catch {
                _ = try? run("ROLLBACK")
            }
            Thread.sleep(forTimeInterval: Double(random.int(2..<15)) / 1000)
        }
        return commits
    }

    /// The writers' backends, which the terminator spares.
    final class PidList: @unchecked Sendable { // Guarded by its lock.
        private let lock = NSLock()
        private var pids: [Int32] = []
        func add(_ pid: Int32) { lock.withLock { pids.append(pid) } }
        var all: [Int32] { lock.withLock { pids } }
    }

    /// Terminates every backend of the database but the writers' and its own, every 2 to 4
    /// seconds, until `seconds` have passed. Returns how many it terminated. Blocks its thread.
    static func terminate(_ configuration: PostgresConnection.Configuration, for seconds: Double, sparing pids: PidList,
                          seed: UInt64) throws -> Int {
        let connection = try connect(configuration, id: 600)
        defer { try? connection.close().wait() }
        var random = SplitMix64(seed: seed)
        let end = Date().addingTimeInterval(seconds)
        var terminated = 0
        while true {
            Thread.sleep(forTimeInterval: 2 + Double(random.int(0..<2000)) / 1000)
            guard Date() < end else { return terminated }
            let spared = pids.all.map(String.init).joined(separator: ", ")
            let result = try connection.query(PostgresQuery(unsafeSQL: """
                SELECT pg_terminate_backend(pid) FROM pg_stat_activity
                WHERE datname = current_database() AND pid <> pg_backend_pid()\(spared.isEmpty ? "" : " AND pid NOT IN (\(spared))")
                """), logger: TestServer.logger).wait()
            terminated += try result.rows.filter { try $0.decode(Bool.self) }.count
        }
    }

    @Test(arguments: [UInt64(1), 2])
    func threeWritersWhileTheControllersConnectionIsTerminatedEveryFewSeconds(seed: UInt64) async throws {
        let database = try await PostgresItems()
        try await database.insert((0..<40).map { Item(name: "team \($0)", zone: ["A", "B", "C"][$0 % 3], score: $0 % 5) })
        let deadline = 3.0
        let deliveries = Deliveries()
        let controller = ResultsController<Item>(database: PostgresReader(configuration: database.configuration, deadline: .seconds(Int64(deadline))),
                                                 fetchRequest: ResultsRequest(sortDescriptors: zoneScoreName), sectionNameKeyPath: "zone")
        controller.delegate = deliveries
        try controller.performFetch()
        var held = controller.layout

        let seconds = 16.0
        let configuration = database.configuration
        let pids = PidList()
        // The fixture's own connection reads the table at the end: it is spared too.
        for try await pid in try await database.writer.query("SELECT pg_backend_pid()", logger: TestServer.logger).decode(Int32.self) {
            pids.add(pid)
        }
        let writers = (0..<3).map { index in
            OnThread { try Self.write(configuration, seed: seed &* 31 &+ UInt64(index), for: seconds, pids: pids) }
        }
        let terminator = OnThread { try Self.terminate(configuration, for: seconds, sparing: pids, seed: seed) }

        var violations: [String] = []
        var longestLook = Duration.zero
        var failedLooks = 0
        var resets = 0
        func check() {
            for delivery in deliveries.take() {
                if delivery.isReset {
                    resets += 1
                } else {
                    violations += batchViolations(old: held, new: delivery.after, events: delivery.events)
                        .map { "seed \(seed): \($0)\n\(delivery.events)" }
                }
                held = delivery.after
            }
        }
        let end = ContinuousClock.now + .seconds(seconds)
        while ContinuousClock.now < end {
            let start = ContinuousClock.now
            do { try controller.refresh() } catch { failedLooks += 1 }
            longestLook = max(longestLook, ContinuousClock.now - start)
            check()
            try await Task.sleep(for: .milliseconds(30))
        }
        var commits = 0
        for writer in writers { commits += try writer.value() }
        let terminated = try terminator.value()

        // Quiet now: the controller catches up with a fresh read within a few deadlines.
        let fresh = expectedLayout(try await database.allRows())
        let caughtUp = ContinuousClock.now + .seconds(6 * deadline)
        while controller.layout != fresh, ContinuousClock.now < caughtUp {
            let start = ContinuousClock.now
            do { try controller.refresh() } catch { failedLooks += 1 }
            longestLook = max(longestLook, ContinuousClock.now - start)
            check()
            try await Task.sleep(for: .milliseconds(30))
        }
        check()

        #expect(terminated >= 3, "seed \(seed): only \(terminated) of the controller's connections were terminated")
        #expect(commits > 100, "seed \(seed): the writers made only \(commits) commits")
        #expect(violations.isEmpty, "\(violations.prefix(3).joined(separator: "\n"))")
        #expect(longestLook < .seconds(2 * deadline + 2), "seed \(seed): a look waited \(longestLook), past the reader's deadline")
        #expect(controller.layout == fresh, "seed \(seed): after \(commits) commits, \(terminated) terminations, \(resets) resets and \(failedLooks) failed looks\n  ours:  \(controller.layout)\n  fresh: \(fresh)")
        await database.close()
    }
}
