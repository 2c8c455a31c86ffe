import Foundation
import GRDB
import LiveResults
import LiveResultsSQLite
import LiveResultsPostgres
import Logging
import PostgresNIO
import Testing
import TestSupport

// The code of the documentation's articles, compiled here: each function's body is an
// article's block (imports at the top of this file), and `articleCodeIsHere` checks that every
// block of the catalogs still reads as it does here.

/// The record of the PostgreSQL article (Getting Started declares its own, in its program).
struct Player: ColumnRowRecord {
    static let databaseTableName = "player"
    var id: Int64
    var name: String
    var team: String
    var score: Int

    init(row: some ColumnRow) throws {
        id = try row.decode(column: "id")
        name = try row.decode(column: "name")
        team = try row.decode(column: "team")
        score = try row.decode(column: "score")
    }
}

/// The same record on SQLite, decoded by GRDB.
extension Player: Decodable, FetchableRecord, TableRecord {}

// Serving Live Results: one live query shared by many clients.
/// What a client shows of a player.
struct PlayerRow: Sendable {
    var name: String
    var score: Int
}

/// One live query shared by every client: the players by team, each client at its own pace.
func serve(database: DatabasePool) async throws {
    let controller = ResultsController(
        database: database,
        fetchRequest: ResultsRequest<Player>(sortDescriptors: [SortColumn("team"), SortColumn("score", ascending: false)]),
        sectionNameKeyPath: "team")
    let query = try await LiveQuery(controller) { player in PlayerRow(name: player.name, score: player.score) }
    try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask { try await query.run() }               // the one loop, until its task is cancelled
        group.addTask { try await stream(query.subscribe()) } // one per client: per request, say
        try await group.waitForAll()
    }
}

/// A client's stream: the whole result, then one exact batch per element.
func stream(_ subscription: LiveQuerySubscription<PlayerRow>) async throws {
    for try await update in subscription {
        switch update {
        case .snapshot(let snapshot):
            // The whole result at snapshot.version: sections with identifier, name, ids, values.
            print(snapshot.version, snapshot.sections.map(\.name))
        case .batch(let batch):
            // From batch.previousVersion to batch.version; batch.values[id] for the rows it places.
            print(batch.version, batch.changes.rowChanges.count)
        }
    }
}

/// Using the Controller: every option of the request, the sequence, the filter.
@MainActor func usingTheController(dbPool: DatabasePool) async throws {
    let controller = ResultsController(
        database: dbPool,
        fetchRequest: ResultsRequest<Player>(
            predicate: "score > \(0)",                      // optional SQL, arguments bound
            sortDescriptors: [SortColumn("team"), SortColumn("score", ascending: false), SortColumn("name")],
            fetchLimit: 0,                                  // 0: no limit
            fetchBatchSize: 50),                            // records load lazily, 50 at a time
        sectionNameKeyPath: "team",
        cacheName: "players")                               // optional: the section cache file
    let changes = controller.changes()                      // before the fetch: the fetch starts tracking
    try controller.performFetch()
    for try await change in changes {                       // no pumping; ends when the task is cancelled
        // change: .batch(ChangeBatch, origin:) or .reset; controller.sections, id(at:) and object(at:)
        // already answer with the result after it.
    }
    // A filter typed one key at a time: in memory, no query per key (the / of the board).
    try controller.setFilter(.contains("bra", inColumn: "name"))
}

/// The landing page of LiveResults.
@MainActor func landingPage(_ controller: ResultsController<Player>) async throws {
    let changes = controller.changes()
    try controller.performFetch()
    for try await change in changes {
        // The events of one or more commits; controller.sections is already the new result.
        print(change)
    }
}

/// Changes from Other Processes: the migration.
func changeLogMigration() {
    var migrator = DatabaseMigrator()
    migrator.registerMigration("live player") { db in
        try ChangeLog.install(on: "player", in: db)
    }
}

/// PostgreSQL: the set-up.
@MainActor func postgresSetUp() async throws {
    let configuration = PostgresConnection.Configuration(
        host: "db.example", username: "app", password: "secret", database: "league", tls: .disable)
    let logger = Logger(label: "players")
    // Once, in a migration (idempotent): the table's change log, and its notifications.
    let migration = try await PostgresConnection.connect(configuration: configuration, id: 1, logger: logger)
    try await PostgresChangeLog.install(on: "player", connection: migration)
    try await migration.close()

    let database = PostgresReader(configuration: configuration, deadline: .seconds(5))
    let controller = ResultsController(
        database: database,
        fetchRequest: ResultsRequest<Player>(sortDescriptors: [SortColumn("team"), SortColumn("score", ascending: false)]),
        sectionNameKeyPath: "team") // idColumn: "id"
    let changes = controller.changes()
    try controller.performFetch() // never on an event loop thread
    for try await change in changes {
        print(change) // as on SQLite
    }
}

/// PostgreSQL: a write of this process.
func postgresWrite(database: PostgresReader, connection: PostgresConnection, id: Int64) throws {
    let writer = PostgresWriter(handingOverTo: database)
    let rows = try writer.write(PostgresWrite(table: "player",
        "UPDATE player SET score = score + 1 WHERE id = \(id)", returning: "score"), on: connection)
    print("score:", try rows.first?.decode(Int32.self) ?? 0)
}

/// Sections through a relationship: teams sectioned by their zone row.
@MainActor func sectionsThroughARelationship(dbPool: DatabasePool) throws {
    struct Team: Decodable, FetchableRecord, TableRecord {
        var id: Int64
        var name: String
        var zoneID: Int64
        var wins: Int
    }

    // zone(id INTEGER PRIMARY KEY, name TEXT NOT NULL, position INTEGER NOT NULL)
    // team(id INTEGER PRIMARY KEY, name TEXT, zoneID INTEGER NOT NULL REFERENCES zone(id), wins INTEGER)
    var migrator = DatabaseMigrator()
    migrator.registerMigration("live teams and zones") { db in
        try db.execute(sql: "CREATE INDEX IF NOT EXISTS team_zone ON team(zoneID, wins DESC, name)")
        try ChangeLog.install(on: "team", in: db)
        try ChangeLog.install(on: "zone", in: db)  // the zones' commits are followed too
    }
    try migrator.migrate(dbPool)

    let controller = ResultsController(
        database: dbPool,
        fetchRequest: ResultsRequest<Team>(sortDescriptors: [SortColumn("wins", ascending: false), SortColumn("name")]),
        sections: RelatedSections(table: "zone", foreignKey: "zoneID", key: "id", title: "name",
                                  order: [SortColumn("position")]))
    try controller.performFetch()
    for section in controller.sections {
        print(section.name, section.numberOfObjects)       // the zone's name, its teams
    }
}

@Suite struct ArticleCodeTests {
    @Test("Every Swift block of the articles is compiled here, as written")
    func articleCodeIsHere() throws {
        let here = try String(contentsOf: URL(fileURLWithPath: #filePath), encoding: .utf8)
        let compiled = Self.lines(here)
        var blocks = 0
        for catalog in ["Sources/LiveResults/LiveResults.docc", "Sources/LiveResultsPostgres/LiveResultsPostgres.docc"] {
            let folder = Repository.root.appendingPathComponent(catalog)
            for name in try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() where name.hasSuffix(".md") {
                let article = try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
                for block in Self.swiftBlocks(article) {
                    // Package.swift lines are the manifest's (Examples/WatchTable builds with them);
                    // a whole program (`@main`) is built as a package of its own by `make article`.
                    if block.contains(".product(name:") || block.contains("@main ") { continue }
                    blocks += 1
                    let expected = Self.lines(block).filter { !$0.hasPrefix("import ") }
                    #expect(Self.contains(compiled, expected), "\(name): this block is not compiled in ArticleCodeTests.swift:\n\(block)")
                }
            }
        }
        #expect(blocks >= 5)
    }

    /// The Swift code blocks of a Markdown text.
    static func swiftBlocks(_ text: String) -> [String] {
        var blocks: [String] = []
        var current: [Substring]?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if current == nil, line == "```swift" {
                current = []
            } else if current != nil, line == "```" {
                blocks.append(current!.joined(separator: "\n"))
                current = nil
            } else {
                current?.append(line)
            }
        }
        return blocks
    }

    /// The non-empty lines of a text, without their indentation.
    static func lines(_ text: String) -> [String] {
        text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// Whether `part` appears in `whole` as consecutive lines.
    static func contains(_ whole: [String], _ part: [String]) -> Bool {
        guard !part.isEmpty, part.count <= whole.count else { return part.isEmpty }
        return (0...(whole.count - part.count)).contains { Array(whole[$0..<$0 + part.count]) == part }
    }
}
