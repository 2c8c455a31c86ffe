import Foundation
import GRDB
@testable import LiveResults
import LiveResultsPostgres
import PostgresNIO
import PostgresSupport

/// A fresh PostgreSQL database of the test server with `member` rows sectioned through the
/// `zone` they name (`zone_id`), both tables with a change log, a writer connection, and a way
/// to drop it all. There is no foreign key constraint unless asked: a member may name a zone
/// that does not exist (it is then not in the result, the join being inner), so that zones
/// appearing and going change which members are in.
final class PostgresZones: @unchecked Sendable { // Used from one test at a time.
    let configuration: PostgresConnection.Configuration
    let database: PostgresReader
    let writer: PostgresConnection
    private let drop: @Sendable () async -> Void

    static func createTables(foreignKey: Bool) -> [String] {
        [
            "CREATE TABLE zone (id bigserial PRIMARY KEY, name text NOT NULL, position int4 NOT NULL)",
            "CREATE TABLE member (id bigserial PRIMARY KEY, name text, zone_id int8"
                + (foreignKey ? " REFERENCES zone(id) ON DELETE CASCADE" : "") + ", score int4, flag int4)",
            "CREATE INDEX member_zone ON member (zone_id)",
        ]
    }

    /// The request's sections: by zone, titled by its name, ordered by its position.
    static let sections = RelatedSections(table: "zone", foreignKey: "zone_id", key: "id", title: "name", order: [SortColumn("position")])
    /// Members within a zone: the highest score first, then by name.
    static let sortDescriptors = [SortColumn("score", ascending: false), SortColumn("name")]

    init(foreignKey: Bool = false, retaining: Int = PostgresChangeLog.defaultRetained) async throws {
        (configuration, drop) = try await TestServer.freshDatabase()
        database = PostgresReader(configuration: configuration)
        writer = try await TestServer.connect(configuration)
        for statement in Self.createTables(foreignKey: foreignKey) { try await run(statement) }
        try await PostgresChangeLog.install(on: "zone", retaining: retaining, connection: writer)
        try await PostgresChangeLog.install(on: "member", retaining: retaining, connection: writer)
    }

    /// Closes the connections and drops the database.
    func close() async {
        database.close()
        try? await writer.close()
        await drop()
    }

    /// Runs statements on the writer, each in its own transaction.
    func run(_ statements: String...) async throws {
        for statement in statements {
            try await writer.query(PostgresQuery(unsafeSQL: statement), logger: TestServer.logger)
        }
    }

    /// Every member, by id.
    func members() async throws -> [Int64: Member] {
        var rows: [Int64: Member] = [:]
        let result = try await writer.query("SELECT id, name, zone_id, score, flag FROM member", logger: TestServer.logger)
        for try await (id, name, zone, score, flag) in result.decode((Int64, String?, Int64?, Int32?, Int32?).self) {
            rows[id] = Member(id: id, name: name, zone: zone, score: Int(score ?? 0), flag: Int(flag ?? 0))
        }
        return rows
    }

    /// Every zone, by id.
    func zones() async throws -> [Int64: Zone] {
        var rows: [Int64: Zone] = [:]
        let result = try await writer.query("SELECT id, name, position FROM zone", logger: TestServer.logger)
        for try await (id, name, position) in result.decode((Int64, String, Int32).self) {
            rows[id] = Zone(id: id, name: name, position: Int(position))
        }
        return rows
    }

    /// A controller over `member` sectioned through `zone`, with a recorder as its delegate.
    func controller(predicate: SQL? = nil, recorder: BatchRecorder?) -> ResultsController<Member> {
        let controller = ResultsController<Member>(
            database: database,
            fetchRequest: ResultsRequest(predicate: predicate, sortDescriptors: Self.sortDescriptors),
            sections: Self.sections)
        controller.delegate = recorder
        return controller
    }
}

struct Member: Equatable, FetchableRecord, TableRecord {
    static let databaseTableName = "member"
    var id: Int64
    var name: String?
    var zone: Int64?
    var score: Int
    var flag: Int

    init(id: Int64, name: String?, zone: Int64?, score: Int, flag: Int) {
        (self.id, self.name, self.zone, self.score, self.flag) = (id, name, zone, score, flag)
    }

    init(row: Row) {
        self.init(id: row["id"], name: row["name"], zone: row["zone_id"], score: row["score"] ?? 0, flag: row["flag"] ?? 0)
    }
}

struct Zone: Equatable {
    var id: Int64
    var name: String
    var position: Int
}

/// Records each batch a controller of members delivers, and its resets.
final class BatchRecorder: ResultsControllerDelegate {
    typealias Record = Member
    var batches: [ChangeBatch] = []
    var resets = 0
    /// The result after each batch, as the controller held it then.
    var layouts: [[JoinedSection]] = []

    func controller(_ controller: ResultsController<Member>, didChangeContentWith batch: ChangeBatch, from origin: ChangeOrigin) {
        batches.append(batch)
        layouts.append(controller.joinedLayout)
    }

    func controllerDidResetContent(_ controller: ResultsController<Member>) {
        resets += 1
    }

    /// Takes the batches and layouts recorded so far.
    func take() -> [(batch: ChangeBatch, after: [JoinedSection])] {
        defer { (batches, layouts) = ([], []) }
        return Array(zip(batches, layouts))
    }
}

/// A section of a joined result: the zone's key as text, its name, its members in order.
struct JoinedSection: Equatable, CustomStringConvertible {
    var identifier: String
    var name: String
    var ids: [Int64]

    var description: String { "\(identifier) \(name): \(ids)" }
}

extension ResultsController<Member> {
    /// The result as the controller holds it.
    var joinedLayout: [JoinedSection] {
        sections.enumerated().map { s, section in
            JoinedSection(identifier: section.identifier, name: section.name,
                          ids: (0..<section.numberOfObjects).map { id(at: IndexPath(row: $0, section: s)) })
        }
    }
}

/// The result a fresh fetch gives for `members` and `zones`: members that match and whose zone
/// exists, sections by zone position then id, members by score descending, name (bytes), id.
func expectedJoinedLayout(_ members: [Int64: Member], _ zones: [Int64: Zone], matching: (Member) -> Bool = { _ in true }) -> [JoinedSection] {
    let inJoin = members.values.filter { member in matching(member) && member.zone.flatMap { zones[$0] } != nil }
    let sorted = inJoin.sorted { a, b in
        let (za, zb) = (zones[a.zone!]!, zones[b.zone!]!)
        if za.position != zb.position { return za.position < zb.position }
        if za.id != zb.id { return za.id < zb.id }
        if a.score != b.score { return a.score > b.score }
        let order = SQLiteOrdering.compare(a.name.databaseValue, b.name.databaseValue)
        if order != 0 { return order < 0 }
        return a.id < b.id
    }
    var layout: [JoinedSection] = []
    for member in sorted {
        if layout.last?.identifier != String(member.zone!) {
            layout.append(JoinedSection(identifier: String(member.zone!), name: zones[member.zone!]!.name, ids: []))
        }
        layout[layout.count - 1].ids.append(member.id)
    }
    return layout
}
