import Foundation
import GRDB
@testable import LiveResults
@testable import LiveResultsSQLite
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
    func members() async throws -> [Int64: ZonedMember] {
        var rows: [Int64: ZonedMember] = [:]
        let result = try await writer.query("SELECT id, name, zone_id, score, flag FROM member", logger: TestServer.logger)
        for try await (id, name, zone, score, flag) in result.decode((Int64, String?, Int64?, Int32?, Int32?).self) {
            rows[id] = ZonedMember(id: id, name: name, zone: zone, score: Int(score ?? 0), flag: Int(flag ?? 0))
        }
        return rows
    }

    /// Every zone, by id.
    func zones() async throws -> [Int64: ZoneRow] {
        var rows: [Int64: ZoneRow] = [:]
        let result = try await writer.query("SELECT id, name, position FROM zone", logger: TestServer.logger)
        for try await (id, name, position) in result.decode((Int64, String, Int32).self) {
            rows[id] = ZoneRow(id: id, name: name, position: Int(position))
        }
        return rows
    }

    /// A controller over `member` sectioned through `zone`, with a recorder as its delegate.
    func controller(predicate: ResultsPredicate? = nil, recorder: BatchRecorder?) -> ResultsController<ZonedMember> {
        let controller = ResultsController<ZonedMember>(
            database: database,
            fetchRequest: ResultsRequest(predicate: predicate, sortDescriptors: Self.sortDescriptors),
            sections: Self.sections)
        controller.delegate = recorder
        return controller
    }
}

struct ZonedMember: Equatable, FetchableRecord, TableRecord, ColumnRowRecord {
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

struct ZoneRow: Equatable {
    var id: Int64
    var name: String
    var position: Int
}

/// Records what a controller of members delivers, as `Recorder` does for items: each batch's
/// delegate events (for `batchViolations`), the batch itself, and the result after it.
final class BatchRecorder: ResultsControllerDelegate {
    typealias Record = ZonedMember
    private var events: [Recorder.Event] = []
    private var batches: [ChangeBatch] = []
    private var layouts: [[Layout]] = []
    var resets = 0

    func controllerWillChangeContent(_ controller: ResultsController<ZonedMember>) {
        events.append(.willChange)
    }

    func controller(_ controller: ResultsController<ZonedMember>, didChange section: SectionInfo, atSectionIndex sectionIndex: Int, for type: ChangeKind,
                    newSectionIndex: Int?) {
        if let newSectionIndex {
            events.append(.sectionKept(type, from: sectionIndex, to: newSectionIndex, name: section.name, count: section.numberOfObjects))
        } else {
            events.append(.section(type, index: sectionIndex, name: section.name, count: section.numberOfObjects))
        }
    }

    func controller(_ controller: ResultsController<ZonedMember>, didChangeRecordWithID id: RecordID, at indexPath: IndexPath?, for type: ChangeKind,
                    newIndexPath: IndexPath?) {
        events.append(.row(type, id: id, from: indexPath, to: newIndexPath))
    }

    func controllerDidChangeContent(_ controller: ResultsController<ZonedMember>) {
        events.append(.didChange)
        layouts.append(controller.joinedLayout)
    }

    func controller(_ controller: ResultsController<ZonedMember>, didChangeContentWith batch: ChangeBatch, from origin: ChangeOrigin) {
        batches.append(batch)
    }

    func controllerDidResetContent(_ controller: ResultsController<ZonedMember>) {
        resets += 1
    }

    /// Takes what was recorded so far: each batch with its events and the result after it.
    func take() -> [(events: [Recorder.Event], batch: ChangeBatch, after: [Layout])] {
        var grouped: [[Recorder.Event]] = []
        for event in events {
            if event == .willChange { grouped.append([]) }
            if !grouped.isEmpty { grouped[grouped.count - 1].append(event) }
        }
        defer { (events, batches, layouts) = ([], [], []) }
        return zip(zip(grouped, batches), layouts).map { ($0.0, $0.1, $1) }
    }
}

extension ResultsController<ZonedMember> {
    /// The result as the controller holds it: each section's title, members and identity (the zone's key).
    var joinedLayout: [Layout] {
        sections.enumerated().map { s, section in
            Layout(section.name, (0..<section.numberOfObjects).map { id(at: IndexPath(row: $0, section: s)) }, identifier: section.identifier)
        }
    }
}

/// The result a fresh fetch gives for `members` and `zones`: members that match and whose zone
/// exists, sections by zone position then id, members by score descending, name (bytes), id.
func expectedJoinedLayout(_ members: [Int64: ZonedMember], _ zones: [Int64: ZoneRow], matching: (ZonedMember) -> Bool = { _ in true }) -> [Layout] {
    let inJoin = members.values.filter { member in matching(member) && member.zone.flatMap { zones[$0] } != nil }
    let sorted = inJoin.sorted { a, b in
        let (za, zb) = (zones[a.zone!]!, zones[b.zone!]!)
        if za.position != zb.position { return za.position < zb.position }
        if za.id != zb.id { return za.id < zb.id }
        if a.score != b.score { return a.score > b.score }
        let order = SQLiteOrdering.compare(a.name.columnValue, b.name.columnValue)
        if order != 0 { return order < 0 }
        return a.id < b.id
    }
    var layout: [Layout] = []
    for member in sorted {
        if layout.last?.identifier != String(member.zone!) {
            layout.append(Layout(zones[member.zone!]!.name, [], identifier: String(member.zone!)))
        }
        layout[layout.count - 1].ids.append(member.id)
    }
    return layout
}
