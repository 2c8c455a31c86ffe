import Foundation
@testable import LiveResults
@testable import LiveResultsPostgres
import PostgresNIO
import PostgresSupport
import Testing

/// Rows a commit brings whole reach the controller's record cache: a row being drawn that
/// the controller's own write changed (its answer returns the row) or another connection
/// changed (its notification carries the row) is not read again to be drawn, so drawing
/// never waits for the server after a change.
@Suite struct PostgresRecordCacheTests {
    let writes = PostgresWriteTests()

    /// Reads every row as drawing does (`object(at:)`, which keeps what it loads).
    func drawEveryRow(_ controller: ResultsController<Item>) throws {
        for section in 0..<controller.numberOfSections {
            for row in 0..<controller.numberOfObjects(inSection: section) { _ = try controller.object(at: ip(section, row)) }
        }
    }

    @Test func aRowTheWriteReturnedIsNotReadAgain() async throws {
        try await writes.withItems { database, ids in
            let recorder = Recorder() // the delegate, held weakly
            let controller = database.controller(recorder: recorder)
            controller.changeLogPollInterval = .zero
            try controller.performFetch()
            try drawEveryRow(controller)
            let reads = controller.recordReadCount
            try writes.write(database, "UPDATE item SET score = score + 3, name = 'Brasil' WHERE id = \(ids[0])")
            try controller.processPendingChanges()
            let written = try #require(try await database.allRows()[ids[0]])
            let shown = try controller.object(at: try #require(controller.indexPath(for: ids[0])))
            #expect(shown == written)
            #expect(controller.recordReadCount == reads, "the written row was read again")
            // A row not in memory before is read when it is drawn, as ever.
            try writes.write(database, "UPDATE item SET score = 0 WHERE id = \(ids[1])")
            try controller.processPendingChanges()
            #expect(try controller.fetchedObjects.count == ids.count)
            withExtendedLifetime(recorder) {}
        }
    }

    @Test func aRowAnotherConnectionChangedComesWithItsNotification() async throws {
        try await writes.withItems { database, ids in
            let recorder = Recorder() // the delegate, held weakly
            let controller = database.controller(recorder: recorder)
            try controller.performFetch()
            try controller.refresh()
            // Notifications are applied once the feed has heard one (its probe): a first change.
            try await database.run("UPDATE item SET flag = 2 WHERE id = \(ids[0])")
            #expect(try await controller.processChanges { try writes.feed(database).notifiedOutcomes.withLockedValue { $0.applied } >= 1 })
            try drawEveryRow(controller)
            let reads = controller.recordReadCount
            try await database.run("UPDATE item SET score = 42, name = 'Peru' WHERE id = \(ids[2])")
            let changed = try #require(try await database.allRows()[ids[2]])
            // Its place in the result may not change: the notification's outcome says it came.
            #expect(try await controller.processChanges { try writes.feed(database).notifiedOutcomes.withLockedValue { $0.applied } >= 2 },
                    "applied from the notification")
            try controller.processPendingChanges()
            #expect(controller.layout == expectedLayout(try await database.allRows()))
            let shown = try controller.object(at: try #require(controller.indexPath(for: ids[2])))
            #expect(shown == changed)
            #expect(controller.recordReadCount == reads, "the notified row was read again")
            withExtendedLifetime(recorder) {}
        }
    }
}
