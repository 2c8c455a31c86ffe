import Foundation
import GRDB
import PostgresNIO
import TestSupport
import Testing
@testable import WorldCupBench

/// The benchmark's boards: both stores hold the same generated teams for a seed, every column
/// of a new team's row (`Team.columns`) written as the app writes it.
@Suite("worldcup-bench's generated boards")
struct GeneratedBoardTests {
    typealias TeamRow = [String]

    @Test("SQLite and PostgreSQL hold the same 500 teams, column by column, and the same zones")
    func sameTeamsOnBothStores() throws {
        let folder = try TemporaryFolder(prefix: "generated-board").url
        let sqlite = try BenchDatabase.build(rows: 500, at: folder.appendingPathComponent("board.sqlite"), seed: 7)
        let columns = GeneratedTeams.columns.map(\.identifier).joined(separator: ", ")
        let sqliteTeams: [TeamRow] = try sqlite.database.read { db in
            try Row.fetchAll(db, sql: "SELECT \(columns) FROM team ORDER BY id").map { row -> TeamRow in row.databaseValues.map(\.description) }
        }
        let sqliteZones = try sqlite.database.read { db in try String.fetchAll(db, sql: "SELECT id || ' ' || name || ' ' || position FROM zone ORDER BY id") }

        let board = try PostgresBoard.build(rows: 500, server: FanoutBenchTests.serverURL(), seed: 7)
        defer { board.drop() }
        let (postgresTeams, postgresZones) = try PG.withConnection(board.url) { connection -> ([TeamRow], [String]) in
            let teams = try connection.query(PostgresQuery(unsafeSQL: "SELECT concat_ws(E'\\t', \(columns)) FROM team ORDER BY id"), logger: PostgresBoard.logger)
                .waitWithin(.long(.minutes(1))).map { try $0.decode(String.self).split(separator: "\t", omittingEmptySubsequences: false).map(String.init) }
            let zones = try connection.query(PostgresQuery(unsafeSQL: "SELECT id || ' ' || name || ' ' || position FROM zone ORDER BY id"), logger: PostgresBoard.logger)
                .waitWithin(.long(.minutes(1))).map { try $0.decode(String.self) }
            return (teams, zones)
        }
        #expect(sqliteTeams.count == 500)
        // GRDB's description quotes text; PostgreSQL's text form does not.
        #expect(sqliteTeams.map { $0.map { $0.trimmingCharacters(in: CharacterSet(charactersIn: "\"")) } } == postgresTeams)
        #expect(sqliteZones == postgresZones)
        #expect(Set(postgresTeams.map { (team: TeamRow) in team[2] }).count == GeneratedTeams.zones.count, "every zone holds teams")
    }
}
