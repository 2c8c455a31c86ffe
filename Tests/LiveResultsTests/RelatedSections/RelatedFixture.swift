import Foundation
import GRDB
@testable import LiveResults
@testable import LiveResultsSQLite
import TestSupport

// Sections through a relationship: players sectioned by their club (a row of another table),
// titled by the club's name and ordered by its position.

/// A row of the `member` table, whose `clubID` names its section's row.
struct Member: Codable, Equatable, FetchableRecord, MutablePersistableRecord, ColumnRowRecord {
    static let databaseTableName = "member"

    var id: Int64?
    var name: String
    var clubID: Int64?
    var wins: Int
    var flag: Int

    init(id: Int64? = nil, name: String, clubID: Int64?, wins: Int = 0, flag: Int = 1) {
        self.id = id
        self.name = name
        self.clubID = clubID
        self.wins = wins
        self.flag = flag
    }

    mutating func didInsert(_ inserted: InsertionSuccess) {
        id = inserted.rowID
    }
}

/// Records every delegate call of a member controller, as `Recorder` does for items.
final class MemberRecorder: ResultsControllerDelegate {
    typealias Record = Member
    var events: [Recorder.Event] = []
    var batches: [ChangeBatch] = []

    func controllerWillChangeContent(_ controller: ResultsController<Member>) { events.append(.willChange) }

    func controller(_ controller: ResultsController<Member>, didChange section: SectionInfo, atSectionIndex sectionIndex: Int, for type: ChangeKind,
                    newSectionIndex: Int?) {
        if let newSectionIndex {
            events.append(.sectionKept(type, from: sectionIndex, to: newSectionIndex, name: section.name, count: section.numberOfObjects))
        } else {
            events.append(.section(type, index: sectionIndex, name: section.name, count: section.numberOfObjects))
        }
    }

    func controller(_ controller: ResultsController<Member>, didChangeRecordWithID id: RecordID, at indexPath: IndexPath?, for type: ChangeKind,
                    newIndexPath: IndexPath?) {
        events.append(.row(type, id: id, from: indexPath, to: newIndexPath))
    }

    func controllerDidChangeContent(_ controller: ResultsController<Member>) { events.append(.didChange) }

    func controller(_ controller: ResultsController<Member>, didChangeContentWith batch: ChangeBatch, from origin: ChangeOrigin) {
        batches.append(batch)
    }

    func controllerDidResetContent(_ controller: ResultsController<Member>) { events.append(.reset) }

    func take() -> [Recorder.Event] {
        defer { events.removeAll() }
        return events
    }
}

/// The statements that read the `member` table on the controller's connection (recorded by
/// its trace): what a related row's change costs in row reads.
final class MemberReads: @unchecked Sendable { // Written by the connection's trace, on its queue; read after it.
    private let lock = NSLock()
    private var statements: [String] = []

    func record(_ sql: String) {
        guard sql.contains("\"member\"") || sql.contains("liveresults_row") else { return }
        lock.withLock { statements.append(sql) }
    }

    /// The statements recorded since the last call.
    func take() -> [String] {
        lock.withLock {
            defer { statements.removeAll() }
            return statements
        }
    }
}

/// Players sectioned by club, in a database file with a change log on both tables (no foreign
/// key constraint: a club deleted with players leaves them out of the result, an inner join),
/// and a second connection standing for another process.
struct ClubFixture {
    static let sections = RelatedSections(table: "club", foreignKey: "clubID", title: "name", order: [SortColumn("position")])
    static let playerOrder = [SortColumn("wins", ascending: false), SortColumn("name")]

    let file: URL
    let database: DatabaseQueue
    let otherConnection: DatabaseQueue
    let controller: ResultsController<Member>
    let recorder = MemberRecorder()
    let reads = MemberReads()
    let predicate: String?

    /// `clubs`: (id, name, position); `players` inserted after them.
    init(clubs: [(Int64, String, Int)], players: [Member], predicate: String? = nil, fetchLimit: Int = 0, filter: ResultsFilter? = nil,
         cacheName: String? = nil, cacheDirectory: URL? = nil, file: URL? = nil, tracking: Bool = true) throws {
        self.file = try file ?? makeTemporaryFolder().appendingPathComponent("clubs.sqlite")
        var configuration = fileConfiguration
        let reads = self.reads
        configuration.prepareDatabase { db in db.trace { event in if case .statement(let statement) = event { reads.record(statement.sql) } } }
        database = try DatabaseQueue(path: self.file.path, configuration: configuration)
        otherConnection = try DatabaseQueue(path: self.file.path, configuration: fileConfiguration)
        try database.write { db in
            guard try !db.tableExists("member") else { return }
            try db.execute(sql: """
                CREATE TABLE club (id INTEGER PRIMARY KEY, name TEXT NOT NULL, position INTEGER NOT NULL);
                CREATE TABLE member (id INTEGER PRIMARY KEY, name TEXT NOT NULL, clubID INTEGER, wins INTEGER NOT NULL, flag INTEGER NOT NULL);
                CREATE INDEX player_clubID ON member (clubID);
                """)
            try ChangeLog.install(on: "member", in: db)
            try ChangeLog.install(on: "club", in: db)
            for (id, name, position) in clubs {
                try db.execute(sql: "INSERT INTO club (id, name, position) VALUES (?, ?, ?)", arguments: [id, name, position])
            }
            for var member in players { try member.insert(db) }
        }
        self.predicate = predicate
        controller = ResultsController(database: database, fetchRequest: ResultsRequest(
            predicate: predicate.map { ResultsPredicate(sql: $0) }, sortDescriptors: Self.playerOrder, fetchLimit: fetchLimit, fetchBatchSize: 4),
                                       sections: Self.sections, cacheName: cacheName, cacheDirectory: cacheDirectory)
        if tracking { controller.delegate = recorder }
        controller.changeLogPollInterval = .zero
        try controller.setFilter(filter)
        try controller.performFetch()
        _ = reads.take()
    }

    /// Runs `updates` in one transaction on this connection (or the other one), brings the
    /// controller up to date, and returns the events.
    @discardableResult
    func write(other: Bool = false, _ updates: (Database) throws -> Void) throws -> [Recorder.Event] {
        try (other ? otherConnection : database).write(updates)
        if other { try controller.refresh() } else { try controller.processPendingChanges() }
        return recorder.take()
    }

    @discardableResult
    func execute(other: Bool = false, _ sql: String, _ arguments: StatementArguments = []) throws -> [Recorder.Event] {
        try write(other: other) { try $0.execute(sql: sql, arguments: arguments) }
    }

    /// The result as SQLite joins and orders it: sections (club name, club id as identifier)
    /// with their players' ids, under the predicate, the filter (on the name) and the limit.
    func freshLayout(filter: String? = nil, limit: Int = 0) throws -> [Layout] {
        try database.read { db in
            var conditions = [predicate ?? "1"]
            var arguments: [DatabaseValue] = []
            if let filter {
                conditions.append("instr(member.name, ?) > 0")
                arguments.append(filter.databaseValue)
            }
            let rows = try Row.fetchAll(db, sql: """
                SELECT member.id, club.id AS clubID, club.name AS clubName FROM member JOIN club ON club.id = member.clubID
                WHERE \(conditions.map { "(\($0))" }.joined(separator: " AND "))
                ORDER BY club.position, club.id, member.wins DESC, member.name COLLATE BINARY, member.id
                \(limit > 0 ? "LIMIT \(limit)" : "")
                """, arguments: StatementArguments(arguments))
            var layout: [Layout] = []
            var lastClub: Int64?
            for row in rows {
                let club: Int64 = row["clubID"]
                if club != lastClub { layout.append(Layout(row["clubName"], [], identifier: String(club))) }
                layout[layout.count - 1].ids.append(row["id"])
                lastClub = club
            }
            return layout
        }
    }
}
