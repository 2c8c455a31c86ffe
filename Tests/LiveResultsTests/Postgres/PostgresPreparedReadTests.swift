import Foundation
@testable import LiveResults
import LiveResultsPostgres
import PostgresSupport
import Testing

/// The feed's log read is prepared once per connection: a statement whose result changed type
/// under it fails, and the feed must recover (a refetch, then the read prepared again).
@Suite struct PostgresPreparedReadTests {
    @Test func aKeyColumnThatChangedTypeCostsOneRefetchThenCommitsAreReadFromTheLogAgain() async throws {
        let database = try await PostgresItems(retaining: PostgresChangeLog.defaultRetained)
        do {
            let ids = try await database.insert(PostgresControllerTests.items)
            let recorder = Recorder()
            let controller = database.controller(recorder: recorder)
            try controller.performFetch()
            try controller.refresh() // A read, so the feed has prepared it.
            // The read was prepared with the name as text: now it is varchar, and the server
            // refuses the prepared statement ("cached plan must not change result type").
            try await database.run("ALTER TABLE item ALTER COLUMN name TYPE varchar(100)")
            try await database.run("UPDATE item SET score = score + 3 WHERE id = \(ids[0])")
            try controller.refresh()
            #expect(controller.layout == expectedLayout(try await database.allRows()))
            #expect(controller.refetchCount == 1, "the failed read was caught up by a refetch")
            // Argentina passes Brazil again: read from the log once the feed has connected
            // again and prepared its read for the table as it is now.
            try await database.run("UPDATE item SET score = score + 3 WHERE id = \(ids[1])")
            let expected = expectedLayout(try await database.allRows())
            #expect(try await controller.processChanges(looking: true) { controller.layout == expected })
            #expect(controller.refetchCount == 1, "no refetch once the read is prepared again")
            // One move in each tap's batch (Brazil up; then one of the two past the other). The
            // read after reconnecting may read the first tap's entry again: an update, no move.
            let events = recorder.take()
            #expect(events.filter { if case .row(.move, _, _, _) = $0 { true } else { false } }.count == 2)
        } catch {
            await database.close()
            throw error
        }
        await database.close()
    }
}
