import Foundation
import GRDB
@testable import LiveResults
@testable import LiveResultsSQLite
@testable import LiveResultsPostgres
import PostgresNIO
import PostgresSupport
import Testing

// The cases of sections through a related table that a strict consumer found on SQLite, on
// PostgreSQL's joined feed: this process's write after another connection's commit, both
// changing zones (each read at its own commit, or as one change); an order-only zone change
// (a section update, rule 11); an unchanged zone never reported moved (rule 12).

@Suite struct PostgresRelatedRulesTests {
    /// Zones A (10), B (20); members a (zone 1), b (zone 2), one point each.
    static func twoZones() async throws -> PostgresZones {
        let database = try await PostgresZones()
        try await database.run(
            "INSERT INTO zone (id, name, position) VALUES (1, 'A', 10), (2, 'B', 20)",
            "INSERT INTO member (id, name, zone_id, score, flag) VALUES (1, 'a', 1, 1, 1), (2, 'b', 2, 1, 1)")
        return database
    }

    /// Commits `other` on a connection whose writes are not handed over, then `ours` through
    /// `PostgresWriter` (handed over to the controller at once), and checks every batch until
    /// the controller shows the fresh result.
    static func check(other: String, ours: PostgresWrite, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let database = try await twoZones()
        let connection = try await TestServer.connect(database.configuration)
        do {
            let recorder = BatchRecorder()
            let controller = database.controller(recorder: recorder)
            controller.changeLogPollInterval = .zero
            try controller.performFetch()
            var held = controller.joinedLayout
            try await database.run(other)
            _ = try PostgresWriter(handingOverTo: database.database).write(ours, on: connection)
            try controller.processPendingChanges()
            let fresh = expectedJoinedLayout(try await database.members(), try await database.zones())
            try await controller.processJoinedChanges { controller.joinedLayout == fresh }
            #expect(controller.joinedLayout == fresh, sourceLocation: sourceLocation)
            for (events, _, after) in recorder.take() {
                let problems = batchViolations(old: held, new: after, events: events)
                #expect(problems.isEmpty, "\(problems)\n\(events)", sourceLocation: sourceLocation)
                held = after
            }
            #expect(held == fresh, sourceLocation: sourceLocation)
            #expect(recorder.resets == 0, sourceLocation: sourceLocation)
        } catch {
            Issue.record(error, sourceLocation: sourceLocation)
        }
        try? await connection.close()
        await database.close()
    }

    @Test("Another connection renames a zone; this process's write empties it into another and deletes it")
    func renameThenMerge() async throws {
        try await Self.check(other: "UPDATE zone SET name = 'B2' WHERE id = 2", ours: PostgresWrite(
            table: "zone", "WITH moved AS (UPDATE member SET zone_id = 1 WHERE zone_id = 2) DELETE FROM zone WHERE id = 2", deletes: true))
    }

    @Test("Another connection moves a zone; this process's write deletes it with its members")
    func moveThenDelete() async throws {
        try await Self.check(other: "UPDATE zone SET position = 5 WHERE id = 2", ours: PostgresWrite(
            table: "zone", "WITH gone AS (DELETE FROM member WHERE zone_id = 2) DELETE FROM zone WHERE id = 2", deletes: true))
    }

    @Test("Another connection renames a zone; this process's write moves its members out")
    func renameThenEmpty() async throws {
        try await Self.check(other: "UPDATE zone SET name = 'B2' WHERE id = 2",
                             ours: PostgresWrite(table: "member", "UPDATE member SET zone_id = 1 WHERE zone_id = 2"))
    }

    @Test("A zone whose position changes while its section keeps its place is a section update (rule 11)")
    func orderOnlyChange() async throws {
        let database = try await PostgresJoinTests.seeded()
        defer { Task { await database.close() } }
        let recorder = BatchRecorder()
        let controller = database.controller(recorder: recorder)
        controller.changeLogPollInterval = .zero
        try controller.performFetch()
        let before = controller.joinedLayout
        try await database.run("UPDATE zone SET position = 10 WHERE id = 3")
        // The result looks the same after it: wait for the batch, not for the result.
        var recorded = recorder.take()
        let deadline = ContinuousClock.now + .seconds(10)
        while recorded.isEmpty, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
            try controller.refresh()
            recorded = recorder.take()
        }
        try #require(recorded.count == 1, "one batch, not \(recorded.count)")
        #expect(recorded[0].batch.sectionChanges == [SectionChange(kind: .update, index: 2, newIndex: 2, name: "Europe", identifier: "3")])
        #expect(recorded[0].batch.rowChanges.isEmpty)
        #expect(batchViolations(old: before, new: controller.joinedLayout, events: recorded[0].events, changedSections: ["3"]).isEmpty)
        #expect(controller.joinedLayout == before)
    }

    @Test("Two zones sent past an unchanged one: the two move, never the unchanged one (rule 12)")
    func unchangedZoneStays() async throws {
        let database = try await PostgresJoinTests.seeded()
        defer { Task { await database.close() } }
        // Africa 0 -> 5, Asia 1 -> 6; Europe keeps 2.
        let (batch, _, _) = try await PostgresJoinTests.change(database, "UPDATE zone SET position = position + 5 WHERE id IN (1, 2)")
        #expect(batch.sectionChanges == [SectionChange(kind: .move, index: 0, newIndex: 1, name: "Africa", identifier: "1"),
                                         SectionChange(kind: .move, index: 1, newIndex: 2, name: "Asia", identifier: "2")])
        #expect(batch.rowChanges.isEmpty)
    }
}
