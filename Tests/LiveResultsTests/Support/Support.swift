import Foundation
import GRDB
@testable import LiveResults
@testable import LiveResultsSQLite
import TestSupport

// MARK: - The test record

/// A test-local record: one row of the `item` table.
struct Item: Codable, Equatable, FetchableRecord, MutablePersistableRecord, ColumnRowRecord {
    static let databaseTableName = "item"

    var id: Int64?
    var name: String?
    var zone: String?
    var score: Int
    var flag: Int

    init(id: Int64? = nil, name: String?, zone: String?, score: Int = 0, flag: Int = 1) {
        self.id = id
        self.name = name
        self.zone = zone
        self.score = score
        self.flag = flag
    }

    mutating func didInsert(_ inserted: InsertionSuccess) {
        id = inserted.rowID
    }
}

/// An empty database with the `item` table: in memory, or in a new file with a change log.
func makeItemDatabase(configuration: Configuration = Configuration(), file: URL? = nil) throws -> DatabaseQueue {
    let db = try file.map { try DatabaseQueue(path: $0.path, configuration: configuration) } ?? DatabaseQueue(configuration: configuration)
    try db.write { db in
        try db.execute(sql: """
            CREATE TABLE item (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                name TEXT,
                zone TEXT,
                score INTEGER,
                flag INTEGER
            )
            """)
        if file != nil { try ChangeLog.install(on: "item", in: db) }
    }
    return db
}

/// A fresh folder for one test's files (left to the system's cleaning of temporary files).
func makeTemporaryFolder() throws -> URL {
    try TemporaryFolder(prefix: "liveresults-tests").url
}

/// A configuration for test databases on disk: no fsync, a busy timeout for two connections.
var fileConfiguration: Configuration {
    var configuration = Configuration()
    configuration.busyMode = .timeout(10)
    configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = OFF") }
    return configuration
}

/// Inserts items and returns their ids, in order.
@discardableResult
func insertItems(_ items: [Item], into database: some DatabaseWriter) throws -> [Int64] {
    try database.write { db in
        var ids: [Int64] = []
        for item in items {
            var item = item
            try item.insert(db)
            ids.append(item.id!)
        }
        return ids
    }
}

/// The sort every controller of these tests uses: zone, then most score, then name.
let zoneScoreName = [SortColumn("zone"), SortColumn("score", ascending: false), SortColumn("name")]

func ip(_ section: Int, _ row: Int) -> IndexPath {
    IndexPath(row: row, section: section)
}

// MARK: - Recording delegate

/// Records every delegate call, in order.
final class Recorder: ResultsControllerDelegate {
    typealias Record = Item

    enum Event: Equatable, CustomStringConvertible {
        case willChange
        case section(ChangeKind, index: Int, name: String, count: Int)
        /// A section kept through the batch (a relationship's): moved or updated from its old
        /// index to its new one, with its new name and count.
        case sectionKept(ChangeKind, from: Int, to: Int, name: String, count: Int)
        case row(ChangeKind, id: RecordID, from: IndexPath?, to: IndexPath?)
        case didChange
        /// `controllerDidResetContent`: reload everything.
        case reset

        var description: String {
            switch self {
            case .reset: return "reset"
            case .willChange: return "willChange"
            case .didChange: return "didChange"
            case let .section(kind, index, name, count):
                return "section \(kind) #\(index) \(escaped(name)) (\(count))"
            case let .sectionKept(kind, from, to, name, count):
                return "section \(kind) #\(from) -> #\(to) \(escaped(name)) (\(count))"
            case let .row(kind, id, from, to):
                return "row \(kind) id \(id) \(from.map(pathText) ?? "nil") -> \(to.map(pathText) ?? "nil")"
            }
        }
    }

    var events: [Event] = []
    /// Called at the end of each batch, after `didChange` is recorded.
    var onDidChange: ((ResultsController<Item>) -> Void)?

    func controllerWillChangeContent(_ controller: ResultsController<Item>) {
        events.append(.willChange)
    }

    func controller(_ controller: ResultsController<Item>, didChange section: SectionInfo, atSectionIndex sectionIndex: Int, for type: ChangeKind,
                    newSectionIndex: Int?) {
        if let newSectionIndex {
            events.append(.sectionKept(type, from: sectionIndex, to: newSectionIndex, name: section.name, count: section.numberOfObjects))
        } else {
            events.append(.section(type, index: sectionIndex, name: section.name, count: section.numberOfObjects))
        }
    }

    func controller(_ controller: ResultsController<Item>, didChangeRecordWithID id: RecordID, at indexPath: IndexPath?, for type: ChangeKind, newIndexPath: IndexPath?) {
        events.append(.row(type, id: id, from: indexPath, to: newIndexPath))
    }

    func controllerDidChangeContent(_ controller: ResultsController<Item>) {
        events.append(.didChange)
        onDidChange?(controller)
    }

    func controllerDidResetContent(_ controller: ResultsController<Item>) {
        events.append(.reset)
    }

    /// Returns the events recorded so far and forgets them.
    func take() -> [Event] {
        defer { events.removeAll() }
        return events
    }

    /// The row events of the recorded events, without the batch and section markers.
    var rowEvents: [Event] {
        events.filter { if case .row = $0 { return true } else { return false } }
    }
}

func pathText(_ path: IndexPath) -> String {
    "[\(path.section),\(path.row)]"
}

/// A Swift string literal for `text`, with every non-ASCII or control scalar escaped, so that
/// NFC and NFD forms print differently.
func escaped(_ text: String?) -> String {
    guard let text else { return "nil" }
    var result = "\""
    for scalar in text.unicodeScalars {
        switch scalar {
        case "\"": result += "\\\""
        case "\\": result += "\\\\"
        case _ where scalar.value >= 0x20 && scalar.value < 0x7F: result.unicodeScalars.append(scalar)
        default: result += "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
        }
    }
    return result + "\""
}

// MARK: - A controller with its delegate

/// A results controller over the `item` table that tracks changes into a `Recorder`.
struct Fixture {
    let database: DatabaseQueue
    /// With `otherConnection: true`, a second connection to the database file (which has a
    /// change log): its commits reach the controller through the log, like another process's.
    let otherConnection: DatabaseQueue?
    let controller: ResultsController<Item>
    let recorder: Recorder
    /// The predicate, as SQL; "1" when there is none.
    let predicate: String
    /// The values of the predicate's `?` parameters.
    let predicateArguments: [DatabaseValue]
    /// The controller's in-memory filter (`setFilter`), which `freshLayout` applies in SQL
    /// (`instr(column, text) > 0`) on top of the predicate: the oracle of the filtered mode.
    private(set) var filter: ResultsFilter?

    /// Creates the table, inserts `items`, runs `setup`, and fetches.
    init(
        _ items: [Item],
        predicate: String? = nil,
        predicateArguments: [DatabaseValue] = [],
        sortDescriptors: [SortColumn] = zoneScoreName,
        sectionNameKeyPath: String? = "zone",
        fetchBatchSize: Int = 0,
        fetchLimit: Int = 0,
        tracking: Bool = true,
        configuration: Configuration = Configuration(),
        otherConnection: Bool = false,
        filter: ResultsFilter? = nil,
        gate: GatedStoreBox? = nil,
        setup: ((Database) throws -> Void)? = nil
    ) throws {
        if otherConnection {
            let file = try makeTemporaryFolder().appendingPathComponent("items.sqlite")
            database = try makeItemDatabase(configuration: fileConfiguration, file: file)
            self.otherConnection = try DatabaseQueue(path: file.path, configuration: fileConfiguration)
        } else {
            database = try makeItemDatabase(configuration: configuration)
            self.otherConnection = nil
        }
        try insertItems(items, into: database)
        if let setup { try database.write(setup) }
        let store = SQLiteResultsStore(database: database)
        controller = ResultsController(
            store: gate?.wrap(store) ?? store, tableName: Item.databaseTableName, loadRecords: store.recordLoader(Item.self),
            fetchRequest: ResultsRequest(predicate: predicate.map { ResultsPredicate(sql: $0, arguments: predicateArguments.map(ColumnValue.init)) }, sortDescriptors: sortDescriptors, fetchLimit: fetchLimit, fetchBatchSize: fetchBatchSize),
            sectionNameKeyPath: sectionNameKeyPath)
        recorder = Recorder()
        self.predicate = predicate ?? "1"
        self.predicateArguments = predicateArguments
        if tracking { controller.delegate = recorder }
        controller.changeLogPollInterval = .zero // Tests call refresh() when they want other commits.
        // Set before the fetch: the fetch applies it.
        try controller.setFilter(filter)
        self.filter = filter
        try controller.performFetch()
    }

    /// Changes the controller's in-memory filter (nil: none), and the oracle's with it.
    mutating func setFilter(_ filter: ResultsFilter?) throws {
        try controller.setFilter(filter)
        self.filter = filter
    }

    /// Runs `updates` in one transaction, processes the pending changes, and returns the events.
    @discardableResult
    func write(_ updates: (Database) throws -> Void) throws -> [Recorder.Event] {
        try database.write(updates)
        try controller.processPendingChanges()
        return recorder.take()
    }

    /// Runs one SQL statement (its own transaction), processes the changes, and returns the events.
    @discardableResult
    func execute(_ sql: String, _ arguments: StatementArguments = []) throws -> [Recorder.Event] {
        try write { try $0.execute(sql: sql, arguments: arguments) }
    }

    /// The result as the controller holds it: section names with the ids of their rows.
    var layout: [Layout] {
        controller.layout
    }

    /// The result as SQLite orders it, under the fixture's sort, section key and (unless
    /// `applyingLimit` or `applyingFilter` is false) fetchLimit and in-memory filter.
    func freshLayout(applyingLimit: Bool = true, applyingFilter: Bool = true) throws -> [Layout] {
        let filter = applyingFilter ? self.filter : nil
        let request = controller.fetchRequest
        let order = request.sortDescriptors.map { "\($0.column) COLLATE BINARY \($0.ascending ? "ASC" : "DESC")" } + ["id"]
        let section = controller.sectionNameKeyPath
        return try database.read { db in
            var result: [Layout] = []
            var lastKey: DatabaseValue?
            let filtered = filter.map { " AND instr(\($0.column), ?) > 0" } ?? ""
            let rows = try Row.fetchAll(db, sql: """
                SELECT id, \(section ?? "NULL") AS sectionKey FROM item WHERE (\(predicate))\(filtered)
                ORDER BY \(order.joined(separator: ", "))
                \(request.fetchLimit > 0 && applyingLimit ? "LIMIT \(request.fetchLimit)" : "")
                """, arguments: StatementArguments(predicateArguments) + StatementArguments(filter.map { [$0.text] } ?? []))
            for row in rows {
                let key: DatabaseValue = row["sectionKey"]
                if let lastKey, sameBytes(lastKey, key) {
                    result[result.count - 1].ids.append(row["id"])
                } else {
                    result.append(Layout(String.fromDatabaseValue(key) ?? "", [row["id"]]))
                }
                lastKey = key
            }
            // Without a section key the result has exactly one section, even when empty.
            if section == nil && result.isEmpty { result = [Layout("", [])] }
            return result
        }
    }
}

extension ResultsController {
    /// The result as the controller holds it: sections (name, identifier) with the ids of their rows.
    var layout: [Layout] {
        sections.enumerated().map { s, section in
            Layout(section.name, (0..<section.numberOfObjects).map { id(at: ip(s, $0)) }, identifier: section.identifier)
        }
    }
}

/// One section of a result, for comparisons: the name, compared byte by byte, the identifier
/// (the name, but through a relationship: the related key) and the row ids.
struct Layout: Equatable, CustomStringConvertible {
    var name: String
    var ids: [RecordID]
    var identifier: String

    init(_ name: String, _ ids: [RecordID], identifier: String? = nil) {
        self.name = name
        self.ids = ids
        self.identifier = identifier ?? name
    }

    static func == (a: Layout, b: Layout) -> Bool {
        Array(a.name.utf8) == Array(b.name.utf8) && a.ids == b.ids && Array(a.identifier.utf8) == Array(b.identifier.utf8)
    }

    var description: String { (identifier == name ? "" : "#\(identifier) ") + "\(escaped(name)): \(ids)" }
}

/// Whether two values are the same to SQLite's BINARY collation (unlike `==` on `DatabaseValue`,
/// which treats canonically equivalent strings as equal).
func sameBytes(_ a: DatabaseValue, _ b: DatabaseValue) -> Bool {
    switch (a.storage, b.storage) {
    case let (.string(x), .string(y)): return Array(x.utf8) == Array(y.utf8)
    default: return a.storage == b.storage
    }
}
