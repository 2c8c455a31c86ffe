import Foundation
import GRDB
@testable import LiveResults
import Synchronization
import Testing
import TestSupport

/// One subscriber of a thousand stops reading (a browser that went silent): what the query
/// keeps for it stays bounded (the steps of `maximumLag`, then nothing: it is due a snapshot),
/// and the others take every step, each as its own batch, as if it were not there.
@Suite struct LiveQueryStallTests {
    @Test("One stalled subscriber of a thousand: its backlog stays within maximumLag, the others get every batch, it gets the board again")
    func oneStalledOfAThousand() async throws {
        let database = try makeItemDatabase()
        try insertItems(AsyncSequenceTests.items, into: database)
        let controller = ResultsController<Item>(database: database, fetchRequest: ResultsRequest(sortDescriptors: zoneScoreName),
                                                 sectionNameKeyPath: "zone")
        let lag = 8
        // The score in the value: a tap changes what subscribers hold, so each makes a version.
        let query = try await LiveQuery(controller, maximumLag: lag) { "\($0.name ?? "") \($0.score)" }
        let loop = Task { try await query.run() }
        var stalled = query.subscribe().makeAsyncIterator()
        #expect(try await stalled.next()?.version == 0)

        let others = 999
        let report = StallReport()
        var tasks: [Task<Void, Never>] = []
        for n in 0..<others {
            let subscription = query.subscribe()
            tasks.append(Task { [report] in
                        var last: Int?
                do {
                    for try await update in subscription {
                        switch update {
                        case .snapshot(let snapshot) where last == nil: last = snapshot.version
                        case .batch(let batch) where batch.previousVersion == last && batch.version == batch.previousVersion + 1:
                            last = batch.version
                        default:
                            report.problems.withLock { $0.append("subscriber \(n) after version \(last ?? -1) took \(update.version), not the next step alone") }
                            return
                        }
                        report.reached.withLock { $0[update.version, default: 0] += 1 }
                    }
                } catch {
                    report.problems.withLock { $0.append("subscriber \(n): \(error)") }
                }
            })
        }

        let rounds = 3 * lag
        var mostSteps = 0
        var mostResults = 0
        for round in 0...rounds {
            if round > 0 {
                try await database.write { try $0.execute(sql: "UPDATE item SET score = score + 1 WHERE name = 'Ghana'") }
            }
            // Every other subscriber took this version before the next commit: each step is its own.
            let deadline = ContinuousClock.now + .seconds(60)
            while query.hub.version < round || report.reached.withLock({ $0[round] ?? 0 }) < others {
                guard ContinuousClock.now < deadline, report.problems.withLock({ $0.isEmpty }) else {
                    Issue.record("round \(round): \(report.reached.withLock { $0[round] ?? 0 }) of \(others) took it; \(report.problems.withLock { $0.prefix(3) })")
                    loop.cancel()
                    for task in tasks { task.cancel() }
                    return
                }
                try await Task.sleep(for: .milliseconds(2))
            }
            let retained = query.hub.retained
            mostSteps = max(mostSteps, retained.steps)
            mostResults = max(mostResults, retained.layouts)
        }
        #expect(query.hub.version == rounds)
        #expect(mostSteps <= lag, "the stalled subscriber's backlog: at most maximumLag steps")
        #expect(mostResults <= 3, "the results kept: the stalled one's (until it is dropped), the others', the current")
        #expect(report.problems.withLock { $0 }.isEmpty, "\(report.problems.withLock { $0.prefix(5) })")
        // Far behind: it gets the board at the version now, not the steps it missed.
        guard case .snapshot(let snapshot)? = try await stalled.next() else {
            Issue.record("the stalled subscriber got no snapshot")
            return
        }
        #expect(snapshot.version == rounds)
        loop.cancel()
        try await loop.value
        for task in tasks { await task.value }
    }
}

/// What the thousand subscribers of `LiveQueryStallTests` report.
final class StallReport: Sendable {
    /// How many of them took each version.
    let reached = Mutex<[Int: Int]>([:])
    let problems = Mutex<[String]>([])
}
