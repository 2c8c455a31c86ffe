import Foundation
import GRDB
@testable import LiveResults
@testable import LiveResultsSQLite
import LiveResultsPostgres
import PostgresNIO
import PostgresSupport
import Synchronization
import Testing
import TestSupport

/// `changes()` on a server's pool: a sequence waiting for a slow statement holds no thread of
/// the pool that iterates it, so the other sequences on that pool keep going.
@Suite struct PostgresCooperativePoolTests {
    /// As many slow statements as the pool has threads: before, each held one of its threads
    /// (the step ran inside `next()`), and together they stalled every other task.
    static let poolThreads = 2
    static let consumers = 100

    @Test("A hundred changes() loops on a two-thread executor keep receiving batches while two fetches wait on a lock")
    func consumersProgressWhileStatementsWait() async throws {
        let database = try await PostgresItems()
        let pool = ThreadPoolExecutor(threads: Self.poolThreads)
        let locker = try await TestServer.connect(database.configuration)
        var tasks: [Task<Void, any Error>] = []
        let slowReaders = (0..<Self.poolThreads).map { _ in PostgresReader(configuration: database.configuration) }
        do {
            try await database.insert(AsyncSequenceTests.items)
            // The slow controllers' predicate waits for an advisory lock the locker holds: their
            // fetch is a statement in flight in the server until the lock is released.
            try await database.run("""
                CREATE FUNCTION gate_open() RETURNS boolean LANGUAGE plpgsql VOLATILE AS $$
                BEGIN PERFORM pg_advisory_xact_lock_shared(4545); RETURN true; END $$
                """)
            try await locker.query("SELECT pg_advisory_lock(4545)", logger: TestServer.logger)
            let expected = try await database.allRows().count

            // Rows each fast consumer's controller showed after its latest element.
            let shown = Counts(Self.consumers)
            for index in 0..<Self.consumers {
                tasks.append(Task(executorPreference: pool) {
                    let controller = database.controller(recorder: nil)
                    for try await _ in controller.changes() {
                        let count = controller.numberOfObjects
                        shown.counts.withLock { $0[index] = count }
                    }
                })
            }
            let started = try await waitUntil(seconds: 60) { shown.counts.withLock { $0.allSatisfy { $0 == expected } } }
            #expect(started, "\(shown.counts.withLock { $0.filter { $0 != expected }.count }) of \(Self.consumers) consumers never showed the first result")

            // The slow consumers: their first step is the fetch that waits on the lock.
            let slowShown = Counts(Self.poolThreads)
            for (index, reader) in slowReaders.enumerated() {
                tasks.append(Task(executorPreference: pool) {
                    let controller = ResultsController<Item>(
                        database: reader, fetchRequest: ResultsRequest(predicate: "gate_open()", sortDescriptors: zoneScoreName),
                        sectionNameKeyPath: "zone")
                    for try await _ in controller.changes() {
                        let count = controller.numberOfObjects
                        slowShown.counts.withLock { $0[index] = count }
                    }
                })
            }
            let waiting = try await waitUntil(seconds: 30) { try await lockWaits(database) == Self.poolThreads }
            try #require(waiting, "the slow fetches never reached the server's lock")

            // Commits while the slow statements wait: every other consumer must show them.
            try await database.insert([Item(name: "marker", zone: "Asia", score: 1, flag: 1),
                                       Item(name: "marker 2", zone: "Zeta", score: 2, flag: 1)])
            let progressed = try await waitUntil(seconds: 20) { shown.counts.withLock { $0.allSatisfy { $0 == expected + 2 } } }
            let stalled = shown.counts.withLock { $0.filter { $0 != expected + 2 }.count }
            #expect(progressed, "\(stalled) of \(Self.consumers) consumers did not show a commit made while \(Self.poolThreads) statements were in flight")
            #expect(slowShown.counts.withLock { $0 } == [Int](repeating: -1, count: Self.poolThreads), "a slow fetch ended while its lock was held")
            #expect(try await lockWaits(database) == Self.poolThreads, "the slow fetches stopped waiting before the lock was released")

            // Released: the slow fetches end with the whole result.
            try await locker.query("SELECT pg_advisory_unlock(4545)", logger: TestServer.logger)
            let slowDone = try await waitUntil(seconds: 30) { slowShown.counts.withLock { $0.allSatisfy { $0 == expected + 2 } } }
            #expect(slowDone, "the slow consumers did not show the result after the lock was released: \(slowShown.counts.withLock { $0 })")
        } catch {
            Issue.record(error)
        }
        try? await locker.query("SELECT pg_advisory_unlock_all()", logger: TestServer.logger)
        for task in tasks { task.cancel() }
        for task in tasks { _ = await task.result }
        pool.shutdown()
        for reader in slowReaders { reader.close() }
        try? await locker.close()
        await database.close()
    }

    /// How many of the test database's backends wait for an advisory lock.
    func lockWaits(_ database: PostgresItems) async throws -> Int {
        let rows = try await database.writer.query("""
            SELECT count(*)::int8 FROM pg_stat_activity
            WHERE datname = current_database() AND wait_event_type = 'Lock' AND wait_event = 'advisory'
            """, logger: TestServer.logger)
        var count = 0
        for try await value in rows.decode(Int64.self) { count = Int(value) }
        return count
    }
}
