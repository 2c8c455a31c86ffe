import Foundation
import GRDB
import Testing
@testable import LiveResults
@testable import LiveResultsSQLite

/// Names whose byte order differs from Swift's `<` or from a human's order.
private let trickyNames: [String] = [
    "B", "a", "A", "b", "é" /* U+00E9 */, "e\u{301}", "e", "f", "É", "E\u{301}", "z", "Zoë", "zoe\u{308}",
    "ß", "ss", "İ", "i\u{307}", "日本", "中国", "한국", "⚽️", "🇧🇷", "😀", "", " ", "a b", "ab", "a\u{0}b",
    "\u{FFFF}", "\u{10FFFF}", "\u{7F}",
]

@Suite("SQLite BINARY ordering")
struct OrderingTests {
    @Test("Precomposed and decomposed forms are different strings to SQLite")
    func canonicalFormsDiffer() {
        let precomposed = "\u{E9}"
        let decomposed = "e\u{301}"
        #expect(precomposed == decomposed, "Swift says they are equal")
        #expect(SQLiteOrdering.compare(precomposed.columnValue, decomposed.columnValue) == 1)
        #expect(SQLiteOrdering.compare(decomposed.columnValue, precomposed.columnValue) == -1)
        #expect(SQLiteOrdering.compare("B".columnValue, "a".columnValue) == -1)
    }

    @Test("The fetched order of names is SQLite's ORDER BY name")
    func fetchedOrderMatchesSQLite() throws {
        let fixture = try Fixture(trickyNames.map { Item(name: $0, zone: "Z") }, sortDescriptors: [SortColumn("name")], sectionNameKeyPath: nil)
        let sqlite = try fixture.database.read { try Int64.fetchAll($0, sql: "SELECT id FROM item ORDER BY name, id") }
        #expect(fixture.layout.first?.ids == sqlite)
        let byName = Dictionary(grouping: try fixture.controller.fetchedObjects, by: \.id)
        #expect(fixture.layout.first?.ids.first.flatMap { byName[$0]?.first?.name } == "")
    }

    @Test("Texts a fetch reads as bytes make the same keys a point query reads: a NUL inside, invalid UTF-8, other characters")
    func fetchedTextsEqualPointQueries() throws {
        let database = try makeItemDatabase()
        let (keys, index) = try database.write { db in
            // After the section's first row, names are read as bytes when they are plain ASCII.
            try db.execute(sql: """
                INSERT INTO item (name, zone, score) VALUES ('first', 'Z', 0), ('Team 0000001', 'Z', 1), (CAST(x'41004243' AS TEXT), 'Z', 2),
                    (CAST(x'41ff42' AS TEXT), 'Z', 3), ('é', 'Z', 4), ('', 'Z', 5), (NULL, 'Z', 6), (7, 'Z', 7), ('Zoë', 'Z', 8)
                """)
            let query = KeyQuery(tableName: "item", predicate: nil, sortDescriptors: [SortColumn("zone"), SortColumn("score"), SortColumn("name")], sectionColumn: "zone")
            let index = try query.fetchIndex(db, sectionName: SectionedIndex.sectionName)
            let keys = try query.fetchKeys(db, ids: index.allIDs.sorted())
            return (Dictionary(uniqueKeysWithValues: keys.map { ($0.id, $0.key) }), index)
        }
        #expect(index.count == 9)
        for id in index.allIDs { #expect(index.key(for: id) == keys[id], "row \(id)") }
        #expect(index.key(for: 3)?.sort[2] == "A".columnValue, "a NUL ends a text, as GRDB reads it")
    }

    @Test("Rows placed in memory by tracked inserts and renames land where SQLite puts them", arguments: [true, false])
    func trackedOrderMatchesSQLite(ascending: Bool) throws {
        let fixture = try Fixture([], sortDescriptors: [SortColumn("name", ascending: ascending)], sectionNameKeyPath: nil)
        let direction = ascending ? "ASC" : "DESC"
        func sqliteOrder() throws -> [Int64] {
            try fixture.database.read { try Int64.fetchAll($0, sql: "SELECT id FROM item ORDER BY name \(direction), id") }
        }
        // One insert per commit, so each row is placed by the in-memory comparison.
        for name in trickyNames + trickyNames.reversed() {
            try fixture.execute("INSERT INTO item (name, zone, score, flag) VALUES (?, 'Z', 0, 1)", [name])
            #expect(fixture.layout.first?.ids ?? [] == (try sqliteOrder()))
        }
        for (offset, name) in trickyNames.enumerated() {
            try fixture.execute("UPDATE item SET name = ? WHERE id = ?", [name, Int64(offset * 3 % (2 * trickyNames.count)) + 1])
        }
        #expect(fixture.layout.first?.ids ?? [] == (try sqliteOrder()))
    }

    @Test("Sections keyed by text follow byte order")
    func sectionOrder() throws {
        let zones = ["b", "B", "a", "A", "É", "Z", "😀", "日本"]
        let fixture = try Fixture(zones.map { Item(name: "x", zone: $0) })
        let sqlite = try fixture.database.read { try String.fetchAll($0, sql: "SELECT DISTINCT zone FROM item ORDER BY zone") }
        #expect(fixture.controller.sections.map(\.name) == sqlite)
        #expect(try fixture.layout == fixture.freshLayout())
    }

    /// SQLite has "\u{E9}" and "e\u{301}" as two zones; Swift's `==` on strings (and so on
    /// `ColumnValue`) considers them one.
    @Test("Zones that are canonically equivalent but different bytes are different sections", arguments: [
        ["\u{E9}", "e\u{301}"],
        ["\u{E9}", "f", "e\u{301}"],
        ["A\u{301}sia", "Asia", "\u{C1}sia"],
    ])
    func canonicallyEquivalentZones(zones: [String]) throws {
        let database = try makeItemDatabase()
        try insertItems(zones.map { Item(name: "x", zone: $0) }, into: database)
        let controller = ResultsController<Item>(database: database, fetchRequest: ResultsRequest(sortDescriptors: zoneScoreName), sectionNameKeyPath: "zone")
        try controller.performFetch()
        let sqlite = try database.read { try String.fetchAll($0, sql: "SELECT zone FROM item GROUP BY zone ORDER BY zone") }
        #expect(controller.sections.map { escaped($0.name) } == sqlite.map { escaped($0) })
    }

    @Test("Tracked zone changes between canonically equivalent forms keep sections apart")
    func trackedCanonicallyEquivalentZones() throws {
        let fixture = try Fixture([Item(name: "x", zone: "\u{E9}"), Item(name: "y", zone: "\u{E9}")])
        let events = try fixture.execute("UPDATE item SET zone = ? WHERE id = 2", ["e\u{301}"])
        let fresh = try fixture.freshLayout()
        #expect(fresh.count == 2)
        #expect(fixture.layout == fresh)
        let problems = batchViolations(old: [Layout("\u{E9}", [1, 2])], new: fresh, events: events, touched: [2])
        #expect(problems.isEmpty, "\(problems)")
    }
}

@Suite("SQLiteOrdering.compare")
struct SQLiteOrderingTests {
    @Test("Storage classes order NULL < numbers < text < blob")
    func storageClasses() {
        let ordered: [ColumnValue] = [.null, 1.columnValue, 1.5.columnValue, "".columnValue, "a".columnValue, Data().columnValue, Data([0]).columnValue]
        for (i, a) in ordered.enumerated() {
            for (j, b) in ordered.enumerated() {
                let expected = i < j ? -1 : (i == j ? 0 : 1)
                #expect(SQLiteOrdering.compare(a, b) == expected, "\(a) vs \(b)")
            }
        }
    }

    @Test("Integers and reals compare by value")
    func numbers() {
        #expect(SQLiteOrdering.compare(1.columnValue, 1.0.columnValue) == 0)
        #expect(SQLiteOrdering.compare(1.0.columnValue, 1.columnValue) == 0)
        #expect(SQLiteOrdering.compare(1.columnValue, 1.5.columnValue) == -1)
        #expect(SQLiteOrdering.compare(2.columnValue, 1.5.columnValue) == 1)
        #expect(SQLiteOrdering.compare((-1).columnValue, 0.0.columnValue) == -1)
        #expect(SQLiteOrdering.compare(0.columnValue, (-0.0).columnValue) == 0)
        #expect(SQLiteOrdering.compare(Int64.max.columnValue, Double.infinity.columnValue) == -1)
        #expect(SQLiteOrdering.compare(Int64.min.columnValue, (-Double.infinity).columnValue) == 1)
        #expect(SQLiteOrdering.compare(Int64.min.columnValue, (-9.223372036854775808e18).columnValue) == 0)
        // 2^53 + 1 is not a double; it is above the double 2^53.
        #expect(SQLiteOrdering.compare((Int64(1) << 53 + 1).columnValue, 9007199254740992.0.columnValue) == 1)
    }

    @Test("Text compares by UTF-8 bytes; blobs by bytes")
    func bytes() {
        #expect(SQLiteOrdering.compare("B".columnValue, "a".columnValue) == -1)
        #expect(SQLiteOrdering.compare("a".columnValue, "ab".columnValue) == -1)
        #expect(SQLiteOrdering.compare("ab".columnValue, "ab".columnValue) == 0)
        #expect(SQLiteOrdering.compare("z".columnValue, "\u{E9}".columnValue) == -1)
        #expect(SQLiteOrdering.compare("e\u{301}".columnValue, "f".columnValue) == -1)
        #expect(SQLiteOrdering.compare("\u{FFFF}".columnValue, "😀".columnValue) == -1)
        #expect(SQLiteOrdering.compare(Data([1, 2]).columnValue, Data([1, 3]).columnValue) == -1)
        #expect(SQLiteOrdering.compare(Data([1, 2]).columnValue, Data([1]).columnValue) == 1)
        #expect(SQLiteOrdering.compare(Data([0xFF]).columnValue, Data([0x00, 0x00]).columnValue) == 1)
    }

    @Test("compare agrees with SQLite's own comparison for every pair of values")
    func agreesWithSQLite() throws {
        let values: [ColumnValue] = [
            .null,
            Int64.min.columnValue, (-1).columnValue, 0.columnValue, 1.columnValue, 2.columnValue,
            (Int64(1) << 53).columnValue, (Int64(1) << 53 + 1).columnValue,
            (Int64.max - 1).columnValue, Int64.max.columnValue,
            (-Double.infinity).columnValue, (-9.223372036854775808e18).columnValue, (-1.5).columnValue,
            (-0.0).columnValue, 0.0.columnValue, 1.0.columnValue, 1.5.columnValue,
            9007199254740992.0.columnValue, 9.223372036854775807e18.columnValue, 1e300.columnValue,
            Double.infinity.columnValue,
            "".columnValue, " ".columnValue, "B".columnValue, "a".columnValue, "ab".columnValue,
            "\u{E9}".columnValue, "e\u{301}".columnValue, "😀".columnValue, "日本".columnValue,
            Data().columnValue, Data([0]).columnValue, Data([1, 2]).columnValue, Data([0xFF]).columnValue,
        ]
        // Rank the values with ORDER BY itself: peers (equal values) share a rank.
        let database = try DatabaseQueue()
        let ranks: [Int] = try database.write { db in
            try db.execute(sql: "CREATE TABLE v (i INTEGER, x)") // no type: values keep their storage class
            for (i, value) in values.enumerated() {
                try db.execute(sql: "INSERT INTO v (i, x) VALUES (?, ?)", arguments: [i, value])
            }
            let rows = try Row.fetchAll(db, sql: "SELECT i, DENSE_RANK() OVER (ORDER BY x) AS r FROM v")
            var ranks = Array(repeating: 0, count: values.count)
            for row in rows { ranks[row["i"]] = row["r"] }
            return ranks
        }
        let sqlite = ranks.map { a in ranks.map { b in a < b ? -1 : (a == b ? 0 : 1) } }
        var disagreements: [String] = []
        for (i, a) in values.enumerated() {
            for (j, b) in values.enumerated() where SQLiteOrdering.compare(a, b) != sqlite[i][j] {
                disagreements.append("compare(\(a), \(b)) = \(SQLiteOrdering.compare(a, b)), SQLite says \(sqlite[i][j])")
            }
        }
        #expect(disagreements.isEmpty, "\(disagreements.joined(separator: "\n"))")
    }
}
