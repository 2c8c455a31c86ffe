import Foundation
import GRDB
import Synchronization
import Testing
@testable import LiveResults
@testable import LiveResultsSQLite

private let items = [
    Item(name: "Ann", zone: "africa", score: 5),
    Item(name: "Bob", zone: "Asia", score: 3),
    Item(name: "Cid", zone: "Asia", score: 8),
    Item(name: "Dan", zone: "Europe", score: 4),
    Item(name: "Eve", zone: "Europe", score: 4),
]

@Suite("Fetch errors")
struct FetchErrorTests {
    private func fetchError(
        _ sortDescriptors: [SortColumn],
        section: String? = "zone",
        predicate: ResultsPredicate? = nil,
        items: [Item] = items
    ) throws -> LiveResultsError? {
        let database = try makeItemDatabase()
        try insertItems(items, into: database)
        let controller = ResultsController<Item>(
            database: database,
            fetchRequest: ResultsRequest(predicate: predicate, sortDescriptors: sortDescriptors),
            sectionNameKeyPath: section)
        let recorder = Recorder()
        controller.delegate = recorder
        return #expect(throws: LiveResultsError.self) { try controller.performFetch() }
    }

    @Test("A request without sort descriptor fails with missingSortDescriptor")
    func missingSortDescriptor() throws {
        let error = try fetchError([])
        #expect(error?.kind == .missingSortDescriptor)
        #expect(error?.description.isEmpty == false)
        // Also without a section key.
        #expect(try fetchError([], section: nil)?.kind == .missingSortDescriptor)
    }

    @Test("An unknown sort column fails with unknownColumn naming it")
    func unknownSortColumn() throws {
        let error = try fetchError([SortColumn("zone"), SortColumn("colour")])
        #expect(error?.kind == .unknownColumn("colour"))
        #expect(error?.description.contains("colour") == true)
    }

    @Test("An unknown section column fails with unknownColumn naming it")
    func unknownSectionColumn() throws {
        let error = try fetchError([SortColumn("zone")], section: "region")
        #expect(error?.kind == .unknownColumn("region"))
        #expect(error?.description.contains("region") == true)
    }

    @Test("A predicate naming an unknown column fails with unknownColumn")
    func unknownPredicateColumn() throws {
        let error = try fetchError([SortColumn("zone")], predicate: "colour = 1")
        #expect(error?.kind == .unknownColumn("colour"))
    }

    /// A record whose table GRDB derives from its type's name: "todoItem", which the
    /// database does not have (its table is "todo_item").
    private struct TodoItem: Decodable, FetchableRecord, TableRecord {
        var id: Int64
    }

    @Test("A record whose table does not exist fails with an error that names the table")
    func unknownTable() throws {
        let database = try DatabaseQueue()
        try database.write { db in try db.execute(sql: "CREATE TABLE todo_item (id INTEGER PRIMARY KEY)") }
        let controller = ResultsController<TodoItem>(database: database, fetchRequest: ResultsRequest(sortDescriptors: [SortColumn("id")]))
        let error = #expect(throws: (any Error).self) { try controller.performFetch() }
        #expect(String(describing: error ?? CancellationError()).contains("todoItem"), "\(String(describing: error))")
    }

    @Test("Column names are matched ignoring case, as SQLite does")
    func columnCase() throws {
        let fixture = try Fixture(items, sortDescriptors: [SortColumn("ZONE"), SortColumn("Score", ascending: false)], sectionNameKeyPath: "Zone")
        #expect(fixture.controller.sections.map(\.name) == ["Asia", "Europe", "africa"])
    }

    @Test("A section key out of order with the first sort descriptor fails and names the row")
    func sectionOutOfOrder() throws {
        // Sorted by score: Cid 8 (Asia), Ann 5 (africa), Dan 4 (Europe), Eve 4 (Europe), Bob 3 (Asia).
        let error = try fetchError([SortColumn("score", ascending: false)])
        #expect(error?.kind == .sectionOutOfOrder)
        let description = error?.description ?? ""
        #expect(description.lowercased().contains("out of order section name"), "\(description)")
        // Bob (row 2) brings back the section "Asia" after "africa" and "Europe" began.
        #expect(description.contains("row 2"), "\(description)")
        #expect(description.contains("Asia"), "\(description)")
    }

    @Test("A failed fetch can be fixed by changing the request and fetching again")
    func refetchAfterError() throws {
        let database = try makeItemDatabase()
        try insertItems(items, into: database)
        let controller = ResultsController<Item>(database: database, fetchRequest: ResultsRequest(sortDescriptors: []), sectionNameKeyPath: "zone")
        #expect(throws: LiveResultsError.self) { try controller.performFetch() }
        controller.fetchRequest.sortDescriptors = zoneScoreName
        try controller.performFetch()
        #expect(controller.numberOfObjects == items.count)
    }
}

@Suite("Reading the result")
struct ReadingTests {
    @Test("sections, object(at:), indexPath(for:) and fetchedObjects follow the sort")
    func reading() throws {
        let fixture = try Fixture(items)
        let controller = fixture.controller
        // BINARY order: uppercase before lowercase.
        #expect(controller.sections.map(\.name) == ["Asia", "Europe", "africa"])
        #expect(controller.sections.map(\.numberOfObjects) == [2, 2, 1])
        #expect(controller.sections.map(\.indexTitle) == ["A", "E", "A"])
        #expect(controller.sectionIndexTitles == ["A", "E"])
        #expect(controller.numberOfObjects == 5)
        #expect(controller.numberOfObjects(inSection: 1) == 2)
        #expect(fixture.layout == [Layout("Asia", [3, 2]), Layout("Europe", [4, 5]), Layout("africa", [1])])

        #expect(try controller.object(at: ip(0, 0)).name == "Cid")
        #expect(try controller.object(at: ip(0, 1)).name == "Bob")
        #expect(try controller.object(at: ip(1, 1)) == Item(id: 5, name: "Eve", zone: "Europe", score: 4, flag: 1))
        #expect(try controller.object(at: ip(2, 0)).name == "Ann")

        #expect(controller.indexPath(for: 3) == ip(0, 0))
        #expect(controller.indexPath(for: 5) == ip(1, 1))
        #expect(controller.indexPath(for: 1) == ip(2, 0))
        #expect(controller.indexPath(for: 42) == nil)

        #expect(try controller.fetchedObjects.map(\.name) == ["Cid", "Bob", "Dan", "Eve", "Ann"])
        #expect(try controller.fetchedObjects.map(\.id) == [3, 2, 4, 5, 1])
    }

    @Test("Without a section key the result is one section")
    func oneSection() throws {
        let fixture = try Fixture(items, sortDescriptors: [SortColumn("score", ascending: false), SortColumn("name")], sectionNameKeyPath: nil)
        #expect(fixture.controller.sections.count == 1)
        #expect(fixture.layout.first?.ids == [3, 1, 4, 5, 2])
        // Ties are broken by id.
        try fixture.database.write { try $0.execute(sql: "UPDATE item SET name = 'Same', score = 1") }
        try fixture.controller.processPendingChanges()
        #expect(fixture.layout.first?.ids == [1, 2, 3, 4, 5])
    }

    @Test("An empty result has no sections")
    func emptyResult() throws {
        let fixture = try Fixture([])
        #expect(fixture.controller.sections.isEmpty)
        #expect(try fixture.controller.fetchedObjects.isEmpty)
        #expect(fixture.controller.sectionIndexTitles.isEmpty)
    }

    @Test("A predicate filters the result")
    func predicate() throws {
        let fixture = try Fixture(items, predicate: "score >= 4")
        #expect(fixture.layout == [Layout("Asia", [3]), Layout("Europe", [4, 5]), Layout("africa", [1])])
    }

    @Test("A second performFetch with a changed request replaces the result and keeps tracking")
    func changeRequest() throws {
        let fixture = try Fixture(items)
        fixture.controller.fetchRequest.predicate = try ResultsPredicate(SQL("zone = 'Asia'"))
        try fixture.controller.performFetch()
        #expect(fixture.layout == [Layout("Asia", [3, 2])])
        let events = try fixture.execute("UPDATE item SET score = 10 WHERE id IN (1, 2)")
        #expect(events == [.willChange, .row(.move, id: 2, from: ip(0, 1), to: ip(0, 0)), .didChange])
    }

    @Test("Batches of fetchBatchSize records load on access")
    func batchLoading() throws {
        let log = SQLLog()
        var configuration = Configuration()
        configuration.prepareDatabase { db in
            db.trace { event in
                if case .statement(let statement) = event { log.append(statement.sql) }
            }
        }
        let names = (0..<10).map { "n\($0)" }
        let fixture = try Fixture(names.map { Item(name: $0, zone: "Z", score: 0) }, sortDescriptors: [SortColumn("name")], sectionNameKeyPath: nil, fetchBatchSize: 3, configuration: configuration)
        func recordLoads() -> [String] { log.take().filter { $0.contains("liveresults_rowid") } }
        _ = recordLoads()

        #expect(try fixture.controller.object(at: ip(0, 0)).name == "n0")
        #expect(recordLoads().count == 1)
        #expect(try fixture.controller.object(at: ip(0, 1)).name == "n1")
        #expect(try fixture.controller.object(at: ip(0, 2)).name == "n2")
        #expect(recordLoads().isEmpty, "rows 1 and 2 came with row 0")
        #expect(try fixture.controller.object(at: ip(0, 3)).name == "n3")
        #expect(recordLoads().count == 1)
        #expect(try fixture.controller.object(at: ip(0, 9)).name == "n9")
        #expect(recordLoads().count == 1)
    }

    @Test("A record an update dropped from a loaded window loads alone; a cold window loads in one batch")
    func missingRecordsLoadAlone() throws {
        let database = try makeItemDatabase()
        try insertItems((0..<10).map { Item(name: "n\($0)", zone: "Z", score: $0) }, into: database)
        let sqlite = SQLiteResultsStore(database: database)
        let counter = LoadCounter()
        let controller = ResultsController<Item>(store: sqlite, tableName: Item.databaseTableName, loadRecords: counter.counting(sqlite.recordLoader(Item.self)),
                                                 fetchRequest: ResultsRequest(sortDescriptors: [SortColumn("name")], fetchBatchSize: 4))
        let recorder = Recorder()
        controller.delegate = recorder
        try controller.performFetch()
        func update(_ sql: String) throws {
            try database.write { try $0.execute(sql: sql) }
            try controller.processPendingChanges()
        }

        _ = try controller.object(at: ip(0, 0))
        _ = try controller.object(at: ip(0, 4))
        #expect(counter.takeLoads() == [[1, 2, 3, 4], [5, 6, 7, 8]])
        try update("UPDATE item SET score = 100 WHERE id = 3")
        #expect(try controller.object(at: ip(0, 2)).score == 100)
        #expect(counter.takeLoads() == [[3]], "only the updated record, not the loaded ones after it")
        #expect(try controller.object(at: ip(0, 3)).name == "n3")
        #expect(counter.takeLoads().isEmpty)
        try update("UPDATE item SET flag = 0 WHERE id = 8")
        #expect(try controller.object(at: ip(0, 7)).flag == 0)
        #expect(counter.takeLoads() == [[8, 9, 10]], "the window's missing rows, in one load")
        try update("UPDATE item SET flag = 0")
        #expect(try controller.object(at: ip(0, 1)).flag == 0)
        #expect(counter.takeLoads() == [[2, 3, 4, 5]], "a window every row of which is missing loads whole")
        #expect(recorder.take().contains(.didChange))
    }

    @Test("A cold window spans the next sections: a screen of five small sections loads in one batch")
    func aWindowSpansSections() throws {
        let database = try makeItemDatabase()
        try insertItems((0..<10).map { Item(name: "n\($0)", zone: "Z\($0 / 2)", score: 0) }, into: database)
        let sqlite = SQLiteResultsStore(database: database)
        let counter = LoadCounter()
        let controller = ResultsController<Item>(store: sqlite, tableName: Item.databaseTableName, loadRecords: counter.counting(sqlite.recordLoader(Item.self)),
                                                 fetchRequest: ResultsRequest(sortDescriptors: [SortColumn("zone"), SortColumn("name")], fetchBatchSize: 7),
                                                 sectionNameKeyPath: "zone")
        try controller.performFetch()
        #expect(controller.sections.count == 5)
        for section in 0..<4 {
            for row in 0..<2 { #expect(try controller.object(at: ip(section, row)).name == "n\(section * 2 + row)") }
        }
        #expect(counter.takeLoads() == [[1, 2, 3, 4, 5, 6, 7], [8, 9, 10]], "seven rows from the first section on, then the next seven (three left)")
        let unbatched = ResultsController<Item>(store: sqlite, tableName: Item.databaseTableName, loadRecords: counter.counting(sqlite.recordLoader(Item.self)),
                                                fetchRequest: ResultsRequest(sortDescriptors: [SortColumn("zone"), SortColumn("name")]),
                                                sectionNameKeyPath: "zone")
        try unbatched.performFetch()
        _ = try unbatched.object(at: ip(1, 0))
        #expect(counter.takeLoads() == [[3, 4]], "without a batch size, the rest of the row's section")
    }

    @Test("Loaded records are never stale after processPendingChanges", arguments: [0, 1, 3, 100])
    func freshAfterChange(batchSize: Int) throws {
        let fixture = try Fixture((0..<10).map { Item(name: "n\($0)", zone: "Z", score: $0) }, sortDescriptors: [SortColumn("name")], sectionNameKeyPath: nil, fetchBatchSize: batchSize)
        let controller = fixture.controller
        // Load some records: the first batch, and all of them.
        _ = try controller.object(at: ip(0, 0))
        _ = try controller.object(at: ip(0, 5))
        // Change values that do not move rows, and a value that does.
        try fixture.execute("UPDATE item SET score = score + 100, flag = 0 WHERE id IN (1, 2, 6)")
        #expect(try controller.object(at: ip(0, 0)).score == 100)
        #expect(try controller.object(at: ip(0, 1)).score == 101)
        #expect(try controller.object(at: ip(0, 5)).flag == 0)
        _ = try controller.fetchedObjects
        try fixture.execute("UPDATE item SET name = 'm' || name WHERE id = 10")
        #expect(try controller.object(at: ip(0, 0)).name == "mn9")
        try fixture.execute("UPDATE item SET score = -1")
        #expect(try controller.fetchedObjects.map(\.score) == Array(repeating: -1, count: 10))
        let fresh = try fixture.database.read { try Item.fetchAll($0, sql: "SELECT * FROM item ORDER BY name, id") }
        #expect(try controller.fetchedObjects == fresh)
    }

    @Test("fetchedObjects holds every row after a change, also when many records are loaded")
    func fetchedObjectsOfLargeResult() throws {
        let count = 5000
        let fixture = try Fixture([], sortDescriptors: [SortColumn("score")], sectionNameKeyPath: nil, setup: { db in
            try db.execute(sql: """
                WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(count))
                INSERT INTO item (name, zone, score, flag) SELECT 'n' || i, 'Z', i, 1 FROM n
                """)
        })
        #expect(try fixture.controller.fetchedObjects.count == count)
        try fixture.execute("UPDATE item SET name = 'changed' WHERE id = 1")
        let objects = try fixture.controller.fetchedObjects
        #expect(objects.count == count)
        #expect(objects.first?.name == "changed")
    }
}

/// Records the ids of each load of a controller's records, and passes every load on.
final class LoadCounter {
    private var loads: [[RecordID]] = []

    /// The ids of each load since the last call, in order.
    func takeLoads() -> [[RecordID]] {
        defer { loads.removeAll() }
        return loads
    }

    /// `loader`, each of its calls recorded.
    func counting<Record>(_ loader: @escaping RecordLoader<Record>) -> RecordLoader<Record> {
        { [self] ids in
            loads.append(ids)
            return try loader(ids)
        }
    }
}

/// Collects SQL statements from a trace, thread-safely.
final class SQLLog: Sendable {
    private let statements = Mutex<[String]>([])
    func append(_ sql: String) { statements.withLock { $0.append(sql) } }
    func take() -> [String] {
        statements.withLock { statements in
            defer { statements.removeAll() }
            return statements
        }
    }
}

@Suite("Section index and section objects")
struct SectionIndexTests {
    final class Titles: ResultsControllerDelegate {
        typealias Record = Item
        func controller(_ controller: ResultsController<Item>, sectionIndexTitleForSectionName sectionName: String) -> String? {
            sectionName == "Europe" ? "EU" : nil
        }
        func controllerDidResetContent(_ controller: ResultsController<Item>) {}
    }

    static let items = [
        Item(name: "Algeria", zone: "Africa", score: 1),
        Item(name: "Japan", zone: "Asia", score: 2),
        Item(name: "Iran", zone: "Asia", score: 5),
        Item(name: "Spain", zone: "Europe", score: 3),
        Item(name: "Chile", zone: "south america", score: 0),
    ]

    @Test("Index titles default to the capitalised first letter; a title finds its first section")
    func defaultTitles() throws {
        let controller = try Fixture(Self.items).controller
        #expect(controller.sections.map(\.indexTitle) == ["A", "A", "E", "S"])
        #expect(controller.sectionIndexTitles == ["A", "E", "S"])
        #expect(controller.section(forSectionIndexTitle: "A", at: 0) == 0)
        #expect(controller.section(forSectionIndexTitle: "E", at: 1) == 2)
        #expect(controller.section(forSectionIndexTitle: "S", at: 2) == 3)
        #expect(controller.section(forSectionIndexTitle: "Z", at: 9) == 3)
    }

    @Test("A delegate may override index titles")
    func customTitles() throws {
        let fixture = try Fixture(Self.items, tracking: false)
        let titles = Titles()
        fixture.controller.delegate = titles
        #expect(fixture.controller.sectionIndexTitles == ["A", "EU", "S"])
        #expect(fixture.controller.section(forSectionIndexTitle: "EU", at: 1) == 2)
    }

    @Test("objects(inSection:) holds the section's records in order")
    func sectionObjects() throws {
        let controller = try Fixture(Self.items, fetchBatchSize: 1).controller
        #expect(try controller.objects(inSection: 1).map(\.name) == ["Iran", "Japan"])
        #expect(try controller.objects(inSection: 3).map(\.name) == ["Chile"])
    }
}

@Suite("Counting a fetch's rows")
struct FetchCountTests {
    /// The opcodes of the program SQLite runs for a query.
    private func opcodes(_ db: Database, _ sql: SQL) throws -> [String] {
        let (text, arguments) = try sql.build(db)
        return try Row.fetchAll(db, sql: "EXPLAIN " + text, arguments: arguments).map { $0["opcode"] as String }
    }

    @Test("Without a predicate, the count before a fetch is SQLite's b-tree count, not a step through every row")
    func countWithoutPredicate() throws {
        let database = try makeItemDatabase()
        try insertItems(items, into: database)
        let query = KeyQuery(tableName: "item", predicate: nil, sortDescriptors: [SortColumn("score")], sectionColumn: "zone")
        try database.read { db in
            let program = try opcodes(db, query.countSQL)
            #expect(program.contains("Count"), "\(program)")
            #expect(!program.contains("AggStep"), "\(program)")
            let count = try query.fetchCount(db)
            #expect(count == items.count)
        }
    }

    @Test("With a predicate, the count is of the matching rows only")
    func countWithPredicate() throws {
        let database = try makeItemDatabase()
        try insertItems(items, into: database)
        let query = KeyQuery(tableName: "item", predicate: SQL("score > 4"), sortDescriptors: [SortColumn("score")], sectionColumn: "zone")
        try database.read { db in
            let count = try query.fetchCount(db)
            #expect(count == 2) // Ann 5 and Cid 8
        }
    }
}
