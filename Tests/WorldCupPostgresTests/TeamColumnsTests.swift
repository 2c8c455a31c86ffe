import Foundation
import PostgresNIO
import PostgresSupport
import Testing
import WorldCup
@testable import WorldCupPostgres

/// A team's columns are one table (`Team.columns`): a column added to a copy of it is written
/// by an add and an edit, and read back by a select and by a tap, on the test server.
@Suite(.serialized) struct PostgresTeamColumnsTests {
    /// A new column, "flag", holding the team's image name (see the SQLite store's test).
    static let scratch = PostgresTeamColumns(Team.columns + [.stored("flag", \.imageName, .text, writtenBy: [.add, .edit])])

    @Test func theTableNamesTheColumnsTheMigrationsMake() async throws {
        let database = try await FreshDatabase.make()
        defer { Task { await database.drop() } }
        _ = try PostgresTeamStore(location: database.location, seed: Seed.bundled())
        let columns = try await database.execute("""
            SELECT column_name::text, data_type::text FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = 'team'
            """).map { try $0.decode((String, String).self) }
        let types: [TeamColumn.SQLType: String] = [.bigint: "bigint", .integer: "integer", .text: "text"]
        let declared = Team.columns.map { (name: $0.name, type: types[$0.type]) }
        #expect(columns.map(\.0).sorted() == declared.map(\.name).sorted())
        for column in declared { #expect(columns.first { $0.0 == column.name }?.1 == column.type, "\(column.name)") }
    }

    @Test func aColumnAddedToTheTableIsWrittenAndReadOnPostgres() async throws {
        let database = try await FreshDatabase.make()
        defer { Task { await database.drop() } }
        let store = try PostgresTeamStore(location: database.location, seed: Seed.bundled())
        let zoneID = try #require(store.teams().first?.zoneID)
        // The migration that makes the column.
        try await database.execute(#"ALTER TABLE team ADD COLUMN flag text NOT NULL DEFAULT ''"#)
        let connection = try await TestServer.connect(database.configuration)
        defer { Task { try? await connection.close() } }
        func run(_ sql: String, _ text: PostgresRecordedWrite.Text = .init()) async throws -> [PostgresRow] {
            try await connection.query(PostgresQuery(unsafeSQL: sql, binds: text.binds), logger: TestServer.logger).collect()
        }
        func flag() async throws -> String? { try await run("SELECT flag FROM team WHERE id = 1000").first?.decode(String.self) }
        let source = #"WITH source AS (SELECT 1000::int8 AS "teamID") "#
        var team = Team(id: 1000, teamName: "Scratch", qualifyingZone: "", imageName: "added-flag", zoneID: zoneID)

        var text = PostgresRecordedWrite.Text()
        _ = try await run(source + Self.scratch.insert(team, from: "source", &text), text)
        #expect(try await flag() == "added-flag")
        team.imageName = "edited-flag"
        text = PostgresRecordedWrite.Text()
        _ = try await run(source + Self.scratch.update(to: team, from: "source", &text), text)
        #expect(try await flag() == "edited-flag")
        // Read: the image name comes from the new column, not from "imageName".
        _ = try await run("UPDATE team SET flag = 'read-flag' WHERE id = 1000")
        let row = try #require(try await run("SELECT \(Self.scratch.selectList) FROM team WHERE id = 1000").first)
        #expect(try Self.scratch.team(row).imageName == "read-flag")
        // A tap returns it as a write returns a team.
        let tapped = Self.scratch.tapped
        let written = try #require(try await run("UPDATE team SET \(tapped) = \(tapped) + 1 WHERE id = 1000 RETURNING \(Self.scratch.writtenList)").first)
        let team2 = try Self.scratch.team(written)
        #expect(team2.imageName == "read-flag")
        #expect(team2.wins == 1)
        #expect(team2.zoneID == zoneID)
    }
}
