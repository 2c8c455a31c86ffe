import Foundation
import LiveResults
@testable import LiveResultsPostgres
import PostgresNIO
import Testing

/// The key query's ORDER BY on a real server against LiveResults' in-memory order.
@Suite struct KeyQueryOrderTests {
    /// Rows whose order differs between byte order and a locale: case, accents, a decomposed
    /// "é" beside the composed one, emoji, the empty string, NULLs, and equal values that
    /// only the id separates.
    static let names: [(id: Int64, name: String?)] = [
        (1, "B"), (2, "a"), (3, "Ä"), (4, "ä"), (5, "\u{E9}"), (6, "e\u{301}"), (7, "😀"), (8, "z"),
        (9, "Zebra"), (10, nil), (11, "B"), (12, ""), (13, "A"), (14, nil), (15, "b"), (16, "ø"),
        (17, "e"), (18, "\u{E9}"), (19, "f"), (20, "ﬁ"),
    ]

    static let createAndFill = """
        CREATE TABLE names (id bigint PRIMARY KEY, name text, zone varchar, score int4, ratio float8, flag bool, tag bytea)
        """

    /// A fresh table `names` with the rows above, and derived columns of every supported type.
    func fill(_ connection: PostgresConnection) async throws {
        try await connection.run(Self.createAndFill)
        for (id, name) in Self.names {
            let zone = ["Europe", "europe", "Éurope"][Int(id) % 3]
            let score: Int32? = id % 4 == 0 ? nil : Int32(id % 3)
            let ratio: Double? = id % 5 == 0 ? nil : Double(id % 4) - 1.5
            let flag: Bool? = id % 6 == 0 ? nil : id % 2 == 0
            let tag: [UInt8]? = id % 7 == 0 ? nil : [UInt8(id % 3), 0xff - UInt8(id % 2)]
            try await connection.query("""
                INSERT INTO names VALUES (\(id), \(name), \(zone), \(score), \(ratio), \(flag), \(tag.map { Data($0) }))
                """, logger: logger)
        }
    }

    /// The values of the given columns of every row, read back.
    func values(_ connection: PostgresConnection, columns: [String]) async throws -> [(id: RecordID, values: [ColumnValue])] {
        let query = PostgresKeyQuery(tableName: "names", sortDescriptors: columns.map { SortColumn($0) })
        return try query.fetchAll(connection).map { ($0.id, $0.key.sort) }
    }

    /// The ids in LiveResults' order: SQLiteOrdering under each direction, then the id.
    func sortedInMemory(_ rows: [(id: RecordID, values: [ColumnValue])], ascending: [Bool]) -> [RecordID] {
        rows.sorted { a, b in
            for (column, up) in ascending.enumerated() {
                let order = SQLiteOrdering.compare(a.values[column], b.values[column])
                if order != 0 { return up ? order < 0 : order > 0 }
            }
            return a.id < b.id
        }.map(\.id)
    }

    @Test(arguments: [
        [SortColumn("name")],
        [SortColumn("name", ascending: false)],
        [SortColumn("score", ascending: false), SortColumn("name")],
        [SortColumn("ratio"), SortColumn("tag", ascending: false)],
        [SortColumn("flag"), SortColumn("name", ascending: false)],
        [SortColumn("zone", ascending: false), SortColumn("score"), SortColumn("ratio", ascending: false)],
    ])
    func theServersOrderIsLiveResultsOrder(_ sort: [SortColumn]) async throws {
        try await withDatabase { connect in
            let connection = try await connect()
            try await fill(connection)
            let fetched = try PostgresKeyQuery(tableName: "names", sortDescriptors: sort).fetchAll(connection)
            let rows = fetched.map { (id: $0.id, values: $0.key.sort) }
            #expect(rows.count == Self.names.count)
            #expect(fetched.map(\.id) == sortedInMemory(rows, ascending: sort.map(\.ascending)))
        }
    }

    @Test func valuesComeBackByteForByteAndTyped() async throws {
        try await withDatabase { connect in
            let connection = try await connect()
            try await fill(connection)
            let rows = try await values(connection, columns: ["name", "zone", "score", "ratio", "flag", "tag"])
            let byID = Dictionary(uniqueKeysWithValues: rows.map { ($0.id, $0.values) })
            for (id, name) in Self.names {
                let values = try #require(byID[id])
                #expect(SQLiteOrdering.compare(values[0], name.columnValue) == 0, "name of row \(id)")
                guard case .text = values[1] else { Issue.record("the zone of row \(id) is not text"); continue }
            }
            // Each type as SQLite holds it.
            let row1 = try #require(byID[1])
            #expect(row1[2] == 1.columnValue)               // int4 → integer
            #expect(row1[3] == (-0.5).columnValue)          // float8 → real
            #expect(row1[4] == 0.columnValue)               // bool → integer
            #expect(row1[5] == Data([1, 0xfe]).columnValue) // bytea → blob
            #expect(try #require(byID[7])[5] == .null)
        }
    }

    @Test func theDefaultCollationWouldOrderDifferently() async throws {
        // Without COLLATE "C" and explicit NULLs the server's order is another: the test
        // above means something only when this holds (a database whose default collation is
        // byte order would make it vacuous).
        try await withDatabase { connect in
            let connection = try await connect()
            try await fill(connection)
            let ours = try PostgresKeyQuery(tableName: "names", sortDescriptors: [SortColumn("name")]).fetchAll(connection).map(\.id)
            let locale = try await connection.column("SELECT id FROM names WHERE name IS NOT NULL ORDER BY name, id", as: Int64.self)
            #expect(ours.filter { Self.names[Int($0) - 1].name != nil } != locale,
                    "the database's default collation sorts these names in byte order, so the order tests prove nothing")
            let plain = try await connection.column("SELECT id FROM names ORDER BY name COLLATE \"C\", id", as: Int64.self)
            #expect(ours != plain, "PostgreSQL's default places NULLs last; LiveResults places them first")
        }
    }

    /// The index a fetch streams rows into (texts stored from their bytes, sections
    /// recognised from theirs) holds the rows of `fetchAll`, in its order; its invariant checks
    /// (debug builds) compare every stored key with the next.
    @Test(arguments: [
        (sort: [SortColumn("zone"), SortColumn("name", ascending: false)], section: "zone"),
        (sort: [SortColumn("score"), SortColumn("name")], section: "score"),
        (sort: [SortColumn("name"), SortColumn("ratio", ascending: false), SortColumn("flag"), SortColumn("tag")], section: nil),
    ] as [(sort: [SortColumn], section: String?)])
    func theStreamedIndexHoldsTheKeyQuerysRowsInOrder(sort: [SortColumn], section: String?) async throws {
        try await withDatabase { connect in
            let connection = try await connect()
            try await fill(connection)
            let query = PostgresKeyQuery(tableName: "names", sortDescriptors: sort, sectionColumn: section)
            let fetched = try query.fetchAll(connection)
            let statements = try query.prepare(connection)
            let index = try query.fetchIndex(connection, statements: statements, logger: Logger(label: "test"))
            #expect(index.allIDs == fetched.map(\.id))
            #expect(index.allIDs.count == Self.names.count)
        }
    }

    @Test func keysFeedTheSectionedIndex() async throws {
        try await withDatabase { connect in
            let connection = try await connect()
            try await fill(connection)
            let sort = [SortColumn("zone"), SortColumn("name", ascending: false)]
            let fetched = try PostgresKeyQuery(tableName: "names", sortDescriptors: sort, sectionColumn: "zone").fetchAll(connection)
            // In order first: the index trusts its input (and stops the process when its
            // invariant checks find rows out of order).
            try #require(fetched.map(\.id) == sortedInMemory(fetched.map { ($0.id, $0.key.sort) }, ascending: [true, false]))
            // Building the index checks that each section's rows come together.
            let index = try SectionedIndex(ascending: sort.map(\.ascending), unsectioned: false, sortedRows: fetched,
                                           sectionName: SectionedIndex.sectionName)
            #expect(index.allIDs == fetched.map(\.id))
            // Byte order: "E" < "e" < "É" (0xC3), where a locale would put "europe" first.
            var sections: [String] = []
            for row in fetched where sections.last != SectionedIndex.sectionName(row.key.section) {
                sections.append(SectionedIndex.sectionName(row.key.section))
            }
            #expect(sections == ["Europe", "europe", "Éurope"])
        }
    }

    @Test func columnsItCannotOrderAreRefusedInOneSentence() async throws {
        try await withDatabase { connect in
            let connection = try await connect()
            try await connection.run("CREATE TABLE odd (id bigint PRIMARY KEY, price numeric, name text)")
            let error = #expect(throws: LiveResultsError.self) {
                _ = try PostgresKeyQuery(tableName: "odd", sortDescriptors: [SortColumn("price")]).fetchAll(connection)
            }
            #expect(error?.description.hasPrefix("The column “price” of “odd” has a type") == true)
            #expect(throws: LiveResultsError(.unknownColumn("nope"), "The table “odd” has no column named “nope”.")) {
                _ = try PostgresKeyQuery(tableName: "odd", sortDescriptors: [SortColumn("nope")]).fetchAll(connection)
            }
            try await connection.run("CREATE TABLE nan (id bigint PRIMARY KEY, ratio float8)", "INSERT INTO nan VALUES (1, 'NaN')")
            #expect(throws: LiveResultsError(.database, "The column “ratio” holds NaN, which LiveResults cannot order: use NULL instead.")) {
                _ = try PostgresKeyQuery(tableName: "nan", sortDescriptors: [SortColumn("ratio")]).fetchAll(connection)
            }
            #expect(throws: LiveResultsError(.unknownColumn("missing"), "There is no table named “missing”.")) {
                _ = try PostgresKeyQuery(tableName: "missing", sortDescriptors: [SortColumn("name")]).fetchAll(connection)
            }
        }
    }

    @Test func theOrderingTermsSayCollationAndNulls() {
        #expect(PostgresKeyQuery.orderingTerm(SortColumn("name"), isText: true) == "\"name\" COLLATE \"C\" ASC NULLS FIRST")
        #expect(PostgresKeyQuery.orderingTerm(SortColumn("wins", ascending: false), isText: false) == "\"wins\" DESC NULLS LAST")
    }
}
