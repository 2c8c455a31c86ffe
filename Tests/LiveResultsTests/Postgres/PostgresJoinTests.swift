import Foundation
import GRDB
@testable import LiveResults
@testable import LiveResultsSQLite
@testable import LiveResultsPostgres
import PostgresNIO
import PostgresSupport
import TestSupport
import Testing

// Sections through a related table on PostgreSQL: members sectioned by the zone they name.
// A zone renamed is one section update, moved one section move, merged into another its
// members' moves and one section delete; a member reassigned one row move. Then a seeded,
// model-based test with random operations on both tables from three writers whose transactions
// interleave, some through this process's `PostgresWriter`, every batch through the batch checker
// (`batchViolations`, which applies it as a table view does), the result compared with a fresh fetch.

@Suite struct PostgresJoinTests {
    /// Zones Africa (0), Asia (1), Europe (2); members 1…6, two per zone, scores 1…6.
    static func seeded() async throws -> PostgresZones {
        let database = try await PostgresZones()
        try await database.run(
            "INSERT INTO zone (id, name, position) VALUES (1, 'Africa', 0), (2, 'Asia', 1), (3, 'Europe', 2)",
            "INSERT INTO member (id, name, zone_id, score, flag) SELECT n, 'm' || n, (n + 1) / 2, n, 1 FROM generate_series(1, 6) AS n")
        return database
    }

    /// Fetches, runs `statements` on another connection, waits for the batch, and returns it
    /// with the layouts before and after; checks the batch rebuilds the fresh result.
    static func change(_ database: PostgresZones, _ statements: String...,
                       sourceLocation: SourceLocation = #_sourceLocation) async throws -> (batch: ChangeBatch, before: [Layout], after: [Layout]) {
        let recorder = BatchRecorder()
        let controller = database.controller(recorder: recorder)
        controller.changeLogPollInterval = .zero
        try controller.performFetch()
        let before = controller.joinedLayout
        let zonesBefore = try await database.zones()
        #expect(before == expectedJoinedLayout(try await database.members(), zonesBefore), sourceLocation: sourceLocation)
        for statement in statements { try await database.run(statement) }
        let zonesAfter = try await database.zones()
        let fresh = expectedJoinedLayout(try await database.members(), zonesAfter)
        let changedZones = Set(zonesBefore.keys).union(zonesAfter.keys).filter { zonesBefore[$0] != zonesAfter[$0] }.map(String.init)
        try await controller.processJoinedChanges { controller.joinedLayout == fresh }
        let recorded = recorder.take()
        try #require(recorded.count == 1, "one batch, not \(recorded.count)", sourceLocation: sourceLocation)
        let problems = batchViolations(old: before, new: fresh, events: recorded[0].events, changedSections: Set(changedZones))
        #expect(problems.isEmpty, "\(problems)", sourceLocation: sourceLocation)
        #expect(recorded[0].after == fresh, sourceLocation: sourceLocation)
        #expect(recorder.resets == 0, sourceLocation: sourceLocation)
        return (recorded[0].batch, before, fresh)
    }

    @Test("With no zone at all, the fetch is empty and follows the first zone and member made (the cursor read beside the zones)")
    func fromNoZones() async throws {
        let database = try await PostgresZones()
        defer { Task { await database.close() } }
        let (_, before, after) = try await Self.change(database, "BEGIN", "INSERT INTO zone (id, name, position) VALUES (1, 'Africa', 0)",
                                                       "INSERT INTO member (id, name, zone_id, score, flag) VALUES (1, 'm1', 1, 1, 1)", "COMMIT")
        #expect(before.allSatisfy { $0.ids.isEmpty })
        #expect(after == [Layout("Africa", [1], identifier: "1")])
    }

    @Test("The fetch: sections in the zones' order, titled by their names, members inside by their own order; members of no zone left out")
    func fetch() async throws {
        let database = try await Self.seeded()
        defer { Task { await database.close() } }
        try await database.run("UPDATE zone SET position = 5 WHERE id = 1", "INSERT INTO member (id, name, zone_id, score) VALUES (7, 'lost', 42, 9)")
        let controller = database.controller(recorder: nil)
        try controller.performFetch()
        #expect(controller.joinedLayout == [Layout("Asia", [4, 3], identifier: "2"), Layout("Europe", [6, 5], identifier: "3"),
                                            Layout("Africa", [2, 1], identifier: "1")])
        #expect(controller.snapshot().sectionIdentifiers == ["2", "3", "1"])
    }

    @Test("A zone renamed is one section update: no row event, the rows unread")
    func rename() async throws {
        let database = try await Self.seeded()
        defer { Task { await database.close() } }
        let (batch, _, after) = try await Self.change(database, "UPDATE zone SET name = 'CAF' WHERE id = 1")
        #expect(batch.sectionChanges == [SectionChange(kind: .update, index: 0, newIndex: 0, name: "CAF", identifier: "1")])
        #expect(batch.rowChanges.isEmpty)
        #expect(after[0].name == "CAF")
    }

    @Test("Two zones swapped: one section move, its rows travelling unreported, and the other, whose order changed, a section update (rule 11)")
    func move() async throws {
        let database = try await Self.seeded()
        defer { Task { await database.close() } }
        let (batch, _, _) = try await Self.change(database, "UPDATE zone SET position = CASE WHEN id = 1 THEN 1 ELSE 0 END WHERE id IN (1, 2)")
        #expect(batch.sectionChanges.count == 2)
        #expect(Set(batch.sectionChanges.map(\.kind)) == [.move, .update])
        #expect(batch.rowChanges.isEmpty)
    }

    @Test("A zone merged into another: its members go into it, and its section goes")
    func merge() async throws {
        let database = try await Self.seeded()
        defer { Task { await database.close() } }
        let (batch, _, after) = try await Self.change(database, "BEGIN", "UPDATE member SET zone_id = 3 WHERE zone_id = 1", "DELETE FROM zone WHERE id = 1", "COMMIT")
        #expect(batch.sectionChanges == [SectionChange(kind: .delete, index: 0, name: "Africa", identifier: "1")])
        // Out of a deleted section, a row comes as a delete and an insert, never a move (rule 4).
        #expect(batch.rowChanges.map(\.kind).sorted { "\($0)" < "\($1)" } == [.delete, .delete, .insert, .insert])
        #expect(Set(batch.rowChanges.map(\.id)) == [1, 2])
        #expect(after.map(\.identifier) == ["2", "3"])
    }

    @Test("A member reassigned is one row move between existing sections; into an empty zone, a delete and an insert with its section")
    func reassign() async throws {
        let database = try await Self.seeded()
        defer { Task { await database.close() } }
        let (batch, _, _) = try await Self.change(database, "UPDATE member SET zone_id = 3 WHERE id = 1")
        #expect(batch.sectionChanges.isEmpty)
        #expect(batch.rowChanges.map(\.kind) == [.move])
        try await database.run("INSERT INTO zone (id, name, position) VALUES (4, 'Oceania', 3)")
        let (into, _, _) = try await Self.change(database, "UPDATE member SET zone_id = 4 WHERE id = 3")
        #expect(into.sectionChanges == [SectionChange(kind: .insert, index: 3, name: "Oceania", identifier: "4")])
        #expect(into.rowChanges.map(\.kind) == [.delete, .insert], "into an inserted section: a delete and an insert (rule 4)")
    }

    @Test("A zone that appears brings in the members that named it; one that goes takes them out (no foreign key)")
    func zonesAppearAndGo() async throws {
        let database = try await Self.seeded()
        defer { Task { await database.close() } }
        let (gone, _, _) = try await Self.change(database, "DELETE FROM zone WHERE id = 2")
        #expect(gone.sectionChanges.map(\.kind) == [.delete])
        #expect(Set(gone.rowChanges.map(\.id)) == [3, 4])
        let (back, _, _) = try await Self.change(database, "INSERT INTO zone (id, name, position) VALUES (2, 'Asia', 1)")
        #expect(back.sectionChanges.map(\.kind) == [.insert])
        #expect(Set(back.rowChanges.map(\.id)) == [3, 4])
    }

    @Test("Members read again only because of their zone, whose keys the feed no longer knew (a TRUNCATE's refetch), are not reported when they stay in place (rule 6)")
    func membersReadByForeignKeyStayUnreported() async throws {
        let database = try await Self.seeded()
        defer { Task { await database.close() } }
        let recorder = BatchRecorder()
        let controller = database.controller(recorder: recorder)
        controller.changeLogPollInterval = .zero
        try controller.performFetch()
        try controller.refresh()
        let feed = try #require(database.database.ownWrites.listeners(under: "member").first)
        let before = controller.joinedLayout
        // The same members again after a TRUNCATE: the feed's read of it (at its notification)
        // refetches and forgets which zones existed at its cursor, until its next read.
        let reads = feed.logReadsBegun
        try await database.run("BEGIN", "TRUNCATE member",
                               "INSERT INTO member (id, name, zone_id, score, flag) SELECT n, 'm' || n, (n + 1) / 2, n, 1 FROM generate_series(1, 6) AS n",
                               "COMMIT")
        let deadline = ContinuousClock.now + .seconds(10)
        while feed.logReadsBegun == reads, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
        try await Task.sleep(for: .milliseconds(100))
        try controller.processPendingChanges()
        let refetched = recorder.take()
        try #require(refetched.count == 1, "the refetch's batch, not \(refetched.count)")
        #expect(controller.refetchCount == 1)
        let truncated = controller.joinedLayout
        // That next read is the rename's, which reads Africa's members again by foreign key: they did not change.
        try await database.run("UPDATE zone SET name = 'CAF' WHERE id = 1")
        let fresh = expectedJoinedLayout(try await database.members(), try await database.zones())
        let done = ContinuousClock.now + .seconds(10)
        while controller.joinedLayout != fresh || feed.logReadsBegun < reads + 2, ContinuousClock.now < done {
            try await Task.sleep(for: .milliseconds(10))
            try controller.processPendingChanges()
        }
        try controller.processPendingChanges()
        #expect(controller.joinedLayout == fresh)
        let recorded = recorder.take()
        try #require(recorded.count == 1, "the rename's batch, not \(recorded.count)")
        #expect(recorded[0].batch.sectionChanges.map(\.kind) == [.update])
        #expect(recorded[0].batch.rowChanges.isEmpty, "\(recorded[0].batch.rowChanges)")
        #expect(batchViolations(old: truncated, new: fresh, events: recorded[0].events).isEmpty)
        #expect(truncated == before)
    }

    @Test("This process's writes through PostgresWriter reach the controller from their answer: rows with their zone, a zone renamed in place")
    func ownWrites() async throws {
        let database = try await Self.seeded()
        defer { Task { await database.close() } }
        try await database.run("INSERT INTO zone (id, name, position) VALUES (4, 'Oceania', 3)")
        let recorder = BatchRecorder()
        let controller = database.controller(recorder: recorder)
        controller.changeLogPollInterval = .zero
        try controller.performFetch()
        let before = controller.joinedLayout
        let writer = PostgresWriter(handingOverTo: database.database)
        _ = try writer.write(PostgresWrite(table: "member", "UPDATE member SET zone_id = 4 WHERE id = 1"), on: database.writer)
        // Handed over: delivered without a look at the log.
        try controller.processPendingChanges()
        let recorded = recorder.take()
        try #require(recorded.count == 1)
        let fresh = expectedJoinedLayout(try await database.members(), try await database.zones())
        let problems = batchViolations(old: before, new: fresh, events: recorded[0].events)
        #expect(problems.isEmpty, "\(problems)")
        #expect(controller.joinedLayout == fresh)
        #expect(recorded[0].batch.sectionChanges.map(\.name) == ["Oceania"])

        // A zone renamed through the writer: handed over too, one section update at once.
        let renamed = controller.joinedLayout
        _ = try writer.write(PostgresWrite(table: "zone", "UPDATE zone SET name = 'OFC' WHERE id = 4"), on: database.writer)
        try controller.processPendingChanges()
        let rename = recorder.take()
        try #require(rename.count == 1, "the rename is delivered from the write's answer")
        #expect(rename[0].batch.sectionChanges.map(\.kind) == [.update] && rename[0].batch.rowChanges.isEmpty)
        #expect(batchViolations(old: renamed, new: expectedJoinedLayout(try await database.members(), try await database.zones()),
                                events: rename[0].events).isEmpty)
        // A zone deleted through it is left to the log, which reads its members by foreign key.
        _ = try writer.write(PostgresWrite(table: "zone", "DELETE FROM zone WHERE id = 2", deletes: true), on: database.writer)
        let fresh2 = expectedJoinedLayout(try await database.members(), try await database.zones())
        try await controller.processJoinedChanges { controller.joinedLayout == fresh2 }
        #expect(controller.joinedLayout == fresh2)
    }

    @Test("Connections terminated while zones change: made again, and the batches take the result to the fresh one (a log pruned past the controller too)",
          arguments: [PostgresChangeLog.defaultRetained, 10])
    func reconnects(retained: Int) async throws {
        let database = try await PostgresZones(retaining: retained)
        defer { Task { await database.close() } }
        try await database.run(
            "INSERT INTO zone (id, name, position) VALUES (1, 'Africa', 0), (2, 'Asia', 1), (3, 'Europe', 2)",
            "INSERT INTO member (id, name, zone_id, score, flag) SELECT n, 'm' || n, n % 3 + 1, n, 1 FROM generate_series(1, 30) AS n")
        let recorder = BatchRecorder()
        let controller = database.controller(recorder: recorder)
        controller.changeLogPollInterval = .zero
        try controller.performFetch()
        var held = controller.joinedLayout
        let killed = try await database.writer.query("""
            SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()
            """, logger: TestServer.logger).collect().count
        #expect(killed == 1, "the controller's one connection")
        // While it is down: a rename, a move, a zone gone with its members, members reassigned, a zone back.
        try await database.run(
            "UPDATE zone SET name = 'CAF' WHERE id = 1", "UPDATE zone SET position = 5 WHERE id = 2",
            "DELETE FROM zone WHERE id = 3", "UPDATE member SET zone_id = 1 WHERE id IN (4, 5)",
            "UPDATE member SET score = score + 10 WHERE id % 4 = 0", "INSERT INTO zone (id, name, position) VALUES (3, 'UEFA', 1)")
        let fresh = expectedJoinedLayout(try await database.members(), try await database.zones())
        try await controller.processJoinedChanges { (try? controller.refresh()) != nil && controller.joinedLayout == fresh }
        #expect(controller.joinedLayout == fresh)
        for (events, _, after) in recorder.take() {
            let problems = batchViolations(old: held, new: after, events: events)
            #expect(problems.isEmpty, "\(problems)")
            held = after
        }
        #expect(held == fresh)
        #expect(recorder.resets == 0)
    }

    @Test("A related table without a change log is refused at the fetch, in one sentence")
    func relatedTableWithoutLog() async throws {
        let database = try await Self.seeded()
        defer { Task { await database.close() } }
        try await database.run("DROP TRIGGER liveresults_log ON zone")
        let recorder = BatchRecorder()
        let controller = database.controller(recorder: recorder)
        let error = #expect(throws: LiveResultsError.self) { try controller.performFetch() }
        #expect(error?.description.contains("“zone” has no change log") == true, "\(String(describing: error))")
        withExtendedLifetime(recorder) {}
    }
}

extension ResultsController<ZonedMember> {
    /// Looks at the log every 10 ms until `done` holds or 10 s pass.
    func processJoinedChanges(until done: () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(10)
        while !done(), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
            try refresh()
        }
    }
}

// MARK: - The model

struct PostgresJoinModelCase: CustomTestStringConvertible, Sendable {
    var seed: UInt64
    /// Whether members reference zones with ON DELETE CASCADE (else they may name no zone).
    var foreignKey = false
    var predicate = false
    /// Whether some writes go through `PostgresWriter.write`.
    var early = false
    var steps = 150

    var testDescription: String {
        "seed \(seed)" + (foreignKey ? ", foreign key" : "") + (predicate ? ", predicate" : "") + (early ? ", early writes" : "")
    }

    static var all: [PostgresJoinModelCase] {
        if let text = ProcessInfo.processInfo.environment["LIVERESULTS_MODEL_SEED"],
           let seed = text.hasPrefix("0x") ? UInt64(text.dropFirst(2), radix: 16) : UInt64(text) {
            return [PostgresJoinModelCase(seed: seed), PostgresJoinModelCase(seed: seed, foreignKey: true, early: true)]
        }
        return [
            PostgresJoinModelCase(seed: 1), PostgresJoinModelCase(seed: 2, foreignKey: true),
            PostgresJoinModelCase(seed: 3, predicate: true), PostgresJoinModelCase(seed: 4, early: true),
            PostgresJoinModelCase(seed: 5, foreignKey: true, early: true), PostgresJoinModelCase(seed: 6, predicate: true, early: true),
        ]
    }
}

@Suite struct PostgresJoinModelTests {
    static let zoneNames = ["Africa", "Asia", "Europe", "europe", "Éurope", "Oceania"]

    /// One writer: its connection, the residue of the ids it owns (members and zones), whether
    /// its transaction is open.
    final class Writer: @unchecked Sendable { // Used by one test's task only.
        let connection: PostgresConnection
        let residue: Int64
        var inTransaction = false
        var nextID: Int64

        init(_ connection: PostgresConnection, residue: Int64) {
            self.connection = connection
            self.residue = residue
            nextID = 3000 + residue
        }

        func newID() -> Int64 {
            nextID += 3
            return nextID
        }

        func run(_ sql: String) async throws {
            try await connection.query(PostgresQuery(unsafeSQL: sql), logger: TestServer.logger)
        }
    }

    /// A random statement of `writer` on what it owns; with `quiet` (no transaction open
    /// anywhere), also statements that touch others' rows (a merge, a swap of two zones, a
    /// zone deleted under a foreign key).
    static func statement(_ random: inout SplitMix64, _ writer: Writer, members: [Int64: ZonedMember], zones: [Int64: ZoneRow],
                          modelCase: PostgresJoinModelCase, quiet: Bool) -> String {
        let owned = { (ids: [Int64]) in ids.filter { $0 % 3 == writer.residue }.sorted() }
        let myMembers = owned(Array(members.keys))
        let myZones = owned(Array(zones.keys))
        let zoneIDs = zones.keys.sorted()
        // A zone a member names: an existing one, or (without a foreign key) now and then one of
        // the three the writers insert and delete again and again (3000…3002), which may not
        // exist: its members then come and go with it.
        func zone() -> String {
            if zoneIDs.isEmpty || (!modelCase.foreignKey && random.chance(0.15)) { return modelCase.foreignKey ? "NULL" : String(3000 + random.int(0...2)) }
            return String(random.pick(zoneIDs))
        }
        func name() -> String { "'" + (random.pick(modelNames) ?? "nobody").replacingOccurrences(of: "'", with: "''") + "'" }
        func zoneName() -> String { "'" + random.pick(zoneNames) + "'" }
        switch random.int(0..<100) {
        case ..<6:
            // The writer's own recurring zone (3000 + residue), which members may name while it is gone.
            return "INSERT INTO zone (id, name, position) VALUES (\(3000 + writer.residue), \(zoneName()), \(random.int(0...5))) ON CONFLICT (id) DO NOTHING"
        case ..<12:
            return "INSERT INTO zone (id, name, position) VALUES (\(writer.newID()), \(zoneName()), \(random.int(0...5)))"
        case ..<22 where !myZones.isEmpty:
            return "UPDATE zone SET name = \(zoneName()) WHERE id = \(random.pick(myZones))"
        case ..<30 where !myZones.isEmpty:
            return "UPDATE zone SET position = \(random.int(0...5)) WHERE id = \(random.pick(myZones))"
        case ..<34 where quiet && zoneIDs.count >= 2:
            let (a, b) = (random.pick(zoneIDs), random.pick(zoneIDs))
            return "UPDATE zone SET position = CASE WHEN id = \(a) THEN (SELECT position FROM zone WHERE id = \(b)) ELSE (SELECT position FROM zone WHERE id = \(a)) END WHERE id IN (\(a), \(b))"
        case ..<38 where !myZones.isEmpty && (quiet || !modelCase.foreignKey):
            return "DELETE FROM zone WHERE id = \(random.pick(myZones))"
        case ..<41 where quiet && zoneIDs.count >= 2:
            let (from, into) = (random.pick(zoneIDs), random.pick(zoneIDs))
            return from == into ? "SELECT 1" : "WITH moved AS (UPDATE member SET zone_id = \(into) WHERE zone_id = \(from)) DELETE FROM zone WHERE id = \(from)"
        case ..<55 where !myMembers.isEmpty:
            return "UPDATE member SET score = score + 1 WHERE id = \(random.pick(myMembers))"
        case ..<67 where !myMembers.isEmpty:
            return "UPDATE member SET zone_id = \(zone()) WHERE id = \(random.pick(myMembers))"
        case ..<72 where !myMembers.isEmpty:
            return "UPDATE member SET name = \(name()) WHERE id = \(random.pick(myMembers))"
        case ..<76 where !myMembers.isEmpty:
            return "UPDATE member SET flag = 1 - flag WHERE id = \(random.pick(myMembers))"
        case ..<82 where !myMembers.isEmpty:
            return "DELETE FROM member WHERE id = \(random.pick(myMembers))"
        default:
            return "INSERT INTO member (id, name, zone_id, score, flag) VALUES (\(writer.newID()), \(name()), \(zone()), \(random.int(0...9)), \(random.chance(0.7) ? 1 : 0))"
        }
    }

    @Test("Random operations on members and zones from three interleaved writers: every batch applies to the fresh result",
          arguments: PostgresJoinModelCase.all)
    func randomOperationsOnBothTables(_ modelCase: PostgresJoinModelCase) async throws {
        let database = try await PostgresZones(foreignKey: modelCase.foreignKey)
        var writers: [Writer] = []
        for residue in 0..<3 { writers.append(Writer(try await TestServer.connect(database.configuration), residue: Int64(residue))) }
        do {
            try await run(modelCase, database, writers)
        } catch {
            Issue.record("\(modelCase.testDescription): \(String(reflecting: error))")
        }
        for writer in writers { try? await writer.connection.close() }
        await database.close()
    }

    func run(_ modelCase: PostgresJoinModelCase, _ database: PostgresZones, _ writers: [Writer]) async throws {
        var random = SplitMix64(seed: modelCase.seed)
        for writer in writers { try await writer.run("SET lock_timeout = '5s'") }
        for _ in 0..<30 {
            let writer = random.pick(writers)
            try await writer.run(Self.statement(&random, writer, members: try await database.members(), zones: try await database.zones(),
                                                modelCase: modelCase, quiet: true))
        }
        let recorder = BatchRecorder()
        let matching: (ZonedMember) -> Bool = modelCase.predicate ? { $0.flag == 1 } : { _ in true }
        let controller = database.controller(predicate: modelCase.predicate ? "flag = \(1)" : nil, recorder: recorder)
        controller.changeLogPollInterval = .zero
        try controller.performFetch()
        var held = controller.joinedLayout
        let context = { (step: Int, what: String) in "\(modelCase.testDescription), step \(step): \(what)" }
        #expect(held == expectedJoinedLayout(try await database.members(), try await database.zones(), matching: matching), "\(context(0, "the fetch"))")

        for step in 1...modelCase.steps {
            let writer = random.pick(writers)
            let quiet = !writers.contains(where: \.inTransaction)
            let (members, zones) = (try await database.members(), try await database.zones())
            let sql = Self.statement(&random, writer, members: members, zones: zones, modelCase: modelCase, quiet: quiet)
            if writer.inTransaction {
                switch random.int(0..<10) {
                case ..<6: try await writer.run(Self.statement(&random, writer, members: members, zones: zones, modelCase: modelCase, quiet: false))
                case ..<9: try await writer.run("COMMIT"); writer.inTransaction = false
                default: try await writer.run("ROLLBACK"); writer.inTransaction = false
                }
            } else if random.chance(0.3) {
                try await writer.run("BEGIN")
                writer.inTransaction = true
                try await writer.run(Self.statement(&random, writer, members: members, zones: zones, modelCase: modelCase, quiet: false))
            } else if modelCase.early, random.chance(0.5), !sql.hasPrefix("SELECT") {
                let table = sql.contains("INTO zone") || sql.hasPrefix("UPDATE zone") || sql.hasPrefix("DELETE FROM zone") || sql.hasPrefix("WITH") ? "zone" : "member"
                let write = PostgresWrite(table: table, PostgresQuery(unsafeSQL: sql), deletes: sql.hasPrefix("DELETE") || sql.hasPrefix("WITH"))
                _ = try PostgresWriter(handingOverTo: database.database).write(write, on: writer.connection)
            } else {
                try await writer.run(sql)
            }
            let nowQuiet = !writers.contains(where: \.inTransaction)
            guard nowQuiet || random.chance(0.3) else { continue }

            try controller.refresh()
            #expect(recorder.resets == 0, "\(context(step, "a reset, where the log knows what changed"))")
            for (events, _, after) in recorder.take() {
                let problems = batchViolations(old: held, new: after, events: events)
                #expect(problems.isEmpty, "\(context(step, problems.joined(separator: "; ") + "\n\(events)"))")
                held = after
            }
            #expect(held == controller.joinedLayout, "\(context(step, "the last batch's result is the controller's"))")
            if nowQuiet {
                let fresh = expectedJoinedLayout(try await database.members(), try await database.zones(), matching: matching)
                #expect(controller.joinedLayout == fresh, "\(context(step, "the result after every commit is read\n  ours:  \(controller.joinedLayout)\n  fresh: \(fresh)"))")
                if controller.joinedLayout != fresh { return }
            }
        }
    }
}
