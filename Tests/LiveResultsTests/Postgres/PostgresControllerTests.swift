import Foundation
import GRDB
@testable import LiveResults
@testable import LiveResultsSQLite
import LiveResultsPostgres
import PostgresNIO
import PostgresSupport
import Synchronization
import Testing

/// The controller's contract on PostgreSQL: the same reads, events and errors as on SQLite.
@Suite struct PostgresControllerTests {
    static let items = [
        Item(name: "Brazil", zone: "South America", score: 3),
        Item(name: "Argentina", zone: "South America", score: 5),
        Item(name: "France", zone: "Europe", score: 4),
        Item(name: "Spain", zone: "Europe", score: 4, flag: 0),
        Item(name: "Japan", zone: "Asia", score: 1),
    ]

    /// Runs `body` with a fresh database holding `items`, dropped afterwards.
    func withItems(_ items: [Item] = Self.items, retaining: Int = PostgresChangeLog.defaultRetained,
                   _ body: (PostgresItems, [Int64]) async throws -> Void) async throws {
        let database = try await PostgresItems(retaining: retaining)
        do {
            let ids = try await database.insert(items)
            try await body(database, ids)
        } catch {
            await database.close()
            throw error
        }
        await database.close()
    }

    @Test func fetchesSectionsRowsAndRecordsInLiveResultsOrder() async throws {
        try await withItems { database, ids in
            let controller = database.controller(fetchBatchSize: 2, recorder: nil)
            try controller.performFetch()
            #expect(controller.sections.map(\.name) == ["Asia", "Europe", "South America"])
            #expect(controller.sections.map(\.numberOfObjects) == [1, 2, 2])
            #expect(controller.sectionIndexTitles == ["A", "E", "S"])
            #expect(controller.layout == expectedLayout(try await database.allRows()))
            #expect(try controller.object(at: ip(2, 0)).name == "Argentina")
            #expect(try controller.fetchedObjects.map(\.name) == ["Japan", "France", "Spain", "Argentina", "Brazil"])
            #expect(controller.indexPath(for: ids[3]) == ip(1, 1))
            #expect(controller.lastFetchSource == .database)
        }
    }

    @Test func aCommitOfAnotherConnectionArrivesAsExactEvents() async throws {
        try await withItems { database, ids in
            let recorder = Recorder()
            let controller = database.controller(recorder: recorder)
            let woken = Atomic(0)
            controller.onChangesAvailable = { woken.add(1, ordering: .relaxed) }
            try controller.performFetch()
            // Brazil (3) passes Argentina (5) after three taps: one batch, one move.
            try await database.run("UPDATE item SET score = score + 3 WHERE id = \(ids[0])")
            // Each wake-up is answered as a loop would; the first may be the feed going live
            // (it wakes the controller too), before the commit's read has come back.
            var events: [Recorder.Event] = []
            let deadline = Date().addingTimeInterval(5)
            while events.isEmpty, Date() < deadline {
                if woken.exchange(0, ordering: .relaxed) > 0 {
                    try controller.processPendingChanges()
                    events = recorder.take()
                } else {
                    try await Task.sleep(for: .milliseconds(2))
                }
            }
            #expect(events == [.willChange, .row(.move, id: ids[0], from: ip(2, 1), to: ip(2, 0)), .didChange], "the NOTIFY woke the controller with the commit")
            #expect(controller.layout == expectedLayout(try await database.allRows()))
            #expect(controller.refetchCount == 0, "the commit was read from the log row by row, not caught up by a refetch")
        }
    }

    @Test func settingsMadeAfterTheFetchApplyFromThenOn() async throws {
        try await withItems { database, ids in
            let recorder = Recorder()
            let controller = database.controller(recorder: recorder)
            try controller.performFetch()
            // Set after the fetch: the wake-up and a new heartbeat (the feed's poll interval).
            let woken = Atomic(0)
            controller.onChangesAvailable = { woken.add(1, ordering: .relaxed) }
            controller.changeLogPollInterval = .milliseconds(10)
            try await database.run("UPDATE item SET score = score + 3 WHERE id = \(ids[0])")
            var events: [Recorder.Event] = []
            let deadline = Date().addingTimeInterval(5)
            while events.isEmpty, Date() < deadline {
                if woken.exchange(0, ordering: .relaxed) > 0 {
                    try controller.processPendingChanges()
                    events = recorder.take()
                } else {
                    try await Task.sleep(for: .milliseconds(2))
                }
            }
            #expect(events == [.willChange, .row(.move, id: ids[0], from: ip(2, 1), to: ip(2, 0)), .didChange], "the handler set after the fetch was called")
            #expect(controller.isLive)
        }
    }

    @Test func aCommitOfATransactionNewerThanTheLastToFinishIsApplied() async throws {
        try await withItems { database, ids in
            let recorder = Recorder()
            let controller = database.controller(recorder: recorder)
            try controller.performFetch()
            let older = try await TestServer.connect(database.configuration), newer = try await TestServer.connect(database.configuration)
            var failure: (any Error)?
            do {
                // The newer transaction's entry has a lower position than the older one's last,
                // and when the older commits, a snapshot's xmax is one past the older: the newer
                // is running but not listed as running (PostgreSQL lists only xids below xmax).
                try await older.query("BEGIN", logger: TestServer.logger)
                try await older.query("UPDATE item SET score = score + 1 WHERE id = \(ids[0])", logger: TestServer.logger)
                try await newer.query("BEGIN", logger: TestServer.logger)
                try await newer.query("UPDATE item SET score = score + 5 WHERE id = \(ids[1])", logger: TestServer.logger)
                try await older.query("UPDATE item SET score = score + 1 WHERE id = \(ids[2])", logger: TestServer.logger)
                try await older.query("COMMIT", logger: TestServer.logger)
                try controller.refresh()
                try await newer.query("COMMIT", logger: TestServer.logger)
                // One look after the last commit shows it.
                try controller.refresh()
                #expect(controller.layout == expectedLayout(try await database.allRows()))
                #expect(controller.refetchCount == 0)
            } catch {
                failure = error
            }
            try? await older.close()
            try? await newer.close()
            if let failure { throw failure }
        }
    }

    @Test func insertsDeletesAndNewSectionsInOneTransaction() async throws {
        try await withItems { database, ids in
            let recorder = Recorder()
            let controller = database.controller(recorder: recorder)
            try controller.performFetch()
            try await database.run(
                "BEGIN", "INSERT INTO item (name, zone, score, flag) VALUES ('Ghana', 'Africa', 2, 1)",
                "DELETE FROM item WHERE id = \(ids[4])", "COMMIT")
            try controller.refresh()
            let events = recorder.take()
            #expect(events.contains(.section(.insert, index: 0, name: "Africa", count: 1)))
            #expect(events.contains(.section(.delete, index: 0, name: "Asia", count: 0)))
            #expect(controller.layout == expectedLayout(try await database.allRows()))
            #expect(controller.refetchCount == 0)
        }
    }

    @Test func aPredicateWithBoundArgumentsNarrowsTheResultAndItsChanges() async throws {
        try await withItems { database, ids in
            let recorder = Recorder()
            let controller = database.controller(predicate: "flag = \(1) AND name <> \("Nobody")", recorder: recorder)
            try controller.performFetch()
            let matching: (Item) -> Bool = { $0.flag == 1 }
            #expect(controller.layout == expectedLayout(try await database.allRows(), matching: matching))
            try await database.run("UPDATE item SET flag = 1 WHERE id = \(ids[3])", "UPDATE item SET flag = 0 WHERE id = \(ids[0])")
            try controller.refresh()
            #expect(!recorder.take().isEmpty)
            #expect(controller.layout == expectedLayout(try await database.allRows(), matching: matching))
            #expect(controller.refetchCount == 0)
        }
    }

    @Test func anInMemoryFilterFollowsRenamesAsInsertsAndDeletes() async throws {
        try await withItems { database, ids in
            let recorder = Recorder()
            let controller = database.controller(recorder: recorder)
            try controller.performFetch()
            try controller.setFilter(.contains("an", inColumn: "name"))
            func matching(_ text: String) -> (Item) -> Bool { { $0.name?.contains(text) == true } }
            #expect(controller.layout == expectedLayout(try await database.allRows(), matching: matching("an")))
            #expect(controller.numberOfObjects == 2, "Japan and France")
            // Brazil starts matching, Japan stops, France still matches and moves.
            try await database.run("BEGIN", "UPDATE item SET name = 'Brazil and Peru' WHERE id = \(ids[0])",
                                   "UPDATE item SET name = 'Nippon' WHERE id = \(ids[4])",
                                   "UPDATE item SET score = 9 WHERE id = \(ids[2])", "COMMIT")
            try controller.refresh()
            let events = recorder.take()
            #expect(events.contains(.row(.insert, id: ids[0], from: nil, to: ip(1, 0))))
            #expect(events.contains(.row(.delete, id: ids[4], from: ip(0, 0), to: nil)))
            #expect(controller.layout == expectedLayout(try await database.allRows(), matching: matching("an")))
            #expect(controller.refetchCount == 0)
            // A narrower filter, a wider one, none: the result without a query.
            try controller.setFilter(.contains("and", inColumn: "name"))
            #expect(controller.layout == expectedLayout(try await database.allRows(), matching: matching("and")))
            try controller.setFilter(.contains("a", inColumn: "name"))
            #expect(controller.layout == expectedLayout(try await database.allRows(), matching: matching("a")))
            try controller.setFilter(nil)
            #expect(controller.layout == expectedLayout(try await database.allRows()))
            #expect(throws: LiveResultsError.self) { try controller.setFilter(.contains("a", inColumn: "nothing")) }
        }
    }

    @Test func aFilterPreparedInTheBackgroundAppliesWithTheCommitsMadeMeanwhile() async throws {
        try await withItems { database, ids in
            let recorder = Recorder()
            let controller = database.controller(recorder: recorder)
            try controller.performFetch()
            controller.prepareFilter(inColumn: "name")
            try controller.setFilter(.contains("an", inColumn: "name"))
            try await database.run("UPDATE item SET name = 'Brazil and Peru' WHERE id = \(ids[0])",
                                   "UPDATE item SET name = 'Nippon' WHERE id = \(ids[4])")
            let expected = expectedLayout(try await database.allRows(), matching: { $0.name?.contains("an") == true })
            let end = Date().addingTimeInterval(10)
            while controller.isFilterPending || controller.layout != expected {
                guard Date() < end else {
                    Issue.record("The prepared filter did not show the renames within 10 s: \(controller.layout).")
                    return
                }
                try await Task.sleep(for: .milliseconds(2))
                try controller.refresh()
            }
            #expect(recorder.take().contains(.reset))
            #expect(controller.refetchCount == 0)
            try controller.setFilter(nil)
            #expect(controller.layout == expectedLayout(try await database.allRows()))
        }
    }

    @Test func fetchLimitKeepsTheFirstRows() async throws {
        try await withItems { database, ids in
            let recorder = Recorder()
            let controller = database.controller(fetchLimit: 3, recorder: recorder)
            try controller.performFetch()
            #expect(controller.layout == expectedLayout(try await database.allRows(), limit: 3))
            try await database.run("UPDATE item SET zone = 'Aaa' WHERE id = \(ids[1])")
            try controller.refresh()
            #expect(controller.layout == expectedLayout(try await database.allRows(), limit: 3))
        }
    }

    @Test func theSnapshotFormGetsTheWholeResult() async throws {
        try await withItems { database, ids in
            let recorder = Recorder()
            let controller = database.controller(recorder: recorder)
            var snapshots: [ResultsSnapshot] = []
            controller.onSnapshot = { snapshots.append($0) }
            try controller.performFetch()
            try await database.run("UPDATE item SET name = 'Nippon' WHERE id = \(ids[4])")
            try controller.refresh()
            #expect(snapshots.count == 1)
            #expect(snapshots.last?.reloadedItemIdentifiers == [ids[4]])
            #expect(snapshots.last?.itemIdentifiers == expectedLayout(try await database.allRows()).map(\.ids))
        }
    }

    @Test func truncateIsReportedAsDeletes() async throws {
        try await withItems { database, _ in
            let recorder = Recorder()
            let controller = database.controller(recorder: recorder)
            try controller.performFetch()
            try await database.run("TRUNCATE item")
            try controller.refresh()
            let events = recorder.take()
            #expect(events.filter { if case .row(.delete, _, _, _) = $0 { true } else { false } }.count == 5)
            #expect(controller.numberOfObjects == 0)
            #expect(controller.refetchCount == 1, "TRUNCATE names no row: the controller fetches again and compares")
        }
    }

    @Test func errorsAreOneSentenceAsOnSQLite() async throws {
        try await withItems { database, _ in
            let unsorted = database.controller(sortDescriptors: [], recorder: nil)
            #expect(throws: LiveResultsError(.missingSortDescriptor, "The fetch request has no sort descriptor: a result needs at least one to have an order.")) {
                try unsorted.performFetch()
            }
            let unknown = database.controller(sortDescriptors: [SortColumn("nope")], recorder: nil)
            #expect(throws: LiveResultsError(.unknownColumn("nope"), "The table “item” has no column named “nope”.")) {
                try unknown.performFetch()
            }
            let badPredicate = database.controller(predicate: "nope > \(1)", recorder: nil)
            #expect(throws: LiveResultsError(.unknownColumn("nope"), "The fetch request names a column that does not exist: “nope”.")) {
                try badPredicate.performFetch()
            }
            // Sorted by name but sectioned by zone: Europe comes back after South America.
            let outOfOrder = database.controller(sortDescriptors: [SortColumn("name")], recorder: nil)
            let error = #expect(throws: LiveResultsError.self) { try outOfOrder.performFetch() }
            #expect(error?.kind == .sectionOutOfOrder)
            #expect(error?.description.contains("row") == true)
        }
    }

    @Test func aTableWithoutAChangeLogCannotBeFollowed() async throws {
        try await withItems { database, _ in
            try await database.run("CREATE TABLE plain (id bigint PRIMARY KEY, name text)")
            let controller = ResultsController<Plain>(database: database.database, fetchRequest: ResultsRequest(sortDescriptors: [SortColumn("name")]))
            let delegate = PlainDelegate()
            controller.delegate = delegate
            #expect(throws: LiveResultsError(.database, "The table “plain” has no change log to follow: install one with PostgresChangeLog.install(on:), or fetch without a delegate.")) {
                try controller.performFetch()
            }
            controller.delegate = nil
            try controller.performFetch()
            #expect(controller.numberOfObjects == 0)
        }
    }
}

struct Plain: FetchableRecord, TableRecord, Decodable, ColumnRowRecord {
    static let databaseTableName = "plain"
    var id: Int64
    var name: String?
}

final class PlainDelegate: ResultsControllerDelegate {
    func controllerDidResetContent(_ controller: ResultsController<Plain>) {}
}
