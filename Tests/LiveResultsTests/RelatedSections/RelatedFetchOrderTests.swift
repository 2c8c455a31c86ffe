import Foundation
import GRDB
@testable import LiveResults
@testable import LiveResultsSQLite
import Testing

// The cold fetch through a relationship reads section by section (the related rows in order,
// then each one's rows): its result must be exactly the one ORDER BY through the join gives,
// with ties, NULL order and title values, related rows without rows, and rows whose foreign
// key is NULL or names no related row (left out). The PostgreSQL counterpart uses the same
// rows (PostgresRelatedFetchOrderTests).

/// A member as the fetch-order tests' controllers load it (the table is the same on both stores).
struct OrderedMember: FetchableRecord, TableRecord, ColumnRowRecord {
    static let databaseTableName = "member"
    var id: Int64

    init(row: Row) {
        id = row["id"]
    }
}

/// The rows of the fetch-order tests, for both stores: clubs ordered by position then tier
/// descending (the key breaks ties), members by wins descending then name (the id breaks ties).
enum FetchOrderRows {
    static let sections = RelatedSections(table: "club", foreignKey: "clubID", key: "id", title: "name",
                                          order: [SortColumn("position"), SortColumn("tier", ascending: false)])
    static let sortDescriptors = [SortColumn("wins", ascending: false), SortColumn("name")]

    /// (id, name, position, tier): NULL titles and order values, ties on the order columns
    /// (3 and 5 tie on both: the key decides), and club 4 with no member.
    static let clubs: [(id: Int64, name: String?, position: Int?, tier: String?)] = [
        (1, "Europe", 2, "a"), (2, nil, nil, nil), (3, "Asia", 2, "b"), (4, "Empty", 0, "a"),
        (5, "Africa", 2, "b"), (6, "", nil, "z"), (7, "Zed", -1, nil), (8, "Äsia", 1, "B"),
    ]

    /// (id, name, clubID, wins): ties on wins and on names (which only the id then orders),
    /// NULL names and wins, names that differ by case or accent, and members of no club
    /// (NULL) or of a club that does not exist (42).
    static var members: [(id: Int64, name: String?, clubID: Int64?, wins: Int?)] {
        let clubIDs: [Int64?] = [1, 2, 3, 5, 6, 7, 8, nil, 42]
        let wins: [Int?] = [nil, 1, 1, 2, 0, 3, 1]
        let names: [String?] = [nil, "a", "a", "B", "b", "é", "e", ""]
        return (1...90).map { id in (Int64(id), names[id % names.count], clubIDs[id % clubIDs.count], wins[id % wins.count]) }
    }

    /// The reference result from rows of `SELECT member.id, club.id, club.name … ORDER BY …`
    /// through the join: sections by club (titled as the controller titles them), ids in order.
    static func layout(_ rows: [(id: Int64, club: Int64, title: DatabaseValue)]) -> [Layout] {
        var layout: [Layout] = []
        for row in rows {
            if layout.last?.identifier != String(row.club) {
                layout.append(Layout(SectionedIndex.sectionName(ColumnValue(row.title)), [], identifier: String(row.club)))
            }
            layout[layout.count - 1].ids.append(row.id)
        }
        return layout
    }
}

@Suite("Related sections: the cold fetch's order")
struct RelatedFetchOrderTests {
    /// A database of `FetchOrderRows`, with or without the index that gives a club's members in
    /// order; on SQLite also wins of other types (a real, a text: SQLite orders numbers before text).
    static func database(index: Bool) throws -> DatabaseQueue {
        let queue = try DatabaseQueue()
        try queue.write { db in
            try db.execute(sql: """
                CREATE TABLE club (id INTEGER PRIMARY KEY, name TEXT, position INTEGER, tier TEXT);
                CREATE TABLE member (id INTEGER PRIMARY KEY, name TEXT, clubID INTEGER, wins INTEGER);
                """)
            if index { try db.execute(sql: "CREATE INDEX member_in_order ON member (clubID, wins DESC, name, id)") }
            for club in FetchOrderRows.clubs {
                try db.execute(sql: "INSERT INTO club VALUES (?, ?, ?, ?)", arguments: [club.id, club.name, club.position, club.tier])
            }
            for member in FetchOrderRows.members {
                try db.execute(sql: "INSERT INTO member VALUES (?, ?, ?, ?)", arguments: [member.id, member.name, member.clubID, member.wins])
            }
            try db.execute(sql: "UPDATE member SET wins = 'many' WHERE id IN (10, 19, 55)")
            try db.execute(sql: "UPDATE member SET wins = 1.5 WHERE id IN (11, 20, 29)")
        }
        return queue
    }

    /// The reference: one ORDER BY through the join.
    static func reference(_ queue: DatabaseQueue, predicate: String) throws -> [Layout] {
        try queue.read { db in
            let rows = try Row.fetchAll(db, sql: """
                SELECT member.id, club.id, club.name FROM member JOIN club ON club.id = member.clubID WHERE \(predicate)
                ORDER BY club.position, club.tier DESC, club.id, member.wins DESC, member.name, member.id
                """)
            return FetchOrderRows.layout(rows.map { ($0[0], $0[1], $0[2]) })
        }
    }

    @Test("The fetch equals ORDER BY through the join: ties, NULLs, an empty club, members of no club left out",
          arguments: [false, true], [false, true])
    func fetchedOrder(index: Bool, predicate: Bool) throws {
        let queue = try Self.database(index: index)
        let condition = ResultsPredicate(sql: "member.id % ? <> 0", arguments: [4])
        let controller = ResultsController<OrderedMember>(database: queue, fetchRequest: ResultsRequest(
            predicate: predicate ? condition : nil, sortDescriptors: FetchOrderRows.sortDescriptors), sections: FetchOrderRows.sections)
        try controller.performFetch()
        let expected = try Self.reference(queue, predicate: predicate ? "member.id % 4 <> 0" : "1")
        #expect(controller.layout == expected)
        // The clubs' order, written out: NULL positions first (tier 'z' before NULL, descending),
        // then -1, 1, and the three at 2 by tier descending, the tie of 3 and 5 by key.
        #expect(controller.layout.map(\.identifier) == ["6", "2", "7", "8", "3", "5", "1"])
        #expect(!controller.layout.contains { $0.identifier == "4" }, "a club without members has no section")
        let fetched = Set(controller.layout.flatMap(\.ids))
        #expect(FetchOrderRows.members.filter { $0.clubID == nil || $0.clubID == 42 }.allSatisfy { !fetched.contains($0.id) })
    }

    @Test("Each club's members come from the index in order: SQLite plans no sort")
    func sectionQueryUsesTheIndex() throws {
        let queue = try Self.database(index: true)
        for predicate in [nil, SQL(sql: "wins > ?", arguments: [0])] {
            let query = KeyQuery(tableName: "member", predicate: predicate, sortDescriptors: FetchOrderRows.sortDescriptors, sectionColumn: nil,
                                 related: FetchOrderRows.sections)
            let plan = try queue.read { db in
                let (sql, arguments) = try query.sectionRowsSQL(db)
                return try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql, arguments: arguments + [1]).map { $0["detail"] as String }
                    .joined(separator: "\n")
            }
            #expect(plan.contains("member_in_order") && !plan.contains("TEMP B-TREE"), "\(plan)")
        }
    }
}
