import Foundation
import GRDB
@testable import LiveResults
@testable import LiveResultsSQLite
import Synchronization
import Testing
import TestSupport

// A seeded, model-based test of `LiveQuery` on SQLite: fifty subscribers at five paces (see
// `exerciseSubscribers`) while random transactions change the table; sections keyed by a
// column's value, and sections through a relationship (moved and renamed). A failure names the
// seed. Environment: LIVERESULTS_LIVEQUERY_SEED runs one seed only.

@Suite struct LiveQueryTests {
    static var seeds: [UInt64] {
        ProcessInfo.processInfo.environment["LIVERESULTS_LIVEQUERY_SEED"].flatMap { ModelCase.parseSeed($0) }.map { [$0] }
            ?? [0x11FE_0001, 0x5_0B5]
    }

    static let zones: [String?] = ["Africa", "Asia", "Europe", "Oceania", nil, "", "Zed"]
    static let names = ["Ann", "Bob", "Cara", "Dan", "Eve", "Fay", "Gus", "Hal"]

    /// One random transaction on the `item` table.
    static func itemTransaction(_ database: some DatabaseWriter, _ random: inout SplitMix64) async throws {
        var statements: [String] = []
        let ids = try await database.read { try Int64.fetchAll($0, sql: "SELECT id FROM item") }
        for _ in 0..<(random.chance(0.2) ? random.int(2...4) : 1) {
            let zone = random.pick(zones).map { "'\($0)'" } ?? "NULL"
            let id = ids.isEmpty ? 0 : random.pick(ids)
            switch random.int(0..<9) {
            case 0, 1: statements.append("INSERT INTO item (name, zone, score, flag) VALUES ('\(random.pick(names))', \(zone), \(random.int(0...5)), 1)")
            case 2: statements.append("DELETE FROM item WHERE id = \(id)")
            case 3, 4: statements.append("UPDATE item SET score = score + \(random.int(1...3)) WHERE id = \(id)")
            case 5: statements.append("UPDATE item SET zone = \(zone) WHERE id = \(id)")
            case 6: statements.append("UPDATE item SET name = '\(random.pick(names))' WHERE id = \(id)")
            case 7: statements.append("UPDATE item SET name = name || 'x' WHERE id = \(id)") // a value changes, not the order
            default: statements.append("DELETE FROM item WHERE zone = \(zone)") // a section goes
            }
        }
        let script = statements
        try await database.write { db in for statement in script { try db.execute(sql: statement) } }
    }

    @Test("Fifty subscribers at their own paces each hold the controller's result at every version (sections by a column)",
          arguments: seeds)
    func columnSections(seed: UInt64) async throws {
        let database = try makeItemDatabase()
        var random = SplitMix64(seed: seed ^ 0x17E5)
        try insertItems((0..<30).map { _ in Item(name: random.pick(Self.names), zone: random.pick(Self.zones), score: random.int(0...5)) }, into: database)
        let controller = ResultsController<Item>(database: database,
                                                 fetchRequest: ResultsRequest(sortDescriptors: zoneScoreName, fetchBatchSize: 8), sectionNameKeyPath: "zone")
        let query = try await LiveQuery(controller) { $0.name ?? "" }
        let problems = try await exerciseSubscribers(query, name: { $0.name ?? "" }, seed: seed, writes: 150,
                                                     write: { try await Self.itemTransaction(database, &$0) },
                                                     fresh: { try await Self.freshItems(database) })
        #expect(problems == [])
    }

    @Test("Fifty subscribers at their own paces each hold the controller's result at every version (sections through a relationship, two connections)",
          arguments: seeds)
    func relatedSections(seed: UInt64) async throws {
        var random = SplitMix64(seed: seed ^ 0xC1_0B)
        let fixture = try ClubFixture(clubs: [(1, "Africa", 1), (2, "Asia", 2), (3, "Europe", 3), (4, "Oceania", 4)],
                                      players: (0..<24).map { _ in Member(name: random.pick(ClubOperations.playerNames), clubID: Int64(random.int(1...4)), wins: random.int(0...5)) },
                                      tracking: false)
        let controller = ResultsController<Member>(database: fixture.database, fetchRequest: ResultsRequest(sortDescriptors: ClubFixture.playerOrder, fetchBatchSize: 4),
                                                   sections: ClubFixture.sections, cacheName: nil, cacheDirectory: nil)
        controller.changeLogPollInterval = .milliseconds(20)
        let query = try await LiveQuery(controller) { $0.name }
        var operations = ClubOperations(seed: seed)
        let problems = try await exerciseSubscribers(query, name: { $0.name }, seed: seed, writes: 150, write: { random in
            let (players, clubs) = try await fixture.database.read { db in
                (try Int64.fetchAll(db, sql: "SELECT id FROM member"), try Int64.fetchAll(db, sql: "SELECT id FROM club"))
            }
            let statement = operations.statement(players: players, clubs: clubs)
            try await (random.chance(0.5) ? fixture.otherConnection : fixture.database).write { try $0.execute(sql: statement) }
        }, fresh: {
            let layout = try fixture.freshLayout()
            let names = try await fixture.database.read { try Dictionary(uniqueKeysWithValues: Row.fetchAll($0, sql: "SELECT id, name FROM member").map { ($0[0] as Int64, $0[1] as String) }) }
            return VersionOracle.Result(layout: layout, names: names.filter { id, _ in layout.contains { $0.ids.contains(id) } })
        })
        #expect(problems == [])
    }

    @Test("A thousand subscribers of one live query, each checked at every element")
    func thousandSubscribers() async throws {
        let database = try makeItemDatabase()
        var random = SplitMix64(seed: 0x1000)
        try insertItems((0..<30).map { _ in Item(name: random.pick(Self.names), zone: random.pick(Self.zones), score: random.int(0...5)) }, into: database)
        let controller = ResultsController<Item>(database: database,
                                                 fetchRequest: ResultsRequest(sortDescriptors: zoneScoreName), sectionNameKeyPath: "zone")
        let query = try await LiveQuery(controller) { $0.name ?? "" }
        let problems = try await exerciseSubscribers(query, name: { $0.name ?? "" }, seed: 0x1000, subscribers: 1_000, writes: 30,
                                                     write: { try await Self.itemTransaction(database, &$0) },
                                                     fresh: { try await Self.freshItems(database) })
        #expect(problems == [])
    }

    /// The items as SQLite orders them, with their names.
    static func freshItems(_ database: DatabaseQueue) async throws -> VersionOracle.Result {
        try await database.read { db in
            var layout: [Layout] = []
            var names: [RecordID: String] = [:]
            var lastZone: DatabaseValue?
            for row in try Row.fetchAll(db, sql: "SELECT id, zone, name FROM item ORDER BY zone COLLATE BINARY, score DESC, name COLLATE BINARY, id") {
                let zone: DatabaseValue = row["zone"]
                if lastZone.map({ !sameBytes($0, zone) }) ?? true { layout.append(Layout(String.fromDatabaseValue(zone) ?? "", [])) }
                layout[layout.count - 1].ids.append(row["id"])
                names[row["id"]] = row["name"] ?? ""
                lastZone = zone
            }
            return VersionOracle.Result(layout: layout, names: names)
        }
    }

    @Test("A subscriber further behind than maximumLag gets a snapshot again, and the query keeps no more steps than that")
    func maximumLag() async throws {
        let database = try makeItemDatabase()
        try insertItems(AsyncSequenceTests.items, into: database)
        let controller = ResultsController<Item>(database: database,
                                                 fetchRequest: ResultsRequest(sortDescriptors: zoneScoreName), sectionNameKeyPath: "zone")
        // The score in the value: a tap changes what subscribers hold, so each makes a version.
        let query = try await LiveQuery(controller, maximumLag: 5) { "\($0.name ?? "") \($0.score)" }
        let loop = Task { try await query.run() }
        var late = query.subscribe().makeAsyncIterator()
        var recent = query.subscribe().makeAsyncIterator()
        #expect(try await late.next()?.version == 0)
        #expect(try await recent.next()?.version == 0)
        for round in 1...12 {
            try await database.write { try $0.execute(sql: "UPDATE item SET score = score + 1 WHERE name = 'Ghana'") }
            // Each commit its own step: wait until the query took it.
            while query.hub.version < round { try await Task.sleep(for: .milliseconds(2)) }
            #expect(query.hub.retained.steps <= 5)
            if round == 3 {
                // Three steps behind: one batch, from 0 to 3 (Ghana is alone in Africa: an update).
                guard case .batch(let batch)? = try await recent.next() else { Issue.record("no batch"); return }
                #expect((batch.previousVersion, batch.version) == (0, 3))
                #expect(batch.changes.rowChanges.map(\.kind) == [.update])
            }
        }
        // Twelve steps behind, more than five: the whole result again, at the version now.
        guard case .snapshot(let snapshot)? = try await late.next() else { Issue.record("no snapshot"); return }
        #expect(snapshot.version == 12)
        #expect(snapshot.sections.flatMap(\.values).contains("Ghana 13"))
        loop.cancel()
        try await loop.value
        #expect(try await late.next() == nil)
        #expect(try await recent.next() == nil)
    }

    struct Boom: Error, Equatable {}

    @Test("When the query's loop throws, every subscription throws that error; cancelling a subscriber's task ends its sequence")
    func errorsAndCancellation() async throws {
        let database = try makeItemDatabase()
        try insertItems(AsyncSequenceTests.items, into: database)
        let controller = ResultsController<Item>(database: database,
                                                 fetchRequest: ResultsRequest(sortDescriptors: zoneScoreName), sectionNameKeyPath: "zone")
        let query = try await LiveQuery(controller) { item in
            if item.name == "Boom" { throw Boom() }
            return item.name ?? ""
        }
        let loop = Task { try await query.run() }
        let waiting = Task {
            var elements = 0
            do {
                for try await _ in query.subscribe() { elements += 1 }
                return "ended after \(elements) elements"
            } catch {
                return "threw \(error) after \(elements) elements"
            }
        }
        let cancelled = Task {
            var elements = 0
            for try await _ in query.subscribe() { elements += 1 }
            return elements
        }
        while query.subscriberCount < 2 { try await Task.sleep(for: .milliseconds(2)) }
        try await Task.sleep(for: .milliseconds(50))
        cancelled.cancel()
        #expect(try await cancelled.value == 1)
        #expect(query.subscriberCount == 1)
        try insertItems([Item(name: "Boom", zone: "Asia")], into: database)
        #expect(await waiting.value == "threw \(Boom()) after 1 elements")
        await #expect(throws: Boom.self) { try await loop.value }
        #expect(query.subscriberCount == 0)
    }
}
