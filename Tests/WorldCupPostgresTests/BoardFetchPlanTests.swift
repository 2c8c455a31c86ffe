import Foundation
import LiveResults
@testable import LiveResultsPostgres
import PostgresNIO
import PostgresSupport
import Testing
import WorldCup
import WorldCupPostgres

/// The board's controller on PostgreSQL reads zone by zone, each zone's teams from the
/// schema's board index in the board's order: no sort of the teams in its fetch's plan.
@Suite struct BoardFetchPlanTests {
    @Test func theBoardsFetchSortsNoTeam() async throws {
        let (configuration, drop) = try await TestServer.freshDatabase()
        let connection = try await TestServer.connect(configuration)
        func close() async {
            try? await connection.close()
            await drop()
        }
        do {
            for sql in [PostgresSchema.createZoneTable, PostgresSchema.createTeamTable] + PostgresSchema.teamIndexes {
                try await connection.query(PostgresQuery(unsafeSQL: sql), logger: TestServer.logger)
            }
            // The tables are empty: told that sorting costs too much, the planner shows whether
            // the index can give the order. The zones (a handful, no index on their position)
            // may be sorted; the teams must not be.
            try await connection.query("SET enable_sort = off", logger: TestServer.logger)
            let statements = try PostgresKeyQuery(tableName: "team", sortDescriptors: Team.boardOrder, related: Team.boardSections)
                .prepare(connection, logger: TestServer.logger)
            let query = try statements.selectAll()
            let rows = try await connection.query(PostgresQuery(unsafeSQL: "EXPLAIN " + query.sql, binds: query.binds), logger: TestServer.logger)
            var plan: [String] = []
            for try await line in rows.decode(String.self) { plan.append(line) }
            let text = plan.joined(separator: "\n")
            #expect(text.contains(PostgresSchema.boardIndexName), "\(text)")
            #expect(!text.contains("Incremental Sort") && !plan.contains { $0.contains("Sort Key") && $0.contains("wins") }, "\(text)")
        } catch {
            await close()
            throw error
        }
        await close()
    }
}
