import Foundation
@testable import LiveResults
@testable import LiveResultsPostgres
import PostgresNIO
import PostgresSupport
import Testing

/// An UPDATE that writes the values rows already have changed no data (rule 6): the change
/// log records nothing and no controller hears of it; a write handed over by
/// `PostgresWriter` is still logged, so its feeds' bookkeeping stays whole, but its answer
/// says which rows it wrote as they were, and they are not reported either.
@Suite struct PostgresUnchangedUpdateTests {
    @Test func anUpdateThatChangesNoValueReportsNothing() async throws {
        try await PostgresWriteTests().withItems { database, ids in
            let recorder = Recorder()
            let controller = database.controller(recorder: recorder)
            try controller.performFetch()
            let before = try await Self.logPosition(database)
            try await database.run("UPDATE item SET score = score, name = name")
            try await database.run("UPDATE item SET flag = 7 WHERE id = \(ids[4])")
            #expect(try await controller.processChanges(looking: true) { !recorder.events.isEmpty })
            #expect(recorder.take() == [.willChange, .row(.update, id: ids[4], from: ip(0, 0), to: ip(0, 0)), .didChange])
            #expect(try await Self.logPosition(database) == before + 1, "the log recorded only the row that changed")
        }
    }

    @Test func aHandedOverWriteThatChangesNoValueReportsNothingAndTheNextCommitIsNotLost() async throws {
        try await PostgresWriteTests().withItems { database, ids in
            let recorder = Recorder()
            let controller = database.controller(recorder: recorder)
            controller.changeLogPollInterval = .seconds(120)
            try controller.performFetch()
            try PostgresWriteTests().write(database, "UPDATE item SET score = score WHERE id = \(ids[0])")
            try controller.processPendingChanges()
            #expect(recorder.take().isEmpty)
            // A column no key holds, written through the writer, is a change.
            try PostgresWriteTests().write(database, "UPDATE item SET flag = 3 WHERE id = \(ids[0])")
            try controller.processPendingChanges()
            #expect(recorder.take() == [.willChange, .row(.update, id: ids[0], from: ip(2, 1), to: ip(2, 1)), .didChange])
            // Another process moves the same row: its notification is of a later commit.
            try await database.run("UPDATE item SET score = 9 WHERE id = \(ids[0])")
            #expect(try await controller.processChanges { controller.layout == expectedLayout(try await database.allRows()) })
            #expect(controller.refetchCount == 0)
        }
    }

    @Test func aHandedOverWriteOfARowTheControllerHasNotCaughtUpWithIsReported() async throws {
        try await PostgresWriteTests().withItems { database, ids in
            let recorder = Recorder()
            let controller = database.controller(recorder: recorder)
            controller.changeLogPollInterval = .seconds(120)
            try controller.performFetch()
            // Another process moves the row; before the controller hears of it, this process
            // writes the row as that commit left it: its place in the result is not the new one.
            try await database.run("UPDATE item SET score = 9 WHERE id = \(ids[0])")
            try PostgresWriteTests().write(database, "UPDATE item SET score = score WHERE id = \(ids[0])")
            #expect(try await controller.processChanges { controller.layout == expectedLayout(try await database.allRows()) })
            #expect(recorder.events.contains { event in
                if case .row(_, let id, _, _) = event { return id == ids[0] }
                return false
            })
        }
    }

    /// The position of the log's newest entry.
    static func logPosition(_ database: PostgresItems) async throws -> Int64 {
        let rows = try await database.writer.query("SELECT coalesce(max(position), 0) FROM liveresults_change", logger: TestServer.logger)
        for try await position in rows.decode(Int64.self) { return position }
        return 0
    }
}
