import Foundation
import GRDB
@testable import LiveResults
@testable import LiveResultsSQLite
@testable import LiveResultsPostgres
import PostgresNIO
import PostgresSupport
import Testing

/// `PostgresWriter.write`: the controllers of this process learn of its commit from the
/// statement's own answer, the log confirms it later without repeating or undoing it, and
/// everyone else still learns of it from the log.
@Suite struct PostgresWriteTests {
    /// Runs `body` with a fresh database holding the controller tests' items.
    func withItems(_ body: (PostgresItems, [Int64]) async throws -> Void) async throws {
        let database = try await PostgresItems()
        do {
            try await body(database, try await database.insert(PostgresControllerTests.items))
        } catch {
            await database.close()
            throw error
        }
        await database.close()
    }

    /// A write of `sql` on `item` through the controller's reader, on the items' writer.
    @discardableResult
    func write(_ database: PostgresItems, _ sql: String, returning: String = "", deletes: Bool = false,
               beforeHandOff: () throws -> Void = {}) throws -> [PostgresRow] {
        try PostgresWriter(handingOverTo: database.database).write(PostgresWrite(table: "item", PostgresQuery(unsafeSQL: sql), returning: returning, deletes: deletes),
                                    on: database.writer, beforeHandOff: beforeHandOff)
    }

    @Test func theWritersOwnCommitIsPendingWhenTheWriteReturnsAndTheLogDoesNotRepeatIt() async throws {
        try await withItems { database, ids in
            let recorder = Recorder()
            let controller = database.controller(recorder: recorder)
            controller.changeLogPollInterval = .zero
            try controller.performFetch()
            // Brazil (3) passes Argentina (5).
            let rows = try write(database, "UPDATE item SET score = score + 3 WHERE id = \(ids[0])", returning: "score, name")
            #expect(try rows.map { try $0.decode((Int32, String).self) }.map { "\($0.1) \($0.0)" } == ["Brazil 6"], "the caller's columns come first")
            try controller.processPendingChanges()
            #expect(recorder.take() == [.willChange, .row(.move, id: ids[0], from: ip(2, 1), to: ip(2, 0)), .didChange],
                    "no wait for the notification")
            // A log read that starts now reads the write's entry: nothing new.
            try controller.refresh()
            #expect(recorder.take() == [], "the log's entry of the write is not delivered again")
            #expect(controller.layout == expectedLayout(try await database.allRows()))
            // The next write of the same row, sent after the first was handed over, is newer.
            try write(database, "UPDATE item SET score = 0 WHERE id = \(ids[0])")
            try controller.processPendingChanges()
            #expect(recorder.take() == [.willChange, .row(.move, id: ids[0], from: ip(2, 0), to: ip(2, 1)), .didChange])
            try controller.refresh()
            #expect(recorder.take() == [])
            #expect(controller.layout == expectedLayout(try await database.allRows()))
            #expect(controller.refetchCount == 0)
        }
    }

    /// The feed of the reader's one controller over `item`.
    func feed(_ database: PostgresItems) throws -> PostgresChangeFeed {
        try #require(database.database.ownWrites.listeners(under: "item").first)
    }

    @Test func theNotificationOfAHandedOverWriteAsksForNoReadAtOnce() async throws {
        try await withItems { database, ids in
            let recorder = Recorder()
            let controller = database.controller(recorder: recorder)
            // The log is read anyway two poll intervals after an own write's notification: not
            // within this test.
            controller.changeLogPollInterval = .seconds(120)
            try controller.performFetch()
            try controller.refresh()
            let readsBefore = try feed(database).logReadsBegun
            for step in 0..<12 {
                try write(database, "UPDATE item SET score = score + 1 WHERE id = \(ids[step % ids.count])")
                try controller.processPendingChanges()
                #expect(recorder.take().first == .willChange, "step \(step) was handed over")
            }
            // Every notification has come by now (each follows its commit by well under this).
            try await Task.sleep(for: .milliseconds(300))
            #expect(try feed(database).logReadsBegun == readsBefore, "no log read for the process's own writes")
            #expect(controller.layout == expectedLayout(try await database.allRows()))
            // Another process's write comes at once, from its notification.
            try await database.run("UPDATE item SET score = 0 WHERE id = \(ids[1])")
            #expect(try await controller.processChanges { controller.layout == expectedLayout(try await database.allRows()) })
            #expect(try feed(database).notifiedOutcomes.withLockedValue { $0.applied } >= 1)
            try controller.refresh()
            _ = recorder.take()
            #expect(controller.refetchCount == 0)
        }
    }

    @Test func rowsTheWriteDidNotReturnComeFromTheLogSoonAfter() async throws {
        try await withItems { database, ids in
            let recorder = Recorder()
            let controller = database.controller(recorder: recorder)
            controller.changeLogPollInterval = .milliseconds(20)
            try controller.performFetch()
            // The WITH changes Argentina too; RETURNING names Brazil only.
            try write(database, """
                WITH other AS (UPDATE item SET score = 0 WHERE id = \(ids[1]) RETURNING id)
                UPDATE item SET score = 9 WHERE id = \(ids[0])
                """)
            // The returned row first, in a batch of its own, and the other from the log in a later
            // one; or, when the log read had already come back with both rows before the hand-over
            // was applied (a busy machine), the whole transaction in one batch.
            try controller.processPendingChanges()
            let logRowCame = { recorder.events.contains { event in
                if case .row(_, ids[1], _, _) = event { return true } else { return false }
            } }
            #expect(try await controller.processChanges { logRowCame() })
            let returnedFirst: [Recorder.Event] = [
                .willChange, .row(.move, id: ids[0], from: ip(2, 1), to: ip(2, 0)), .didChange,
                .willChange, .row(.update, id: ids[1], from: ip(2, 1), to: ip(2, 1)), .didChange,
            ]
            let oneBatch: [Recorder.Event] = [
                .willChange, .row(.move, id: ids[1], from: ip(2, 0), to: ip(2, 1)),
                .row(.update, id: ids[0], from: ip(2, 1), to: ip(2, 0)), .didChange,
            ]
            let events = recorder.take()
            #expect(events == returnedFirst || events == oneBatch, "\(events)")
            #expect(controller.layout == expectedLayout(try await database.allRows()))
            try controller.refresh()
            #expect(recorder.take() == [])
        }
    }

    @Test func aLogReadThatOvertookTheHandOverKeepsItsNewerKeys() async throws {
        try await withItems { database, ids in
            let recorder = Recorder()
            let controller = database.controller(recorder: recorder)
            controller.changeLogPollInterval = .zero
            try controller.performFetch()
            let other = try await TestServer.connect(database.configuration)
            // The write moves Brazil to the top; before its hand-over, another connection puts
            // it back, and the feed reads both commits from the log.
            try write(database, "UPDATE item SET score = 10 WHERE id = \(ids[0])") {
                _ = try other.query("UPDATE item SET score = 0 WHERE id = \(ids[0])", logger: TestServer.logger).wait()
                try controller.refresh()
            }
            _ = recorder.take()
            try controller.processPendingChanges()
            #expect(recorder.take() == [], "the write's own keys, older than the log's, are dropped")
            #expect(controller.layout == expectedLayout(try await database.allRows()))
            #expect(controller.layout.last?.ids == [ids[1], ids[0]])
            try await other.close()
        }
    }

    @Test func aDataModifyingCommonTableExpressionAndADeleteAreHandedOver() async throws {
        try await withItems { database, ids in
            try await database.run("CREATE TABLE note (id uuid PRIMARY KEY, item bigint NOT NULL)")
            let recorder = Recorder()
            let controller = database.controller(recorder: recorder)
            controller.changeLogPollInterval = .zero
            try controller.performFetch()
            // The shape of the app's tap: the note and the change in one statement, at most once.
            let note = UUID()
            let tap = """
                WITH noted AS (INSERT INTO note (id, item) VALUES ('\(note)', \(ids[4])) ON CONFLICT (id) DO NOTHING RETURNING item)
                UPDATE item SET score = score + 1 FROM noted WHERE item.id = noted.item
                """
            #expect(try write(database, tap, returning: "item.score").map { try $0.decode(Int32.self) } == [2])
            try controller.processPendingChanges()
            #expect(recorder.take() == [.willChange, .row(.update, id: ids[4], from: ip(0, 0), to: ip(0, 0)), .didChange])
            #expect(try write(database, tap, returning: "item.score").isEmpty, "the same note again changes nothing")
            try write(database, "DELETE FROM item WHERE id = \(ids[4])", deletes: true)
            try controller.processPendingChanges()
            #expect(recorder.take() == [.willChange, .section(.delete, index: 0, name: "Asia", count: 0),
                                        .row(.delete, id: ids[4], from: ip(0, 0), to: nil), .didChange])
            try controller.refresh()
            #expect(recorder.take() == [])
            #expect(controller.layout == expectedLayout(try await database.allRows()))
        }
    }

    @Test func aFailedWriteHandsNothingOver() async throws {
        try await withItems { database, ids in
            let recorder = Recorder()
            let controller = database.controller(recorder: recorder)
            controller.changeLogPollInterval = .zero
            try controller.performFetch()
            try await database.run("UPDATE item SET code = 'taken' WHERE id = \(ids[2])")
            try controller.refresh()
            _ = recorder.take()
            // Refused by the server.
            #expect(throws: (any Error).self) {
                try write(database, "UPDATE item SET score = 9, code = 'taken' WHERE id = \(ids[0])")
            }
            // The connection dropped mid-statement.
            let doomed = try await TestServer.connect(database.configuration)
            #expect(throws: (any Error).self) {
                try PostgresWriter(handingOverTo: database.database).write(PostgresWrite(table: "item", """
                    UPDATE item SET score = 9 WHERE id = \(ids[0]) AND pg_terminate_backend(pg_backend_pid())
                    """), on: doomed)
            }
            try controller.processPendingChanges()
            #expect(recorder.take() == [], "nothing was handed over")
            try controller.refresh()
            #expect(recorder.take() == [], "nothing committed")
            #expect(controller.layout == expectedLayout(try await database.allRows()))
            // The client notices the server's end of the connection a moment after the error.
            let deadline = ContinuousClock.now + .seconds(5)
            while !doomed.isClosed, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
            #expect(doomed.isClosed)
        }
    }

    @Test func aWriteWhoseCommitFailsAfterItsStatementWasAnsweredIsAFailureAndHandsNothingOver() async throws {
        try await withItems { database, ids in
            // A check the server makes at the commit, after the statement's answer has gone out.
            try await database.run("""
                CREATE FUNCTION refuse_99() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN IF NEW.score = 99 THEN RAISE EXCEPTION 'no score of 99'; END IF; RETURN NULL; END $$
                """, """
                CREATE CONSTRAINT TRIGGER refuse_99 AFTER UPDATE ON item DEFERRABLE INITIALLY DEFERRED
                FOR EACH ROW EXECUTE FUNCTION refuse_99()
                """)
            let recorder = Recorder()
            let controller = database.controller(recorder: recorder)
            controller.changeLogPollInterval = .zero
            try controller.performFetch()
            let before = try await database.allRows()
            let doomed = try await TestServer.connect(database.configuration)
            #expect(throws: (any Error).self, "the statement was answered, but never committed") {
                try PostgresWriter(handingOverTo: database.database).write(PostgresWrite(table: "item", """
                    UPDATE item SET score = 99 WHERE id = \(ids[0])
                    """, returning: "score"), on: doomed)
            }
            #expect(try await database.allRows() == before)
            try controller.processPendingChanges()
            #expect(recorder.take() == [], "nothing was handed over")
            try? await doomed.close()
        }
    }

    @Test func everyControllerOfTheReaderGetsItsRowsAndOtherReadersReadTheLog() async throws {
        try await withItems { database, ids in
            let (all, matching, elsewhere) = (Recorder(), Recorder(), Recorder())
            let plain = database.controller(recorder: all)
            let flagged = database.controller(predicate: "flag = \(1) AND score < \(9)", recorder: matching)
            // Another process: a reader of its own, which no write of this one knows.
            let otherReader = PostgresReader(configuration: database.configuration)
            defer { otherReader.close() }
            let other = ResultsController<Item>(database: otherReader, fetchRequest: ResultsRequest(sortDescriptors: zoneScoreName),
                                                sectionNameKeyPath: "zone")
            other.delegate = elsewhere
            for controller in [plain, flagged, other] {
                controller.changeLogPollInterval = .zero
                try controller.performFetch()
            }
            // France (4, Europe) goes to 9: first in Europe for all, out of the flagged result.
            try write(database, "UPDATE item SET score = 9 WHERE id = \(ids[2])")
            try plain.processPendingChanges()
            try flagged.processPendingChanges()
            #expect(all.take() == [.willChange, .row(.update, id: ids[2], from: ip(1, 0), to: ip(1, 0)), .didChange])
            #expect(matching.take() == [.willChange, .section(.delete, index: 1, name: "Europe", count: 0),
                                        .row(.delete, id: ids[2], from: ip(1, 0), to: nil), .didChange])
            try other.refresh()
            #expect(elsewhere.take() == [.willChange, .row(.update, id: ids[2], from: ip(1, 0), to: ip(1, 0)), .didChange])
            let rows = try await database.allRows()
            #expect(plain.layout == expectedLayout(rows))
            #expect(flagged.layout == expectedLayout(rows, matching: { $0.flag == 1 && $0.score < 9 }))
            #expect(other.layout == expectedLayout(rows))
            try plain.refresh()
            try flagged.refresh()
            #expect(all.take() == [] && matching.take() == [], "the log does not repeat the write")
        }
    }
}
