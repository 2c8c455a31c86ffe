import Foundation
import GRDB
import TestSupport
import Testing
import WorldCup
import WorldCupSQLite

/// A team's columns are one table (`Team.columns`): a column added to a copy of it is written
/// by an add and an edit, and read back by a row and by the tap's statement, on a real file.
@Suite struct TeamColumnsTests {
    /// A new column, "flag", holding the team's image name (as `imageName` does, so a team has
    /// a property for it): read last, it is what the team's image name is read from.
    static let scratch = Team.columns + [.stored("flag", \.imageName, .text, writtenBy: [.add, .edit])]

    /// A team written through `scratch`, as the store's insert and update write one (GRDB's encoding).
    struct ScratchTeam: PersistableRecord {
        static let databaseTableName = "team"
        var team: Team
        func encode(to container: inout PersistenceContainer) { TeamColumnsTests.scratch.encode(team, to: &container) }
    }

    @Test func theTableNamesTheColumnsTheMigrationsMake() throws {
        let folder = try TemporaryFolder()
        _ = try seededScoreboard(folder)
        let columns = try DatabaseQueue(path: folder.database.path).read { db in
            try Row.fetchAll(db, sql: "PRAGMA table_info(team)").map { (name: $0["name"] as String, type: $0["type"] as String) }
        }
        let declared = Team.columns.map { (name: $0.name, type: $0.type == .text ? "TEXT" : "INTEGER") }
        #expect(columns.map(\.name).sorted() == declared.map(\.name).sorted())
        for column in declared { #expect(columns.first { $0.name == column.name }?.type == column.type, "\(column.name)") }
    }

    @Test func aColumnAddedToTheTableIsWrittenAndReadOnSQLite() throws {
        let folder = try TemporaryFolder()
        let store = try seededScoreboard(folder)
        let zoneID = try #require(store.teams().first?.zoneID)
        let queue = try DatabaseQueue(path: folder.database.path)
        // The migration that makes the column.
        try queue.write { try $0.execute(sql: "ALTER TABLE team ADD COLUMN flag TEXT NOT NULL DEFAULT ''") }
        let flag = { (db: Database) in try String.fetchOne(db, sql: "SELECT flag FROM team WHERE id = 1000") }
        var team = Team(id: 1000, teamName: "Scratch", qualifyingZone: "", imageName: "added-flag", zoneID: zoneID)

        try queue.write { db in
            try ScratchTeam(team: team).insert(db)
            #expect(try flag(db) == "added-flag")
            team.imageName = "edited-flag"
            try ScratchTeam(team: team).update(db)
            #expect(try flag(db) == "edited-flag")
            // Read: the image name comes from the new column, not from `imageName`.
            try db.execute(sql: "UPDATE team SET flag = 'read-flag' WHERE id = 1000")
            let row = try #require(try Row.fetchOne(db, sql: """
                SELECT team.*, zone.name AS qualifyingZone FROM team JOIN zone ON zone.id = team.zoneID WHERE team.id = 1000
                """))
            #expect(try Team(row: row, columns: Self.scratch).imageName == "read-flag")
            // The tap's statement returns it, read where the statement stands.
            let returning = Self.scratch.selectList(table: "team", zone: "(SELECT name FROM zone WHERE zone.id = team.zoneID)")
            let statement = try db.makeStatement(sql: Team.tapSQL(columns: Self.scratch, returning: returning))
            let cursor = try Int64.fetchCursor(statement, arguments: [1000])
            #expect(try cursor.next() == 1000)
            let tapped = try #require(Team.team(currentRowOf: statement, columns: Self.scratch))
            while try cursor.next() != nil {}
            #expect(tapped.imageName == "read-flag")
            #expect(tapped.wins == 1)
            #expect(tapped.qualifyingZone == (try String.fetchOne(db, sql: "SELECT name FROM zone WHERE id = ?", arguments: [zoneID])))
        }
    }
}
