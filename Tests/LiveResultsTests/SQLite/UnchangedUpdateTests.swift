import Foundation
import TestSupport
import GRDB
import Testing
@testable import LiveResults
@testable import LiveResultsSQLite

/// An UPDATE that writes the values rows already have changed no data (rule 6): no event,
/// from this connection or another; and what does change is still reported.
@Suite("Updates that change no value")
struct UnchangedUpdateTests {
    static let items = [
        Item(name: "Ghana", zone: "Africa", score: 0),
        Item(name: "Nigeria", zone: "Africa", score: 2),
        Item(name: "Brazil", zone: "South America", score: 5),
    ]

    @Test("`SET score = score` from another connection reports nothing; a real change in the same commit is reported alone")
    func otherConnection() throws {
        let fixture = try Fixture(Self.items, otherConnection: true)
        try fixture.otherConnection!.write { try $0.execute(sql: "UPDATE item SET score = score, name = name") }
        try fixture.controller.refresh()
        #expect(fixture.recorder.take().isEmpty)

        try fixture.otherConnection!.write { db in
            try db.execute(sql: "UPDATE item SET score = score")
            try db.execute(sql: "UPDATE item SET flag = 7 WHERE name = 'Brazil'")
        }
        try fixture.controller.refresh()
        #expect(fixture.recorder.take() == [.willChange, .row(.update, id: 3, from: ip(1, 0), to: ip(1, 0)), .didChange])
    }

    @Test("`SET score = score` on the controller's own connection reports nothing, with or without a REPLACE in the same commit")
    func ownConnection() throws {
        let fixture = try Fixture(Self.items, otherConnection: true)
        try fixture.database.write { try $0.execute(sql: "UPDATE item SET score = score") }
        try fixture.controller.processPendingChanges()
        #expect(fixture.recorder.take().isEmpty)

        // As many log entries as events: the no-op update's missing entry is made up by the
        // insert's. The log, not the count, must decide.
        try fixture.database.write { db in
            try db.execute(sql: "UPDATE item SET score = score WHERE name = 'Ghana'")
            try db.execute(sql: "INSERT INTO item (name, zone, score, flag) VALUES ('Mali', 'Africa', 1, 0)")
        }
        try fixture.controller.processPendingChanges()
        #expect(fixture.recorder.take() == [.willChange, .row(.insert, id: 4, from: nil, to: ip(0, 1)), .didChange])
        #expect(try fixture.layout == fixture.freshLayout())
    }

    @Test("Without a change log, `SET score = score` on the controller's connection reports nothing, through `write` or `liveResultsWrite`; what changes is still reported")
    func ownConnectionWithoutLog() throws {
        let fixture = try Fixture(Self.items) // in memory: no change log
        #expect(try fixture.execute("UPDATE item SET score = score, name = name").isEmpty)
        try fixture.database.liveResultsWrite { try $0.execute(sql: "UPDATE item SET score = score WHERE name = 'Brazil'") }
        try fixture.controller.processPendingChanges()
        #expect(fixture.recorder.take().isEmpty)
        // A column no key holds is a change; so is a row written as it was, then changed.
        #expect(try fixture.execute("UPDATE item SET flag = 7 WHERE name = 'Brazil'")
                    == [.willChange, .row(.update, id: 3, from: ip(1, 0), to: ip(1, 0)), .didChange])
        #expect(try fixture.write { db in
            try db.execute(sql: "UPDATE item SET score = score")
            try db.execute(sql: "UPDATE item SET flag = 8 WHERE name = 'Ghana'")
        } == [.willChange, .row(.update, id: 1, from: ip(0, 1), to: ip(0, 1)), .didChange])
        #expect(try fixture.execute("UPDATE item SET score = 3 WHERE name = 'Ghana'")
                    == [.willChange, .row(.move, id: 1, from: ip(0, 1), to: ip(0, 0)), .didChange])
        #expect(try fixture.layout == fixture.freshLayout())
    }

    @Test("Without a change log, columns added, renamed and dropped by this connection or another leave every UPDATE working, and a new column's change is reported")
    func schemaChangesWithoutLog() throws {
        let folder = try makeTemporaryFolder()
        let path = folder.appendingPathComponent("nolog.sqlite").path
        let database = try DatabaseQueue(path: path, configuration: fileConfiguration)
        try database.write { db in
            try db.execute(sql: "CREATE TABLE item (id INTEGER PRIMARY KEY, name TEXT, zone TEXT, score INTEGER, flag INTEGER, note TEXT, extra TEXT)")
            try db.execute(sql: "INSERT INTO item (name, zone, score, flag) VALUES ('Ghana', 'Africa', 0, 0), ('Brazil', 'South America', 5, 0)")
        }
        let controller = ResultsController<Item>(database: database, fetchRequest: ResultsRequest(sortDescriptors: zoneScoreName), sectionNameKeyPath: "zone")
        let recorder = Recorder()
        controller.delegate = recorder
        try controller.performFetch()
        func update(_ sql: String) throws -> [Recorder.Event] {
            try database.write { try $0.execute(sql: sql) }
            try controller.processPendingChanges()
            return recorder.take()
        }
        let brazilUpdated: [Recorder.Event] = [.willChange, .row(.update, id: 2, from: ip(1, 0), to: ip(1, 0)), .didChange]

        // Another connection renames and drops columns the controller's connection compared.
        let other = try DatabaseQueue(path: path, configuration: fileConfiguration)
        try other.write { db in
            try db.execute(sql: "ALTER TABLE item RENAME COLUMN note TO remark")
            try db.execute(sql: "ALTER TABLE item DROP COLUMN extra")
        }
        #expect(try update("UPDATE item SET score = score") == [])
        #expect(try update("UPDATE item SET remark = 'seen' WHERE name = 'Brazil'") == brazilUpdated)

        // This connection adds a column, changes only it, and drops it again.
        try database.write { try $0.execute(sql: "ALTER TABLE item ADD COLUMN added TEXT") }
        #expect(try update("UPDATE item SET added = 'new' WHERE name = 'Brazil'") == brazilUpdated)
        #expect(try update("UPDATE item SET added = added") == [])
        try database.write { try $0.execute(sql: "ALTER TABLE item DROP COLUMN added") }
        #expect(try update("UPDATE item SET flag = 3 WHERE name = 'Brazil'") == brazilUpdated)
        #expect(try controller.sections.map(\.numberOfObjects) == [1, 1])
    }

    @Test("A text changed only in case is a change, whatever the column's collation")
    func caseOnlyChange() throws {
        let folder = try makeTemporaryFolder()
        let database = try DatabaseQueue(path: folder.appendingPathComponent("nocase.sqlite").path, configuration: fileConfiguration)
        try database.write { db in
            try db.execute(sql: "CREATE TABLE item (id INTEGER PRIMARY KEY, name TEXT COLLATE NOCASE, zone TEXT, score INTEGER, flag INTEGER)")
            try db.execute(sql: "INSERT INTO item (name, zone, score, flag) VALUES ('ghana', 'Africa', 0, 0)")
            try ChangeLog.install(on: "item", in: db)
        }
        let controller = ResultsController<Item>(database: database, fetchRequest: ResultsRequest(sortDescriptors: zoneScoreName), sectionNameKeyPath: "zone")
        let recorder = Recorder()
        controller.delegate = recorder
        try controller.performFetch()
        let other = try DatabaseQueue(path: folder.appendingPathComponent("nocase.sqlite").path, configuration: fileConfiguration)
        try other.write { try $0.execute(sql: "UPDATE item SET name = 'Ghana'") }
        try controller.refresh()
        #expect(recorder.take() == [.willChange, .row(.update, id: 1, from: ip(0, 0), to: ip(0, 0)), .didChange])
    }

    @Test("A column added after the log was installed: the fetch refuses in one sentence until the log is installed again")
    func columnAddedAfterInstall() throws {
        let (file, database, controller, recorder) = try ChangeLogTests.controllerOnFile()
        try database.write { try $0.execute(sql: "ALTER TABLE item ADD COLUMN note TEXT") }
        #expect(throws: LiveResultsError.self) { try controller.performFetch() }
        do {
            try controller.performFetch()
        } catch let error as LiveResultsError {
            #expect(error.kind == .changeLogMissesColumn("note"))
            #expect(error.description.contains("install it again"))
        }

        try database.write { try ChangeLog.install(on: "item", in: $0) }
        try controller.performFetch()
        let other = try DatabaseQueue(path: file.path, configuration: fileConfiguration)
        try other.write { try $0.execute(sql: "UPDATE item SET note = 'seen' WHERE name = 'Brazil'") }
        try controller.refresh()
        #expect(recorder.take() == [.willChange, .row(.update, id: 3, from: ip(1, 0), to: ip(1, 0)), .didChange])
    }

    @Test("Sections through a related table: a related row or a member written as it was reports nothing, on either connection", arguments: [false, true])
    func relatedRowUnchanged(other: Bool) throws {
        let fixture = try RelatedSectionEventTests.makeFixture()
        #expect(try fixture.execute(other: other, "UPDATE club SET name = name, position = position") == [])
        #expect(try fixture.execute(other: other, "UPDATE member SET wins = wins") == [])
        #expect(try fixture.execute(other: other, "UPDATE club SET name = 'CAF' WHERE id = 2")
                    == [.willChange, .sectionKept(.update, from: 1, to: 1, name: "CAF", count: 1), .didChange])
    }
}
