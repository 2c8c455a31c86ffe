import GRDB
import Testing
@testable import LiveResults
@testable import LiveResultsSQLite

@Suite("Key queries")
struct KeyQueryTests {
    @Test("Names match as SQLite matches identifiers: ASCII case ignored, nothing else")
    func namesIgnoreASCIICase() {
        let names = SQLNames(["rowid", "teamName", "Zone"])
        for name in ["rowid", "ROWID", "RowId", "teamname", "TEAMNAME", "zone", "ZONE"] {
            #expect(names.contains(name), "\(name)")
        }
        for name in ["", "row", "rowids", "team_name", "zones", "Zon"] {
            #expect(!names.contains(name), "\(name)")
        }
        // SQLite folds only ASCII letters: É and é are different identifiers.
        #expect(SQLNames(["équipe"]).contains("équipe"))
        #expect(!SQLNames(["équipe"]).contains("Équipe"))
        #expect(!SQLNames([]).contains("rowid"))
    }

    @Test("Point reads answer every id asked, in order: nil for rows gone or not matching, across chunks")
    func pointReadsInOrder() throws {
        let queue = try DatabaseQueue()
        try queue.write { db in
            try db.execute(sql: "CREATE TABLE item (id INTEGER PRIMARY KEY, name TEXT, zone TEXT, kept INTEGER)")
            for id in 1...1_200 {
                try db.execute(sql: "INSERT INTO item VALUES (?, ?, ?, ?)", arguments: [id, "n\(id % 97)", "z\(id % 5)", id % 3 == 0 ? 0 : 1])
            }
        }
        let query = KeyQuery(tableName: "item", predicate: SQL(sql: "kept = 1"), sortDescriptors: [SortColumn("ZONE"), SortColumn("name")], sectionColumn: "zone")
        // Ids past the table's end, and rows the predicate leaves out, answer nil.
        let ids = Array(stride(from: 2, through: 1_500, by: 1)).map(Int64.init)
        let keys = try queue.read { db in try query.fetchKeys(db, ids: ids) }
        #expect(keys.map(\.id) == ids)
        for (id, key) in keys {
            if id > 1_200 || id % 3 == 0 {
                #expect(key == nil, "\(id)")
            } else {
                // The section column is the first sort column (named in another case): read once.
                #expect(key == RowKey(section: "z\(id % 5)".columnValue, sort: ["z\(id % 5)".columnValue, "n\(id % 97)".columnValue]), "\(id)")
            }
        }
        #expect(try queue.read { db in try query.fetchKeys(db, ids: []) }.isEmpty)
        #expect(try queue.read { db in try query.fetchKeys(db, ids: [7]) }.map(\.key) == [RowKey(section: "z2".columnValue, sort: ["z2".columnValue, "n7".columnValue])])
    }
}
