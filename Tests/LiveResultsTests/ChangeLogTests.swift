import Foundation
import TestSupport
import GRDB
import Synchronization
import Testing
@testable import LiveResults

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

    @Test("The poller delivers another connection's commit without being asked")
    func poller() throws {
        let folder = try makeTemporaryFolder()
        let file = folder.appendingPathComponent("items.sqlite")
        let database = try makeItemDatabase(configuration: fileConfiguration, file: file)
        try insertItems(Self.items, into: database)
        let controller = ResultsController<Item>(database: database, fetchRequest: ResultsRequest(sortDescriptors: zoneScoreName), sectionNameKeyPath: "zone")
        let recorder = Recorder()
        controller.delegate = recorder
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
}
