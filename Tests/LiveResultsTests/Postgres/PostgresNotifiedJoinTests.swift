import Foundation
import GRDB
@testable import LiveResults
@testable import LiveResultsSQLite
@testable import LiveResultsPostgres
import PostgresNIO
import PostgresSupport
import Testing

/// A controller sectioned through a related table applies a commit of its main table from the
/// notification that carries it, when it follows the cursor and every row's foreign key names
/// a related row known there; and reads the log in each other case: a key it does not know, a
/// gap, a change of the related table, a transaction that wrote both tables.
@Suite struct PostgresNotifiedJoinTests {
    /// Zones Africa (1), Asia (2), Europe (3), members 1…6, two a zone; a controller of members
    /// sectioned through zones that has fetched, listens and has done its first read.
    func withController(_ body: (PostgresZones, ResultsController<ZonedMember>, BatchRecorder, PostgresChangeFeed) async throws -> Void) async throws {
        let database = try await PostgresJoinTests.seeded()
        do {
            let recorder = BatchRecorder()
            let controller = database.controller(recorder: recorder)
            controller.changeLogPollInterval = .zero
            try controller.performFetch()
            try controller.refresh()
            let feed = try #require(database.database.ownWrites.listeners(under: "member").first)
            // Notifications are applied once the connection's probe is back.
            let deadline = ContinuousClock.now + .seconds(10)
            while feed.notificationsHeard.withLockedValue({ $0 }) != true, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(10))
            }
            _ = recorder.take()
            try await body(database, controller, recorder, feed)
        } catch {
            await database.close()
            throw error
        }
        await database.close()
    }

    /// Runs `statements` (on the writer, in order), waits until the controller shows the fresh
    /// result without looking at the log itself, and checks every batch on the way.
    func change(_ database: PostgresZones, _ controller: ResultsController<ZonedMember>, _ recorder: BatchRecorder, _ statements: String...,
                sourceLocation: SourceLocation = #_sourceLocation) async throws {
        var held = controller.joinedLayout
        for statement in statements { try await database.run(statement) }
        let fresh = expectedJoinedLayout(try await database.members(), try await database.zones())
        let deadline = ContinuousClock.now + .seconds(10)
        while controller.joinedLayout != fresh, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
            try controller.processPendingChanges()
        }
        #expect(controller.joinedLayout == fresh, sourceLocation: sourceLocation)
        for (events, _, after) in recorder.take() {
            let problems = batchViolations(old: held, new: after, events: events)
            #expect(problems.isEmpty, "\(problems)", sourceLocation: sourceLocation)
            #expect(after == fresh, "every batch is the result after a commit", sourceLocation: sourceLocation)
            held = after
        }
        #expect(recorder.resets == 0, sourceLocation: sourceLocation)
    }

    @Test("A member's commit is applied from its notification: a score, a move between known zones, one out of every zone, a delete, an insert; no log read")
    func membersAppliedFromNotifications() async throws {
        try await withController { database, controller, recorder, feed in
            let reads = feed.logReadsBegun
            try await change(database, controller, recorder, "UPDATE member SET score = score + 10 WHERE id = 3")
            try await change(database, controller, recorder, "UPDATE member SET zone_id = 3 WHERE id = 1")
            try await change(database, controller, recorder, "UPDATE member SET zone_id = NULL WHERE id = 2")
            try await change(database, controller, recorder, "BEGIN", "DELETE FROM member WHERE id = 4",
                             "INSERT INTO member (id, name, zone_id, score, flag) VALUES (7, 'm7', 2, 0, 1)", "COMMIT")
            #expect(try await notified(feed) { $0.applied == 4 }, "\(outcomes(feed))")
            #expect(feed.logReadsBegun == reads, "no read of the log")
            #expect(controller.refetchCount == 0)
            // A read now finds those commits' entries and delivers nothing again.
            try controller.refresh()
            #expect(recorder.take().isEmpty)
        }
    }

    @Test("A member moved to a zone the feed does not know is read from the log (the zone may be the commit's own)")
    func unknownZoneIsReadFromTheLog() async throws {
        try await withController { database, controller, recorder, feed in
            let reads = feed.logReadsBegun
            try await change(database, controller, recorder, "UPDATE member SET zone_id = 42 WHERE id = 1")
            #expect(try await notified(feed) { $0.unknownRelated == 1 }, "\(outcomes(feed))")
            #expect(feed.logReadsBegun > reads)
            // The read moved the cursor on: the next commit is applied again.
            try await change(database, controller, recorder, "UPDATE member SET score = 0 WHERE id = 6")
            #expect(try await notified(feed) { $0.applied == 1 }, "\(outcomes(feed))")
        }
    }

    @Test("A gap in positions (a transaction that rolled back) is read from the log")
    func gapIsReadFromTheLog() async throws {
        try await withController { database, controller, recorder, feed in
            try await database.run("BEGIN", "UPDATE member SET score = 99 WHERE id = 1", "ROLLBACK")
            let reads = feed.logReadsBegun
            try await change(database, controller, recorder, "UPDATE member SET score = score + 1 WHERE id = 2")
            #expect(try await notified(feed) { $0.gap == 1 }, "\(outcomes(feed))")
            #expect(feed.logReadsBegun > reads)
            #expect(outcomes(feed).applied == 0)
        }
    }

    @Test("A zone renamed, made, or deleted is read from the log; so is a transaction that wrote members, then zones")
    func relatedChangesAreReadFromTheLog() async throws {
        try await withController { database, controller, recorder, feed in
            var reads = feed.logReadsBegun
            try await change(database, controller, recorder, "UPDATE zone SET name = 'CAF' WHERE id = 1")
            #expect(try await notified(feed) { $0.relatedChange == 1 }, "\(outcomes(feed))")
            #expect(feed.logReadsBegun > reads)
            // A zone made: the read brings its key, and a member moved into it next is applied.
            try await change(database, controller, recorder, "INSERT INTO zone (id, name, position) VALUES (4, 'Oceania', 3)")
            #expect(try await notified(feed) { $0.relatedChange == 2 }, "\(outcomes(feed))")
            reads = feed.logReadsBegun
            try await change(database, controller, recorder, "UPDATE member SET zone_id = 4 WHERE id = 5")
            #expect(try await notified(feed) { $0.applied == 1 }, "\(outcomes(feed))")
            #expect(feed.logReadsBegun == reads)
            // The members' entries come first, and their notification first: it must not be applied
            // alone (member 1 would join Asia, which the same commit deletes).
            try await change(database, controller, recorder, "BEGIN", "UPDATE member SET zone_id = 2 WHERE id = 1", "DELETE FROM zone WHERE id = 2", "COMMIT")
            // Read from the log (a writer silent past its verdict's time is a stranger again,
            // which is read from the log too: a loaded machine may take that long).
            #expect(try await notified(feed) { $0.relatedChange + $0.untrusted >= 3 }, "\(outcomes(feed))")
            #expect(outcomes(feed).applied == 1)
        }
    }

    @Test("A member applied from its notification, whose zone then goes: the log's read takes it out with the others")
    func appliedMemberLeavesWithItsZone() async throws {
        try await withController { database, controller, recorder, feed in
            try await change(database, controller, recorder, "UPDATE member SET score = score + 10 WHERE id = 3")
            #expect(try await notified(feed) { $0.applied == 1 }, "\(outcomes(feed))")
            try await change(database, controller, recorder, "DELETE FROM zone WHERE id = 2")
            #expect(!controller.joinedLayout.contains { $0.identifier == "2" })
        }
    }
}
