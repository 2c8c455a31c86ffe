import Foundation
import GRDB
@testable import LiveResults
@testable import LiveResultsSQLite
@testable import LiveResultsPostgres
import PostgresNIO
import PostgresSupport
import Testing

/// Commits applied from the notification that carries them, without a read of the log; and
/// each case where the feed reads the log instead.
@Suite struct PostgresNotifiedTests {
    /// Runs `body` with the controller tests' items and a controller over them that has
    /// fetched, listens, and has done its first read.
    func withController(predicate: ResultsPredicate? = nil, heartbeat: Bool = true, retaining: Int = PostgresChangeLog.defaultRetained,
                        _ body: (PostgresItems, [Int64], ResultsController<Item>, PostgresChangeFeed) async throws -> Void) async throws {
        let database = try await PostgresItems(retaining: retaining)
        do {
            let ids = try await database.insert(PostgresControllerTests.items)
            // The delegate is held weakly, and a controller without one does not track.
            let recorder = Recorder()
            let controller = database.controller(predicate: predicate, recorder: recorder)
            if !heartbeat { controller.changeLogPollInterval = .zero }
            try controller.performFetch()
            try controller.refresh()
            let feed = try #require(database.database.ownWrites.listeners(under: "item").first)
            try await body(database, ids, controller, feed)
            withExtendedLifetime(recorder) {}
        } catch {
            await database.close()
            throw error
        }
        await database.close()
    }

    /// Waits until the controller shows the table as it is.
    func converges(_ controller: ResultsController<Item>, _ database: PostgresItems, matching: @escaping (Item) -> Bool = { _ in true }) async throws -> Bool {
        try await controller.processChanges { controller.layout == expectedLayout(try await database.allRows(), matching: matching) }
    }

    @Test func anotherConnectionsCommitIsAppliedFromItsNotification() async throws {
        try await withController { database, ids, controller, feed in
            let reads = feed.logReadsBegun
            try await database.run("UPDATE item SET score = score + 10 WHERE id = \(ids[2])")
            try await database.run("BEGIN", "UPDATE item SET zone = 'Asia' WHERE id = \(ids[0])", "DELETE FROM item WHERE id = \(ids[1])",
                                   "INSERT INTO item (name, zone, score) VALUES ('Japan', 'Asia', 2)", "COMMIT")
            #expect(try await converges(controller, database))
            #expect(feed.logReadsBegun == reads, "no read of the log")
            #expect(outcomes(feed).applied == 2)
            #expect(controller.refetchCount == 0)
            // A read now finds those commits' entries and delivers nothing again.
            let recorder = try #require(controller.delegate as? Recorder)
            _ = recorder.take()
            try controller.refresh()
            #expect(recorder.take() == [])
        }
    }

    @Test func aGapInPositionsIsReadFromTheLog() async throws {
        try await withController { database, ids, controller, feed in
            // A transaction that rolled back took a position and sent nothing.
            try await database.run("BEGIN", "UPDATE item SET score = 99 WHERE id = \(ids[0])", "ROLLBACK")
            let reads = feed.logReadsBegun
            try await database.run("UPDATE item SET score = score + 1 WHERE id = \(ids[3])")
            #expect(try await notified(feed) { $0.gap == 1 })
            #expect(try await converges(controller, database))
            #expect(feed.logReadsBegun > reads)
            // The read moved the cursor on: the next commit follows it again.
            try await database.run("UPDATE item SET score = score + 1 WHERE id = \(ids[4])")
            #expect(try await notified(feed) { $0.applied == 1 })
            #expect(try await converges(controller, database))
        }
    }

    @Test func aTransactionTooLargeForOneNotificationIsReadFromTheLog() async throws {
        try await withController { database, _, controller, feed in
            let reads = feed.logReadsBegun
            // 400 rows: more entries than one notification's 8,000 bytes hold.
            try await database.run("INSERT INTO item (name, zone, score) SELECT 'team ' || n, 'Zone ' || (n % 5), n FROM generate_series(1, 400) n")
            #expect(try await notified(feed) { $0.cut == 1 })
            #expect(try await converges(controller, database))
            #expect(feed.logReadsBegun > reads)
        }
    }

    @Test func aRowTooLargeForOneNotificationIsReadFromTheLog() async throws {
        try await withController { database, ids, controller, feed in
            try await database.run("UPDATE item SET name = repeat('é', 9000) WHERE id = \(ids[1])")
            #expect(try await notified(feed) { $0.cut == 1 })
            #expect(try await converges(controller, database))
        }
    }

    @Test func aNotificationTheControllerCannotUseIsReadFromTheLog() async throws {
        // A predicate only the server evaluates.
        try await withController(predicate: "score >= 3") { database, ids, controller, feed in
            try await database.run("UPDATE item SET score = 0 WHERE id = \(ids[0])")
            #expect(try await notified(feed) { $0.unusable == 1 })
            #expect(try await converges(controller, database, matching: { $0.score >= 3 }))
            #expect(outcomes(feed).applied == 0)
        }
        // TRUNCATE names only its transaction.
        try await withController { database, _, controller, feed in
            try await database.run("TRUNCATE item")
            #expect(try await notified(feed) { $0.unusable == 1 })
            #expect(try await converges(controller, database))
        }
    }

    @Test func aNewConnectionReadsTheLogFirst() async throws {
        try await withController { database, ids, controller, feed in
            try await database.run("UPDATE item SET score = score + 1 WHERE id = \(ids[0])")
            #expect(try await notified(feed) { $0.applied == 1 })
            #expect(try await converges(controller, database))
            // The controller's connection is cut; a commit meanwhile is never notified to it.
            let reads = feed.logReadsBegun
            try await database.run("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()")
            try await database.run("UPDATE item SET zone = 'Oceania' WHERE id = \(ids[ids.count - 1])")
            #expect(try await converges(controller, database))
            #expect(feed.logReadsBegun > reads, "the new connection read the log from the cursor")
            // Once read, and once the new connection's probe is back (a commit before it is
            // read, not applied: a busy machine may take a while), notifications are applied again.
            let deadline = ContinuousClock.now + .seconds(20)
            while outcomes(feed).applied < 2, ContinuousClock.now < deadline {
                try await database.run("UPDATE item SET score = score + 1 WHERE id = \(ids[2])")
                try await Task.sleep(for: .milliseconds(200))
            }
            #expect(outcomes(feed).applied >= 2)
            #expect(try await converges(controller, database))
        }
    }

    @Test func aConnectionWhoseProbeDidNotComeBackReadsTheLog() async throws {
        // No heartbeat, whose reads would find the commit first where notifications are not trusted.
        try await withController(heartbeat: false) { database, ids, controller, feed in
            // As behind a pooler: notifications may not all arrive, so none is trusted.
            feed.notificationsHeard.withLockedValue { $0 = false }
            try await database.run("UPDATE item SET score = score + 1 WHERE id = \(ids[0])")
            #expect(try await notified(feed) { $0.notFollowing == 1 })
            #expect(try await converges(controller, database))
            #expect(outcomes(feed).applied == 0)
        }
    }

    @Test func theNotificationsTextReadsBack() throws {
        let commit = NotifiedCommit(xid: 42, table: "team", columns: ["zone", "wins", "name"], entries: [
            .init(position: 7, id: 3, values: ["Europe", "12", "a b: ~ é 🇫🇷"]),
            .init(position: 8, id: 4, values: nil),
            .init(position: 9, id: 5, values: [nil, "0", ""]),
        ])
        #expect(NotifiedCommit(text: commit.text) == commit)
        #expect(NotifiedCommit(text: NotifiedCommit(xid: 42, table: "team", columns: [], entries: [], isCut: true).text)?.isCut == true)
        var both = commit
        both.wroteOtherTables = true
        #expect(both.text.hasSuffix(" +"))
        #expect(NotifiedCommit(text: both.text) == both, "a transaction that wrote another table too")
        let cut = NotifiedCommit(xid: 42, table: "team", columns: [], entries: [], isCut: true, wroteOtherTables: true)
        #expect(NotifiedCommit(text: cut.text) == cut)
        #expect(NotifiedCommit(text: "lr2 42 4:team 0 7 d 3 + 8 d 4") == nil, "+ ends the notification")
        #expect(NotifiedCommit(text: "lr2 42 4:team 0 7 d 3")?.wroteOtherTables == false)
        #expect(NotifiedCommit(text: "lr1 42 4:team 0 7 d 3")?.wroteOtherTables == true, "an older log's, which cannot say")
        #expect(NotifiedCommit(text: "lr1 42 4:team 0 7 d 3")?.entries.count == 1)
        #expect(NotifiedCommit(text: "1234") == nil, "a bare transaction id")
        var noted = both
        noted.note = "fan@laptop: Ghana +1 win.\n🇬🇭 é"
        #expect(noted.text.hasPrefix("lr3 ") && noted.text.hasSuffix(" + # 30:fan@laptop: Ghana +1 win.\n🇬🇭 é"), "\(noted.text)")
        #expect(NotifiedCommit(text: noted.text) == noted, "the note the writing transaction left, after the +")
        var cutNoted = cut
        cutNoted.note = "a b"
        #expect(NotifiedCommit(text: cutNoted.text) == cutNoted)
        #expect(NotifiedCommit(text: "lr3 42 4:team 0 7 d 3 # 3:a b")?.note == "a b")
        #expect(NotifiedCommit(text: "lr3 42 4:team 0 7 d 3 # 3:a b 8 d 4") == nil, "the note ends the notification")
        #expect(NotifiedCommit(text: "lr2 42 4:team 0 7 d 3 # 1:a") == nil, "lr2 has no note")
        #expect(NotifiedCommit(text: "lr3 42 4:team 99999999999 7 d 3") == nil, "more columns than the text could name")
        #expect(NotifiedCommit(text: "lr3 -1 4:team 0") == nil, "a transaction id is not negative")
        #expect(NotifiedCommit(text: "lr3 42 4:team 0 -7 d -3")?.entries.first?.id == -3, "ids may be negative")
        #expect(NotifiedCommit(text: "lr1 42 4:team 1 4:zone 7 v 3 9:Europe") == nil, "a length past the end")
    }
}
