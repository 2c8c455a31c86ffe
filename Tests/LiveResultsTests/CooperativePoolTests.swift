import Foundation
import GRDB
@testable import LiveResults
@testable import LiveResultsSQLite
import Synchronization
import Testing
import TestSupport

/// `changes()` on a server's pool, over SQLite: a sequence whose read waits for a lock holds no
/// thread of the pool that iterates it, so the other sequences on that pool keep going.
@Suite struct CooperativePoolTests {
    /// As many slow reads as the pool has threads: before, each held one of its threads (the
    /// step ran inside `next()`), and together they stalled every other task.
    static let poolThreads = 2
    static let consumers = 100

    @Test("A hundred changes() loops on a two-thread executor keep receiving batches while two fetches wait for a file's lock")
    func consumersProgressWhileReadsWait() async throws {
        let folder = try makeTemporaryFolder()
        let fast = try makeItemDatabase(configuration: fileConfiguration, file: folder.appendingPathComponent("fast.sqlite"))
        try insertItems(AsyncSequenceTests.items, into: fast)
        // The slow file, in rollback-journal mode: a transaction holding its EXCLUSIVE lock keeps
        // every reader out, and the readers' busy timeout makes their fetch wait for it.
        let slowFile = folder.appendingPathComponent("slow.sqlite")
        try insertItems(AsyncSequenceTests.items, into: makeItemDatabase(configuration: fileConfiguration, file: slowFile))
        var slowConfiguration = fileConfiguration
        slowConfiguration.busyMode = .timeout(120)
        let slowDatabases = try (0..<Self.poolThreads).map { _ in try DatabaseQueue(path: slowFile.path, configuration: slowConfiguration) }
        let locker = try DatabaseQueue(path: slowFile.path, configuration: fileConfiguration)
        let locked = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let lockHolder = Thread {
            try? locker.inTransaction(.exclusive) { _ in
                locked.signal()
                release.wait()
                return .commit
            }
        }
        lockHolder.start()
        locked.wait()
        var released = false
        let pool = ThreadPoolExecutor(threads: Self.poolThreads)
        var tasks: [Task<Void, any Error>] = []
        do {
            let expected = AsyncSequenceTests.items.count
            // Rows each fast consumer's controller showed after its latest element.
            let shown = Counts(Self.consumers)
            for index in 0..<Self.consumers {
                tasks.append(Task(executorPreference: pool) {
                    let controller = ResultsController<Item>(database: fast, fetchRequest: ResultsRequest(sortDescriptors: zoneScoreName),
                                                             sectionNameKeyPath: "zone")
                    for try await _ in controller.changes() {
                        let count = controller.numberOfObjects
                        shown.counts.withLock { $0[index] = count }
                    }
                })
            }
            let started = try await waitUntil(seconds: 60) { shown.counts.withLock { $0.allSatisfy { $0 == expected } } }
            #expect(started, "\(shown.counts.withLock { $0.filter { $0 != expected }.count }) of \(Self.consumers) consumers never showed the first result")

            // The slow consumers: their first step is the fetch that waits for the lock.
            let slowShown = Counts(Self.poolThreads)
            for (index, database) in slowDatabases.enumerated() {
                tasks.append(Task(executorPreference: pool) {
                    let controller = ResultsController<Item>(database: database, fetchRequest: ResultsRequest(sortDescriptors: zoneScoreName),
                                                             sectionNameKeyPath: "zone")
                    for try await _ in controller.changes() {
                        let count = controller.numberOfObjects
                        slowShown.counts.withLock { $0[index] = count }
                    }
                })
            }
            try await Task.sleep(for: .milliseconds(500)) // the slow fetches reach the lock

            // Commits while the slow reads wait: every other consumer must show them.
            try insertItems([Item(name: "marker", zone: "Asia", score: 1), Item(name: "marker 2", zone: "Zeta", score: 2)], into: fast)
            let progressed = try await waitUntil(seconds: 20) { shown.counts.withLock { $0.allSatisfy { $0 == expected + 2 } } }
            let stalled = shown.counts.withLock { $0.filter { $0 != expected + 2 }.count }
            #expect(progressed, "\(stalled) of \(Self.consumers) consumers did not show a commit made while \(Self.poolThreads) reads waited")
            #expect(slowShown.counts.withLock { $0 } == [Int](repeating: -1, count: Self.poolThreads), "a slow fetch ended while the lock was held")

            // Released: the slow fetches end with the whole result.
            release.signal()
            released = true
            let slowDone = try await waitUntil(seconds: 30) { slowShown.counts.withLock { $0.allSatisfy { $0 == expected } } }
            #expect(slowDone, "the slow consumers did not show the result after the lock was released: \(slowShown.counts.withLock { $0 })")
        } catch {
            Issue.record(error)
        }
        if !released { release.signal() }
        for task in tasks { task.cancel() }
        for task in tasks { _ = await task.result }
        pool.shutdown()
    }
}

/// Polls `condition` until it holds or `seconds` pass; whether it held.
func waitUntil(seconds: Double, _ condition: () async throws -> Bool) async throws -> Bool {
    let deadline = ContinuousClock.now + .seconds(seconds)
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        try await Task.sleep(for: .milliseconds(20))
    }
    return try await condition()
}

/// The rows each consumer's controller showed after its latest element (-1: none yet).
final class Counts: Sendable {
    let counts: Mutex<[Int]>
    init(_ consumers: Int) { counts = Mutex([Int](repeating: -1, count: consumers)) }
}
