import Foundation
import GRDB
@testable import LiveResults
@testable import LiveResultsPostgres
import PostgresSupport
import Synchronization
import Testing
import TestSupport

/// A live query whose values are `Equatable` reports only what changes what its subscribers
/// hold (rule 6): an UPDATE that writes the values rows have, or changes a column the value
/// leaves out, makes no version, whichever way the controller heard of it. On each store the
/// commits below reach the controller as updates (the SQLite connection's own writes without a
/// change log; PostgreSQL's writes handed over by `PostgresWriter`, which are reported as
/// written, and another connection's change of a column the value leaves out).
@Suite struct LiveQueryUnchangedUpdateTests {
    @Test("On SQLite, UPDATEs that change no value make no version: the next batch is the one real change")
    func sqlite() async throws {
        let database = try makeItemDatabase()
        let ids = try insertItems(AsyncSequenceTests.items, into: database)
        let controller = ResultsController<Item>(database: database, fetchRequest: ResultsRequest(sortDescriptors: zoneScoreName),
                                                 sectionNameKeyPath: "zone")
        let query = try await LiveQuery(controller) { $0.name ?? "" }
        let ghana = ids[2] // Ghana
        try await Self.expectOnlyTheRealChange(query, of: ghana, to: "Ghana!", writes: [
            { try await database.write { try $0.execute(sql: "UPDATE item SET score = score, name = name") } },
            { try await database.write { try $0.execute(sql: "UPDATE item SET flag = flag + 1") } },
            { try await database.write { try $0.execute(sql: "UPDATE item SET name = 'Ghana!' WHERE id = \(ghana)") } },
        ])
    }

    @Test("On PostgreSQL, a handed-over UPDATE that writes the values rows have and another's change of a column the value leaves out make no version")
    func postgres() async throws {
        try await PostgresWriteTests().withItems { database, ids in
            let controller = database.controller(recorder: nil)
            let query = try await LiveQuery(controller) { $0.name ?? "" }
            let japan = ids[4]
            try await Self.expectOnlyTheRealChange(query, of: japan, to: "Japan!", writes: [
                { _ = try PostgresWriteTests().write(database, "UPDATE item SET score = score") },
                { try await database.run("UPDATE item SET flag = flag + 1") },
                { try await database.run("UPDATE item SET name = 'Japan!' WHERE id = \(japan)") },
            ])
        }
    }

    /// Runs `writes` one after the other, each taken by the query before the next, and expects
    /// a subscriber at version 0 to get one batch, to version 1, updating `id` to `name` alone.
    static func expectOnlyTheRealChange(_ query: LiveQuery<Item, String>, of id: RecordID, to name: String,
                                        writes: [() async throws -> Void]) async throws {
        let loop = Task { try await query.run() }
        var subscriber = query.subscribe().makeAsyncIterator()
        #expect(try await subscriber.next()?.version == 0)
        let seen = StepsSeen()
        await query.observeSteps { version, _ in seen.last.withLock { $0 = version } }
        for write in writes {
            try await write()
            // Most often a step of its own (commits the loop had not taken yet come as one
            // batch, which must then hold the real change alone).
            try await Task.sleep(for: .milliseconds(100))
        }
        guard case .batch(let batch)? = try await subscriber.next() else {
            Issue.record("no batch")
            loop.cancel()
            return
        }
        #expect((batch.previousVersion, batch.version) == (0, 1))
        #expect(batch.changes.rowChanges.map(\.kind) == [.update])
        #expect(batch.changes.rowChanges.map(\.id) == [id])
        #expect(batch.values == [id: name])
        #expect(seen.last.withLock { $0 } == 1, "only the real change made a version")
        loop.cancel()
        _ = try? await loop.value
    }
}

/// The last step a live query's step observer saw.
final class StepsSeen: Sendable {
    let last = Mutex(0)
}
