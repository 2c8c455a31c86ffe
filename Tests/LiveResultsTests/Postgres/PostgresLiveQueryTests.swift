import Foundation
import GRDB
@testable import LiveResults
@testable import LiveResultsSQLite
import LiveResultsPostgres
import PostgresSupport
import Testing
import TestSupport

// `LiveQuery` over PostgreSQL: fifty subscribers at five paces (see `exerciseSubscribers`)
// while another connection's random transactions change the table, read through LISTEN and
// the change log. A failure names the seed. LIVERESULTS_LIVEQUERY_SEED runs one seed only.

@Suite struct PostgresLiveQueryTests {
    @Test("Fifty subscribers at their own paces each hold the controller's result at every version, on PostgreSQL",
          arguments: LiveQueryTests.seeds)
    func subscribers(seed: UInt64) async throws {
        let database = try await PostgresItems()
        do {
            var random = SplitMix64(seed: seed ^ 0x9057)
            try await database.insert((0..<30).map { _ in
                Item(name: random.pick(LiveQueryTests.names), zone: random.pick(LiveQueryTests.zones), score: random.int(0...5))
            })
            let query = try await LiveQuery(database.controller(fetchBatchSize: 8, recorder: nil)) { $0.name ?? "" }
            let problems = try await exerciseSubscribers(query, name: { $0.name ?? "" }, seed: seed, writes: 120, write: { random in
                let ids = try await database.allRows().keys.sorted()
                var statements = ["BEGIN"]
                for _ in 0..<(random.chance(0.2) ? random.int(2...4) : 1) {
                    let zone = random.pick(LiveQueryTests.zones).map { "'\($0)'" } ?? "NULL"
                    let id = ids.isEmpty ? 0 : random.pick(ids)
                    switch random.int(0..<9) {
                    case 0, 1: statements.append("INSERT INTO item (name, zone, score, flag) VALUES ('\(random.pick(LiveQueryTests.names))', \(zone), \(random.int(0...5)), 1)")
                    case 2: statements.append("DELETE FROM item WHERE id = \(id)")
                    case 3, 4: statements.append("UPDATE item SET score = score + \(random.int(1...3)) WHERE id = \(id)")
                    case 5: statements.append("UPDATE item SET zone = \(zone) WHERE id = \(id)")
                    case 6: statements.append("UPDATE item SET name = '\(random.pick(LiveQueryTests.names))' WHERE id = \(id)")
                    case 7: statements.append("UPDATE item SET name = name || 'x' WHERE id = \(id)")
                    default: statements.append("DELETE FROM item WHERE zone IS NOT DISTINCT FROM \(zone)")
                    }
                }
                for statement in statements + ["COMMIT"] { try await database.run(statement) }
            }, fresh: {
                let rows = try await database.allRows()
                return VersionOracle.Result(layout: expectedLayout(rows), names: rows.mapValues { $0.name ?? "" })
            })
            #expect(problems == [])
        } catch {
            await database.close()
            throw error
        }
        await database.close()
    }
}
