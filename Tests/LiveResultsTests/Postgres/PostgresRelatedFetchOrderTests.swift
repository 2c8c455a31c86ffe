import Foundation
import GRDB
@testable import LiveResults
@testable import LiveResultsSQLite
@testable import LiveResultsPostgres
import PostgresNIO
import PostgresSupport
import Testing

// The cold fetch through a relationship on PostgreSQL, section by section (a lateral join over
// the related rows in order): its result must be exactly the one ORDER BY through the join
// gives, in LiveResults' order (text in bytes, NULLs smallest), on the rows of the SQLite test
// (`FetchOrderRows`); and with the indexes, its plan has no sort.

@Suite("PostgreSQL related sections: the cold fetch's order")
struct PostgresRelatedFetchOrderTests {
    /// A fresh database of `FetchOrderRows`, with or without the indexes that give the clubs and
    /// each club's members in order; a connection to it, and the database's drop.
    static func database(index: Bool) async throws -> (configuration: PostgresConnection.Configuration, connection: PostgresConnection,
                                                        drop: @Sendable () async -> Void) {
        let (configuration, drop) = try await TestServer.freshDatabase()
        let connection = try await TestServer.connect(configuration)
        func run(_ sql: String) async throws { try await connection.query(PostgresQuery(unsafeSQL: sql), logger: TestServer.logger) }
        try await run("CREATE TABLE club (id int8 PRIMARY KEY, name text, position int4, tier text)")
        try await run("CREATE TABLE member (id int8 PRIMARY KEY, name text, \"clubID\" int8, wins int4)")
        if index {
            try await run("CREATE INDEX club_in_order ON club (position NULLS FIRST, tier COLLATE \"C\" DESC NULLS LAST, id)")
            try await run("CREATE INDEX member_in_order ON member (\"clubID\", wins DESC NULLS LAST, name COLLATE \"C\" NULLS FIRST, id)")
        }
        for club in FetchOrderRows.clubs {
            var binds = PostgresBindings()
            binds.append(club.id)
            binds.append(club.name)
            binds.append(club.position.map(Int32.init))
            binds.append(club.tier)
            try await connection.query(PostgresQuery(unsafeSQL: "INSERT INTO club VALUES ($1, $2, $3, $4)", binds: binds), logger: TestServer.logger)
        }
        for member in FetchOrderRows.members {
            var binds = PostgresBindings()
            binds.append(member.id)
            binds.append(member.name)
            binds.append(member.clubID)
            binds.append(member.wins.map(Int32.init))
            try await connection.query(PostgresQuery(unsafeSQL: "INSERT INTO member VALUES ($1, $2, $3, $4)", binds: binds), logger: TestServer.logger)
        }
        try await run("ANALYZE club")
        try await run("ANALYZE member")
        for table in ["club", "member"] { try await PostgresChangeLog.install(on: table, connection: connection) }
        return (configuration, connection, drop)
    }

    /// The reference: one ORDER BY through the join, in LiveResults' order.
    static func reference(_ connection: PostgresConnection, predicate: String) async throws -> [Layout] {
        let rows = try await connection.query(PostgresQuery(unsafeSQL: """
            SELECT member.id, club.id, club.name FROM member JOIN club ON club.id = member."clubID" WHERE \(predicate)
            ORDER BY club.position ASC NULLS FIRST, club.tier COLLATE "C" DESC NULLS LAST, club.id,
                member.wins DESC NULLS LAST, member.name COLLATE "C" ASC NULLS FIRST, member.id
            """), logger: TestServer.logger)
        var result: [(id: Int64, club: Int64, title: DatabaseValue)] = []
        for try await (id, club, name) in rows.decode((Int64, Int64, String?).self) { result.append((id, club, name.databaseValue)) }
        return FetchOrderRows.layout(result)
    }

    @Test("The fetch equals ORDER BY through the join: ties, NULLs, an empty club, members of no club left out",
          arguments: [false, true], [false, true])
    func fetchedOrder(index: Bool, predicate: Bool) async throws {
        let (configuration, connection, drop) = try await Self.database(index: index)
        defer { Task { try? await connection.close(); await drop() } }
        let reader = PostgresReader(configuration: configuration)
        defer { reader.close() }
        let condition = ResultsPredicate(sql: "member.id % ? <> 0", arguments: [4])
        let controller = ResultsController<OrderedMember>(database: reader, fetchRequest: ResultsRequest(
            predicate: predicate ? condition : nil, sortDescriptors: FetchOrderRows.sortDescriptors), sections: FetchOrderRows.sections)
        try controller.performFetch()
        let expected = try await Self.reference(connection, predicate: predicate ? "member.id % 4 <> 0" : "true")
        #expect(controller.layout == expected)
        #expect(controller.layout.map(\.identifier) == ["6", "2", "7", "8", "3", "5", "1"])
        let fetched = Set(controller.layout.flatMap(\.ids))
        #expect(FetchOrderRows.members.filter { $0.clubID == nil || $0.clubID == 42 }.allSatisfy { !fetched.contains($0.id) })
    }

    @Test("With the indexes, the fetch's plan has no sort: the clubs in order, each one's members from the index")
    func planHasNoSort() async throws {
        let (_, connection, drop) = try await Self.database(index: true)
        defer { Task { try? await connection.close(); await drop() } }
        // The tables are tiny: told that sorting costs too much, the planner shows whether the
        // query can be answered without one (the join ordered by every term could not).
        try await connection.query("SET enable_sort = off", logger: TestServer.logger)
        for predicate in [nil, ResultsPredicate(sql: "wins > ?", arguments: [0])] {
            let statements = try PostgresKeyQuery(tableName: "member", sortDescriptors: FetchOrderRows.sortDescriptors, predicate: predicate,
                                                  related: FetchOrderRows.sections).prepare(connection, logger: TestServer.logger)
            let query = try statements.selectAll()
            let rows = try await connection.query(PostgresQuery(unsafeSQL: "EXPLAIN " + query.sql, binds: query.binds), logger: TestServer.logger)
            var plan: [String] = []
            for try await line in rows.decode(String.self) { plan.append(line) }
            let text = plan.joined(separator: "\n")
            #expect(text.contains("member_in_order") && !text.contains("Sort"), "\(text)")
        }
    }
}
