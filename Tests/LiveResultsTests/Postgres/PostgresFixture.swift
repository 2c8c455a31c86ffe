import Foundation
import GRDB
@testable import LiveResults
@testable import LiveResultsSQLite
import LiveResultsPostgres
import PostgresNIO
import PostgresSupport

/// A fresh PostgreSQL database of the test server with the `item` table (as on SQLite, with a
/// change log), a writer connection, and a way to drop it all.
final class PostgresItems: @unchecked Sendable { // Used from one test at a time.
    let configuration: PostgresConnection.Configuration
    let database: PostgresReader
    let writer: PostgresConnection
    private let drop: @Sendable () async -> Void

    static let createTable = """
        CREATE TABLE item (id bigserial PRIMARY KEY, name text, zone text, score int4, flag int4, code text UNIQUE)
        """

    /// A fresh database of the shared test server, or the database `configuration` names
    /// (left as it is at the end).
    init(configuration given: PostgresConnection.Configuration? = nil, retaining: Int = PostgresChangeLog.defaultRetained) async throws {
        if let given {
            (configuration, drop) = (given, {})
        } else {
            (configuration, drop) = try await TestServer.freshDatabase()
        }
        database = PostgresReader(configuration: configuration)
        writer = try await TestServer.connect(configuration)
        try await run(Self.createTable)
        try await PostgresChangeLog.install(on: "item", retaining: retaining, connection: writer)
    }

    /// A test that failed before `close()` leaves its writer open: closed here, since
    /// postgres-nio's debug builds stop the whole test run when a connection goes unclosed.
    deinit {
        let writer = writer
        writer.close().whenComplete { _ in _ = writer }
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

    /// Inserts items (their ids as given, or the sequence's).
    @discardableResult
    func insert(_ items: [Item]) async throws -> [Int64] {
        var ids: [Int64] = []
        for item in items {
            let rows = try await writer.query("""
                INSERT INTO item (name, zone, score, flag) VALUES (\(item.name), \(item.zone), \(Int32(item.score)), \(Int32(item.flag))) RETURNING id
                """, logger: TestServer.logger)
            for try await id in rows.decode(Int64.self) { ids.append(id) }
        }
        return ids
    }

    /// Every row, by id.
    func allRows() async throws -> [Int64: Item] {
        var rows: [Int64: Item] = [:]
        let result = try await writer.query("SELECT id, name, zone, score, flag FROM item", logger: TestServer.logger)
        for try await (id, name, zone, score, flag) in result.decode((Int64, String?, String?, Int32?, Int32?).self) {
            rows[id] = Item(id: id, name: name, zone: zone, score: Int(score ?? 0), flag: Int(flag ?? 0))
        }
        return rows
    }

    /// A controller over `item` with a recorder as its delegate (unless `tracking` is false).
    func controller(
        predicate: ResultsPredicate? = nil, sortDescriptors: [SortColumn] = zoneScoreName, sectionNameKeyPath: String? = "zone",
        fetchLimit: Int = 0, fetchBatchSize: Int = 0, recorder: Recorder?
    ) -> ResultsController<Item> {
        let controller = ResultsController<Item>(
            database: database,
            fetchRequest: ResultsRequest(predicate: predicate, sortDescriptors: sortDescriptors, fetchLimit: fetchLimit, fetchBatchSize: fetchBatchSize),
            sectionNameKeyPath: sectionNameKeyPath)
        controller.delegate = recorder
        return controller
    }
}

/// The result LiveResults must show for `rows`: those `matching`, ordered in memory as
/// SQLite orders them (NULL first, text by bytes, the id last), split by zone.
func expectedLayout(_ rows: [Int64: Item], matching: (Item) -> Bool = { _ in true }, sectioned: Bool = true, limit: Int = 0) -> [Layout] {
    let keys: (Item) -> [ColumnValue] = { [$0.zone.columnValue, $0.score.columnValue, $0.name.columnValue] }
    var sorted = rows.values.filter(matching).sorted { a, b in
        let (x, y) = (keys(a), keys(b))
        for (column, ascending) in [true, false, true].enumerated() {
            let order = SQLiteOrdering.compare(x[column], y[column])
            if order != 0 { return ascending ? order < 0 : order > 0 }
        }
        return a.id! < b.id!
    }
    if limit > 0 { sorted = Array(sorted.prefix(limit)) }
    var layout: [Layout] = []
    for item in sorted {
        let name = sectioned ? item.zone ?? "" : ""
        if let last = layout.last, sectioned ? rows[last.ids[0]]!.zone.columnValue == item.zone.columnValue : true {
            layout[layout.count - 1].ids.append(item.id!)
        } else {
            layout.append(Layout(name, [item.id!]))
        }
    }
    if !sectioned && layout.isEmpty { layout = [Layout("", [])] }
    return layout
}

extension ResultsController<Item> {
    /// Processes pending changes (looking at the log now when `looking`) every 10 ms until
    /// `done` holds or `seconds` pass; whether it held. The default is long: under the whole
    /// suite on two cores (a test there can take minutes), a controller once took over 10 s.
    @discardableResult
    func processChanges(looking: Bool = false, forUpTo seconds: Double = 30, until done: () async throws -> Bool) async throws -> Bool {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while try await !done() {
            guard ContinuousClock.now < deadline else { return false }
            try await Task.sleep(for: .milliseconds(10))
            try looking ? refresh() : processPendingChanges()
        }
        return true
    }

    /// The result as the controller holds it: section names with the ids of their rows.
    var layout: [Layout] {
        sections.enumerated().map { s, section in
            Layout(section.name, (0..<section.numberOfObjects).map { id(at: ip(s, $0)) })
        }
    }
}
