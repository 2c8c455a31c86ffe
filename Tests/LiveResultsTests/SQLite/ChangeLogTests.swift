import Foundation
import TestSupport
import GRDB
import Synchronization
import Testing
@testable import LiveResults
@testable import LiveResultsSQLite

/// Commits of other connections, read from the change log.
@Suite("Change log: commits of other connections")
struct ChangeLogTests {
    static let items = [
        Item(name: "Ghana", zone: "Africa", score: 0),
        Item(name: "Nigeria", zone: "Africa", score: 2),
        Item(name: "Brazil", zone: "South America", score: 5),
    ]

    @Test("A tap committed by another connection arrives as a move, in one batch")
    func otherConnectionTap() throws {
        let fixture = try Fixture(Self.items, otherConnection: true)
        try fixture.otherConnection!.write { try $0.execute(sql: "UPDATE item SET score = 3 WHERE name = 'Ghana'") }
        #expect(fixture.recorder.take().isEmpty, "nothing arrives before the log is read")
        try fixture.controller.refresh()
        #expect(fixture.recorder.take() == [.willChange, .row(.move, id: 1, from: ip(0, 1), to: ip(0, 0)), .didChange])
    }

    @Test("Adds and deletes from another connection, including a new and a vanished section")
    func otherConnectionSections() throws {
        let fixture = try Fixture(Self.items, otherConnection: true)
        try fixture.otherConnection!.write { db in
            try db.execute(sql: "INSERT INTO item (name, zone, score, flag) VALUES ('Atlantis', 'Oceania', 0, 1)")
            try db.execute(sql: "DELETE FROM item WHERE zone = 'South America'")
        }
        try fixture.controller.refresh()
        #expect(fixture.recorder.take() == [
            .willChange,
            .section(.delete, index: 1, name: "South America", count: 0),
            .section(.insert, index: 1, name: "Oceania", count: 1),
            .row(.delete, id: 3, from: ip(1, 0), to: nil),
            .row(.insert, id: 4, from: nil, to: ip(1, 0)),
            .didChange,
        ])
        #expect(try fixture.layout == fixture.freshLayout())
    }

    @Test("Another connection's commit, then one of ours: two batches, in commit order")
    func interleavedCommits() throws {
        let fixture = try Fixture(Self.items, otherConnection: true)
        try fixture.otherConnection!.write { try $0.execute(sql: "UPDATE item SET score = 3 WHERE name = 'Ghana'") }
        // No refresh: our own commit finds the other one in the log before its own entries.
        try fixture.database.write { try $0.execute(sql: "UPDATE item SET score = 4 WHERE name = 'Nigeria'") }
        try fixture.controller.processPendingChanges()
        #expect(fixture.recorder.take() == [
            .willChange, .row(.move, id: 1, from: ip(0, 1), to: ip(0, 0)), .didChange,
            .willChange, .row(.move, id: 2, from: ip(0, 1), to: ip(0, 0)), .didChange,
        ])
    }

    /// The items in a new database file, and a controller over them with a recorder, not yet fetched.
    static func controllerOnFile() throws -> (file: URL, database: DatabaseQueue, controller: ResultsController<Item>, recorder: Recorder) {
        let file = try makeTemporaryFolder().appendingPathComponent("items.sqlite")
        let database = try makeItemDatabase(configuration: fileConfiguration, file: file)
        try insertItems(Self.items, into: database)
        let controller = ResultsController<Item>(database: database, fetchRequest: ResultsRequest(sortDescriptors: zoneScoreName), sectionNameKeyPath: "zone")
        let recorder = Recorder()
        controller.delegate = recorder
        return (file, database, controller, recorder)
    }

    @Test("The poller delivers another connection's commit without being asked")
    func poller() throws {
        let (file, _, controller, recorder) = try Self.controllerOnFile()
        let signalled = Mutex(false)
        controller.onChangesAvailable = { signalled.withLock { $0 = true } }
        controller.changeLogPollInterval = .milliseconds(20)
        try controller.performFetch()

        let other = try DatabaseQueue(path: file.path, configuration: fileConfiguration)
        try other.write { try $0.execute(sql: "UPDATE item SET score = 9 WHERE name = 'Ghana'") }
        // Wait (up to 10 s, so a loaded machine cannot fail it) for the poller's signal.
        let deadline = Date().addingTimeInterval(10)
        while !signalled.withLock({ $0 }) && Date() < deadline { usleep(2000) }
        #expect(signalled.withLock { $0 }, "the poller never signalled")
        try controller.processPendingChanges()
        #expect(recorder.take() == [.willChange, .row(.move, id: 1, from: ip(0, 1), to: ip(0, 0)), .didChange])
    }

    @Test("Settings made after performFetch apply from then on: onChangesAvailable, notifiesOwnWrites, the poll interval")
    func settingsAfterTheFetch() throws {
        let (file, database, controller, recorder) = try Self.controllerOnFile()
        try controller.performFetch()
        let signals = Atomic(0)
        controller.onChangesAvailable = { signals.add(1, ordering: .relaxed) }
        try database.write { try $0.execute(sql: "UPDATE item SET flag = 1 - flag WHERE name = 'Brazil'") }
        #expect(signals.load(ordering: .relaxed) == 1, "set after the fetch, it is called for the next commit")
        controller.notifiesOwnWrites = false
        try database.write { try $0.execute(sql: "UPDATE item SET flag = 1 - flag WHERE name = 'Brazil'") }
        #expect(signals.load(ordering: .relaxed) == 1, "own writes no longer wake it")
        try controller.processPendingChanges()
        #expect(!recorder.take().isEmpty, "the commits were still taken")

        // No poll interval: nothing looks at the log (no timer, no folder watch).
        controller.changeLogPollInterval = .zero
        let other = try DatabaseQueue(path: file.path, configuration: fileConfiguration)
        try other.write { try $0.execute(sql: "UPDATE item SET score = 9 WHERE name = 'Ghana'") }
        usleep(300_000)
        #expect(signals.load(ordering: .relaxed) == 1, "with the poller gone, another connection's commit wakes nothing")
        // A poll interval again: the new poller finds the commit.
        controller.changeLogPollInterval = .milliseconds(20)
        let deadline = Date().addingTimeInterval(10)
        while signals.load(ordering: .relaxed) == 1 && Date() < deadline { usleep(2000) }
        #expect(signals.load(ordering: .relaxed) > 1, "the poller made again never signalled")
        try controller.processPendingChanges()
        #expect(recorder.take() == [.willChange, .row(.move, id: 1, from: ip(0, 1), to: ip(0, 0)), .didChange])
    }

    @Test("The folder watch wakes the controller for every commit of another connection, also after our own commits, with no timer to help")
    func folderWatchRearms() throws {
        let (file, database, controller, recorder) = try Self.controllerOnFile()
        let signals = Atomic(0)
        controller.onChangesAvailable = { signals.add(1, ordering: .relaxed) }
        // The safety-net timer would first fire after 20 minutes: only the watch can wake it.
        controller.changeLogPollInterval = .seconds(60)
        try controller.performFetch()
        let other = try DatabaseQueue(path: file.path, configuration: fileConfiguration)
        for round in 1...4 {
            // Our own commits first: the watch sees their writes and must come back afterwards.
            for _ in 0..<20 { try database.write { try $0.execute(sql: "UPDATE item SET flag = 1 - flag WHERE name = 'Brazil'") } }
            try controller.processPendingChanges()
            _ = recorder.take()
            usleep(20_000) // Any look woken by our commits is over.
            let before = signals.load(ordering: .relaxed)
            try other.write { try $0.execute(sql: "UPDATE item SET score = ? WHERE name = 'Ghana'", arguments: [10 * round]) }
            let deadline = Date().addingTimeInterval(10)
            while signals.load(ordering: .relaxed) == before && Date() < deadline { usleep(1000) }
            #expect(signals.load(ordering: .relaxed) > before, "round \(round): the watch never signalled")
            try controller.processPendingChanges()
            // Ghana (id 1) passes Nigeria in the first round, and stays first afterwards.
            let row: Recorder.Event = round == 1 ? .row(.move, id: 1, from: ip(0, 1), to: ip(0, 0)) : .row(.update, id: 1, from: ip(0, 0), to: ip(0, 0))
            #expect(recorder.take() == [.willChange, row, .didChange], "round \(round)")
        }
        #expect(controller.numberOfObjects == 3)
    }

    @Test("A reader whose position was pruned from the log still reports exactly the rows the commits wrote")
    func prunedPosition() throws {
        let fixture = try Fixture(Self.items, otherConnection: true)
        // 2,500 entries with a retention of 1,000: the first ones are gone when we read.
        try fixture.otherConnection!.write { db in
            try ChangeLog.install(on: "item", in: db, retaining: 1000)
            for _ in 0..<1250 { try db.execute(sql: "UPDATE item SET flag = 1 - flag WHERE name = 'Brazil'") }
            try db.execute(sql: "UPDATE item SET score = 1 WHERE name = 'Ghana'")
            for _ in 0..<1250 { try db.execute(sql: "UPDATE item SET flag = 1 - flag WHERE name = 'Brazil'") }
        }
        let oldest = try fixture.database.read { try Int64.fetchOne($0, sql: "SELECT MIN(position) FROM liveresults_change") }
        #expect((oldest ?? 0) > 1000, "the log was not pruned")
        try fixture.controller.refresh()
        // Ghana is an update in place (1 is still below Nigeria's 2); Brazil was written, back
        // to its old flag: an update too, as when the log is read in full.
        #expect(fixture.recorder.take() == [
            .willChange, .row(.update, id: 1, from: ip(0, 1), to: ip(0, 1)), .row(.update, id: 3, from: ip(1, 0), to: ip(1, 0)), .didChange,
        ])
        #expect(try fixture.layout == fixture.freshLayout())
    }

    @Test("An update that changes rowids is described by the log, without a refetch")
    func rowIDChange() throws {
        let fixture = try Fixture(Self.items, otherConnection: true)
        try fixture.otherConnection!.write { try $0.execute(sql: "UPDATE item SET id = 10 WHERE id = 1") }
        try fixture.controller.refresh()
        #expect(fixture.recorder.take() == [
            .willChange, .row(.delete, id: 1, from: ip(0, 1), to: nil), .row(.insert, id: 10, from: nil, to: ip(0, 1)), .didChange,
        ])
        try fixture.database.write { try $0.execute(sql: "UPDATE item SET id = 11 WHERE id = 2") }
        try fixture.controller.processPendingChanges()
        #expect(fixture.recorder.take() == [
            .willChange, .row(.delete, id: 2, from: ip(0, 0), to: nil), .row(.insert, id: 11, from: nil, to: ip(0, 0)), .didChange,
        ])
    }

    @Test("Installing the log twice keeps one set of triggers and one entry per change")
    func idempotentInstall() throws {
        let fixture = try Fixture(Self.items, otherConnection: true)
        try fixture.database.write { try ChangeLog.install(on: "item", in: $0) }
        let before = try fixture.database.read { try ChangeLog.position($0) }
        try fixture.database.write { try $0.execute(sql: "UPDATE item SET score = 1 WHERE id = 1") }
        let after = try fixture.database.read { try ChangeLog.position($0) }
        #expect(after == before + 1)
    }

    @Test("Updates made withoutLoggingUpdates leave no entry; the next update is logged again")
    func updatesWithoutLogging() throws {
        let fixture = try Fixture(Self.items, otherConnection: true)
        let before = try fixture.database.read { try ChangeLog.position($0) }
        let triggers = "SELECT count(*) FROM sqlite_master WHERE type = 'trigger'"
        let triggerCount = try fixture.database.read { try Int.fetchOne($0, sql: triggers) }
        try fixture.database.write { db in
            try ChangeLog.withoutLoggingUpdates(of: "item", in: db) {
                try db.execute(sql: "UPDATE item SET flag = 0")
            }
        }
        #expect(try fixture.database.read { try ChangeLog.position($0) } == before)
        #expect(try fixture.database.read { try Int.fetchOne($0, sql: triggers) } == triggerCount)
        try fixture.database.write { try $0.execute(sql: "UPDATE item SET score = 9 WHERE id = 1") }
        #expect(try fixture.database.read { try ChangeLog.position($0) } == before + 1)
    }

    @Test("Emptying the log by hand keeps its newest entry, so positions never go back")
    func keepsNewestEntry() throws {
        let fixture = try Fixture(Self.items, otherConnection: true)
        for score in 1...3 { try fixture.database.write { try $0.execute(sql: "UPDATE item SET score = ? WHERE id = 1", arguments: [score]) } }
        let before = try fixture.database.read { try ChangeLog.position($0) }
        try fixture.database.write { try $0.execute(sql: "DELETE FROM liveresults_change") }
        let kept = try fixture.database.read { try Int64.fetchAll($0, sql: "SELECT position FROM liveresults_change") }
        #expect(kept == [before])
        try fixture.database.write { try $0.execute(sql: "UPDATE item SET score = 4 WHERE id = 1") }
        #expect(try fixture.database.read { try ChangeLog.position($0) } == before + 1)
    }

    @Test("A log made with AUTOINCREMENT is rebuilt without it: its entries kept, positions going on from the last given", arguments: [false, true])
    func rebuildsAutoincrementLog(newestRemoved: Bool) throws {
        let fixture = try Fixture(Self.items, otherConnection: true)
        try fixture.otherConnection!.write { db in
            // The log as an earlier version made it, with five entries.
            try db.execute(sql: """
                DROP TABLE liveresults_change;
                CREATE TABLE liveresults_change (position INTEGER PRIMARY KEY AUTOINCREMENT, tableName TEXT NOT NULL, changedRowID INTEGER NOT NULL);
                """)
            for id in [1, 2, 3, 1, 2] { try db.execute(sql: "UPDATE item SET score = score + 1 WHERE id = ?", arguments: [id]) }
            if newestRemoved { try db.execute(sql: "DELETE FROM liveresults_change WHERE position > 3") }
            #expect(try Int64.fetchOne(db, sql: "SELECT seq FROM sqlite_sequence WHERE name = 'liveresults_change'") == 5)
            try ChangeLog.install(on: "item", in: db)
            let made = try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE name = 'liveresults_change'") ?? ""
            #expect(!made.contains("AUTOINCREMENT"))
            #expect(try Int64.fetchOne(db, sql: "SELECT seq FROM sqlite_sequence WHERE name = 'liveresults_change'") == nil)
            let entries = try Row.fetchAll(db, sql: "SELECT position, tableName, changedRowID FROM liveresults_change ORDER BY position")
                .map { "\($0["position"] as Int64) \($0["tableName"] as String) \($0["changedRowID"] as Int64)" }
            #expect(entries == (newestRemoved ? ["1 item 1", "2 item 2", "3 item 3", "5  0"] : ["1 item 1", "2 item 2", "3 item 3", "4 item 1", "5 item 2"]))
            try db.execute(sql: "UPDATE item SET score = score + 1 WHERE id = 3")
            #expect(try ChangeLog.position(db) == 6)
        }
        // The log went back meanwhile (made again): the controller still ends where the database is.
        try fixture.controller.refresh()
        #expect(try fixture.layout == fixture.freshLayout())
    }
}
