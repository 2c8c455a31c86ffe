import Foundation
import TestSupport
import GRDB
import Testing
@testable import LiveResults
@testable import LiveResultsSQLite

// A seeded, model-based test of the results controller.
//
// Random transactions run against the `item` table. After each one, the batch the controller
// delivered is applied to a mirror of the old result, as a batch-updating table view applies it,
// and checked against the rules of the semantics note; the mirror, the controller and a fresh
// `SELECT ... ORDER BY` must agree. A failure prints the seed and the operation index, then a
// shrunk sequence of statements that still fails.
//
// Two orders are exercised:
//   - zone-sorted: sort zone, score DESC, name; section zone. Sections never trade places.
//   - rank-sorted: sort score DESC, name; section zone. The transactions keep one score per
//     zone most of the time, so sections trade places when zone scores change; sometimes a
//     zone's rows interleave with another's, and then processPendingChanges must throw
//     sectionOutOfOrder and leave the result as it was, until a later commit repairs it.
//
// Environment:
//   LIVERESULTS_MODEL_OPS       total operations over all cases (default 10000)
//   LIVERESULTS_MODEL_SEED      run only this seed (decimal or 0x hex), in every variant
//   LIVERESULTS_SHRINK_BUDGET   most operations replayed while shrinking a failure (default 40000)

// MARK: - Statements and operations

/// One statement of a transaction. Every statement names its rows by id, so that any subset of
/// a recorded sequence can be replayed.
enum ModelStatement: CustomStringConvertible, Sendable {
    case insert(id: Int64, name: String?, zone: String?, score: Int, flag: Int)
    case tap(Int64)
    case delete(Int64)
    case rename(Int64, String?)
    case setZone(Int64, String?)
    case setScore(Int64, Int)
    case toggleFlag(Int64)
    /// An UPDATE that writes the row without changing it.
    case touch(Int64)
    /// One UPDATE of every row of a zone.
    case tapZone(String?)
    /// An unqualified DELETE, which SQLite would truncate without notifying observers.
    case deleteAll
    /// One UPDATE giving every row of a zone the same score.
    case setZoneScore(String?, Int)
    /// Moves a row to another zone with a new score.
    case moveToZone(Int64, String?, Int)
    /// INSERT OR REPLACE with a unique code: removes any other row with that code.
    case replaceWithCode(id: Int64, code: String, zone: String?, score: Int)
    /// UPDATE OR REPLACE of a row's unique code: removes any other row with that code.
    case setCode(Int64, String)
    /// UPDATE OR REPLACE of a row's id: the row gets a new rowid, replacing any row holding it.
    case changeID(Int64, to: Int64)

    /// Runs the statement and adds the ids of the rows it writes to `touched`.
    func execute(_ db: Database, touched: inout Set<Int64>) throws {
        switch self {
        case let .insert(id, name, zone, score, flag):
            touched.insert(id)
            try db.execute(sql: "INSERT OR REPLACE INTO item (id, name, zone, score, flag) VALUES (?, ?, ?, ?, ?)", arguments: [id, name, zone, score, flag])
        case let .tap(id):
            touched.insert(id)
            try db.execute(sql: "UPDATE item SET score = score + 1 WHERE id = ?", arguments: [id])
        case let .delete(id):
            touched.insert(id)
            try db.execute(sql: "DELETE FROM item WHERE id = ?", arguments: [id])
        case let .rename(id, name):
            touched.insert(id)
            try db.execute(sql: "UPDATE item SET name = ? WHERE id = ?", arguments: [name, id])
        case let .setZone(id, zone):
            touched.insert(id)
            try db.execute(sql: "UPDATE item SET zone = ? WHERE id = ?", arguments: [zone, id])
        case let .setScore(id, score):
            touched.insert(id)
            try db.execute(sql: "UPDATE item SET score = ? WHERE id = ?", arguments: [score, id])
        case let .toggleFlag(id):
            touched.insert(id)
            try db.execute(sql: "UPDATE item SET flag = 1 - flag WHERE id = ?", arguments: [id])
        case let .touch(id):
            touched.insert(id)
            try db.execute(sql: "UPDATE item SET score = score WHERE id = ?", arguments: [id])
        case let .tapZone(zone):
            touched.formUnion(try Int64.fetchAll(db, sql: "SELECT id FROM item WHERE zone IS ?", arguments: [zone]))
            try db.execute(sql: "UPDATE item SET score = score + 1 WHERE zone IS ?", arguments: [zone])
        case .deleteAll:
            touched.formUnion(try Int64.fetchAll(db, sql: "SELECT id FROM item"))
            try db.execute(sql: "DELETE FROM item")
        case let .setZoneScore(zone, score):
            touched.formUnion(try Int64.fetchAll(db, sql: "SELECT id FROM item WHERE zone IS ?", arguments: [zone]))
            try db.execute(sql: "UPDATE item SET score = ? WHERE zone IS ?", arguments: [score, zone])
        case let .moveToZone(id, zone, score):
            touched.insert(id)
            try db.execute(sql: "UPDATE item SET zone = ?, score = ? WHERE id = ?", arguments: [zone, score, id])
        case let .replaceWithCode(id, code, zone, score):
            touched.insert(id)
            touched.formUnion(try Int64.fetchAll(db, sql: "SELECT id FROM item WHERE code = ?", arguments: [code]))
            try db.execute(sql: "INSERT OR REPLACE INTO item (id, name, zone, score, flag, code) VALUES (?, ?, ?, ?, 1, ?)",
                           arguments: [id, code, zone, score, code])
        case let .setCode(id, code):
            touched.insert(id)
            touched.formUnion(try Int64.fetchAll(db, sql: "SELECT id FROM item WHERE code = ?", arguments: [code]))
            try db.execute(sql: "UPDATE OR REPLACE item SET code = ? WHERE id = ?", arguments: [code, id])
        case let .changeID(id, newID):
            if try Bool.fetchOne(db, sql: "SELECT 1 FROM item WHERE id = ?", arguments: [id]) == true { touched.formUnion([id, newID]) }
            try db.execute(sql: "UPDATE OR REPLACE item SET id = ? WHERE id = ?", arguments: [newID, id])
        }
    }

    var description: String {
        func text(_ value: String?) -> String {
            value.map { "'" + escaped($0).dropFirst().dropLast() + "'" } ?? "NULL"
        }
        switch self {
        case let .insert(id, name, zone, score, flag):
            return "INSERT OR REPLACE INTO item (id, name, zone, score, flag) VALUES (\(id), \(text(name)), \(text(zone)), \(score), \(flag))"
        case let .tap(id): return "UPDATE item SET score = score + 1 WHERE id = \(id)"
        case let .delete(id): return "DELETE FROM item WHERE id = \(id)"
        case let .rename(id, name): return "UPDATE item SET name = \(text(name)) WHERE id = \(id)"
        case let .setZone(id, zone): return "UPDATE item SET zone = \(text(zone)) WHERE id = \(id)"
        case let .setScore(id, score): return "UPDATE item SET score = \(score) WHERE id = \(id)"
        case let .toggleFlag(id): return "UPDATE item SET flag = 1 - flag WHERE id = \(id)"
        case let .touch(id): return "UPDATE item SET score = score WHERE id = \(id)"
        case let .tapZone(zone): return "UPDATE item SET score = score + 1 WHERE zone IS \(text(zone))"
        case .deleteAll: return "DELETE FROM item"
        case let .setZoneScore(zone, score): return "UPDATE item SET score = \(score) WHERE zone IS \(text(zone))"
        case let .moveToZone(id, zone, score): return "UPDATE item SET zone = \(text(zone)), score = \(score) WHERE id = \(id)"
        case let .replaceWithCode(id, code, zone, score):
            return "INSERT OR REPLACE INTO item (id, name, zone, score, flag, code) VALUES (\(id), \(text(code)), \(text(zone)), \(score), 1, \(text(code)))"
        case let .setCode(id, code): return "UPDATE OR REPLACE item SET code = \(text(code)) WHERE id = \(id)"
        case let .changeID(id, newID): return "UPDATE OR REPLACE item SET id = \(newID) WHERE id = \(id)"
        }
    }
}

/// One transaction.
struct ModelOperation: CustomStringConvertible, Sendable {
    var statements: [ModelStatement]
    /// Committed by a second connection, whose changes the controller learns from the change log.
    var viaOtherConnection = false
    /// Each statement is its own commit (of the other connection), and the controller reads
    /// them all at once: one merged batch.
    var separateCommits = false
    /// Committed by this connection through `liveResultsWrite`: the controller reads the keys
    /// inside the transaction.
    var throughLiveResultsWrite = false
    /// Instead of a transaction: a new in-memory filter on `name` (its text; nil: no filter).
    var filterChange: FilterChange?

    struct FilterChange: Sendable {
        var text: String?
    }

    var description: String {
        if let change = filterChange {
            return "-- setFilter(" + (change.text.map { ".contains('\($0)', inColumn: \"name\")" } ?? "nil") + ")"
        }
        let sql = statements.count == 1 || separateCommits
            ? statements.map { $0.description + ";" }.joined(separator: " ")
            : "BEGIN; " + statements.map { $0.description + ";" }.joined(separator: " ") + " COMMIT;"
        return (viaOtherConnection ? "-- other connection\(separateCommits ? ", one commit each" : ""): " : "")
            + (throughLiveResultsWrite ? "-- liveResultsWrite: " : "") + sql
    }
}

// MARK: - Generating operations

/// Names that sort surprisingly: case, canonical equivalence, emoji, CJK, blank and empty.
let modelNames: [String?] = [
    "B", "a", "A", "b", "\u{E9}", "e\u{301}", "e", "f", "\u{C9}", "E\u{301}", "Zo\u{EB}", "zoe\u{308}",
    "\u{DF}", "ss", "\u{130}", "i\u{307}", "日本", "中国", "한국", "⚽️", "🇧🇷 Brasil", "😀", "", "   ", " \t ",
    "a b", "ab", "Brazil", "brazil", nil,
]

/// Zones without canonically equivalent pairs, but with case, emoji, CJK, empty and NULL.
private let plainZones: [String?] = ["Africa", "Asia", "Europe", "europe", "N. America", "Oceania", "\u{C1}frica", "🌍", "日本", "", nil]

/// The plain zones plus zones canonically equivalent to others (same text to Swift, not to SQLite).
private let equivalentZones: [String?] = plainZones + ["A\u{301}frica", "e\u{301}", "\u{E9}"]

struct OperationGenerator {
    var random: SplitMix64
    var nextID: Int64 = 1
    let zones: [String?]

    init(seed: UInt64, zones: [String?]) {
        random = SplitMix64(seed: seed)
        self.zones = zones
    }

    mutating func name() -> String? {
        random.chance(0.2) ? "n\(random.int(0..<500))" : random.pick(modelNames)
    }

    mutating func newRow() -> ModelStatement {
        defer { nextID += 1 }
        return .insert(id: nextID, name: name(), zone: random.pick(zones), score: random.int(0...12), flag: random.chance(0.7) ? 1 : 0)
    }

    /// One random statement on the rows `ids` (sorted), which may be empty.
    mutating func statement(ids: [Int64]) -> ModelStatement {
        guard !ids.isEmpty else { return newRow() }
        let id = random.pick(ids)
        let roll = random.int(0..<1000)
        switch roll {
        case ..<300: return .tap(id)
        case ..<430: return ids.count < 70 ? newRow() : .delete(id)
        case ..<530: return ids.count > 4 ? .delete(id) : newRow()
        case ..<600: return .rename(id, name())
        case ..<700: return .setZone(id, random.pick(zones))
        case ..<760: return .setScore(id, random.int(0...12))
        case ..<860: return .toggleFlag(id)
        case ..<880: return .touch(id)
        case ..<890: return .tapZone(random.pick(zones))
        case ..<892: return .deleteAll
        case ..<900: return .delete(nextID + 1000) // no such row
        case ..<920:
            // A code shared by a few rows at most: REPLACE removes the row that held it.
            defer { nextID += 1 }
            return .replaceWithCode(id: nextID, code: "c\(random.int(0..<8))", zone: random.pick(zones), score: random.int(0...12))
        case ..<935: return .setCode(id, "c\(random.int(0..<8))")
        case ..<950:
            // Sometimes onto a row that exists, which is replaced.
            defer { nextID += 1 }
            return .changeID(id, to: random.chance(0.3) ? random.pick(ids) : nextID)
        default: return .tap(id)
        }
    }

    /// One random transaction: mostly a single statement, sometimes up to ten.
    mutating func operation(ids: [Int64]) -> ModelOperation {
        guard random.chance(0.15), !ids.isEmpty else { return ModelOperation(statements: [statement(ids: ids)]) }
        var statements: [ModelStatement] = []
        var live = ids
        for _ in 0..<random.int(2...10) {
            switch random.int(0..<10) {
            case 0 where !live.isEmpty:
                // Delete and re-add under the same id.
                let id = random.pick(live)
                statements.append(.delete(id))
                statements.append(.insert(id: id, name: name(), zone: random.pick(zones), score: random.int(0...12), flag: random.chance(0.7) ? 1 : 0))
            case 1:
                // Add and delete again.
                let row = newRow()
                statements.append(row)
                if case let .insert(id, _, _, _, _) = row { statements.append(.delete(id)) }
            case 2 where !live.isEmpty:
                let id = random.pick(live)
                statements.append(.tap(id))
                statements.append(.tap(id))
            default:
                let statement = statement(ids: live)
                statements.append(statement)
                switch statement {
                case let .insert(id, _, _, _, _): live.append(id)
                case let .delete(id): live.removeAll { $0 == id }
                case .deleteAll: live.removeAll()
                default: break
                }
            }
        }
        return ModelOperation(statements: statements)
    }

    // MARK: Rank-sorted sections

    /// The score of each zone: the highest of its rows.
    private func zoneScores(_ rows: [Int64: Item]) -> [(zone: String, score: Int)] {
        var scores: [String: Int] = [:]
        for row in rows.values { if let zone = row.zone { scores[zone] = max(scores[zone] ?? Int.min, row.score) } }
        return scores.sorted { Array($0.key.utf8).lexicographicallyPrecedes(Array($1.key.utf8)) }.map { ($0.key, $0.value) }
    }

    /// A row in `zone` with the zone's score.
    mutating func rankedRow(zone: String, score: Int) -> ModelStatement {
        defer { nextID += 1 }
        return .insert(id: nextID, name: name(), zone: zone, score: score, flag: random.chance(0.75) ? 1 : 0)
    }

    /// One statement that mostly keeps one score per zone.
    mutating func rankStatement(rows: [Int64: Item]) -> [ModelStatement] {
        let zones = zoneScores(rows)
        let ids = rows.keys.sorted()
        let zoneNames = self.zones.compactMap { $0 }
        guard !ids.isEmpty, let zone = zones.isEmpty ? nil : random.pick(zones) else {
            return [rankedRow(zone: random.pick(zoneNames), score: random.int(0...30))]
        }
        let id = random.pick(ids)
        switch random.int(0..<100) {
        case ..<22: return [.tapZone(zone.zone)]
        case ..<32: return [.setZoneScore(zone.zone, random.int(0...30))]
        case ..<48: return ids.count < 60 ? [rankedRow(zone: zone.zone, score: zone.score)] : [.delete(id)]
        case ..<53:
            let fresh = zoneNames.filter { name in !zones.contains { Array($0.zone.utf8) == Array(name.utf8) } }
            return fresh.isEmpty ? [.tapZone(zone.zone)] : [rankedRow(zone: random.pick(fresh), score: random.int(0...30))]
        case ..<63: return ids.count > 3 ? [.delete(id)] : [rankedRow(zone: zone.zone, score: zone.score)]
        case ..<71: return [.rename(id, name())]
        case ..<79: return [.toggleFlag(id)]
        case ..<86: return [.moveToZone(id, zone.zone, zone.score)]
        case ..<93:
            // Two zones trade scores: their sections trade places.
            let other = random.pick(zones)
            return [.setZoneScore(zone.zone, other.score), .setZoneScore(other.zone, zone.score)]
        case ..<96: return [.tap(id)]
        default: return [.touch(id)]
        }
    }

    /// One transaction for rank-sorted sections; when the result is out of order, often one
    /// that gives every zone its own score again.
    mutating func rankOperation(rows: [Int64: Item], valid: Bool) -> ModelOperation {
        if !valid, random.chance(0.5) {
            var zones = zoneScores(rows).map(\.zone)
            zones.shuffle(using: &random)
            return ModelOperation(statements: zones.enumerated().map { .setZoneScore($1, 3 * $0 + random.int(0...1)) })
        }
        if random.chance(0.1) {
            var statements: [ModelStatement] = []
            for _ in 0..<random.int(2...5) { statements += rankStatement(rows: rows) }
            return ModelOperation(statements: statements)
        }
        return ModelOperation(statements: rankStatement(rows: rows))
    }

    /// The rows before the fetch for rank-sorted sections: five zones with their own scores.
    mutating func rankSetup() -> [ModelOperation] {
        var zones = self.zones.compactMap { $0 }
        zones.shuffle(using: &random)
        var operations: [ModelOperation] = []
        for (rank, zone) in zones.prefix(5).enumerated() {
            for _ in 0..<random.int(2...6) {
                operations.append(ModelOperation(statements: [rankedRow(zone: zone, score: 5 * rank + 2)]))
            }
        }
        return operations
    }
}

// MARK: - Running operations and checking

/// What a model run fetches.
struct ModelConfiguration: Sendable {
    /// Whether the request has the predicate `flag = 1`.
    var usePredicate: Bool
    /// Sort score DESC, name with sections by zone (instead of zone, score DESC, name).
    var rankSorted: Bool
    /// Whether the database is a file with a change log, written by two connections.
    var secondWriter = false
    /// The request's fetchLimit (0: none).
    var fetchLimit = 0
    /// No section key: one section, sorted by score DESC, name.
    var unsectioned = false
    /// The text of an in-memory filter on `name` (`ResultsFilter`), set before the fetch; nil
    /// for none. The run also changes it now and then (`filterTexts`).
    var filter: String?

    /// The filter texts a filtered run switches between: ones that narrow each other ("a",
    /// "ab"), ones that widen, one that matches every name, and no filter at all.
    static let filterTexts: [String?] = ["a", "ab", "a b", "B", "n1", "n12", "", nil]

    var sortDescriptors: [SortColumn] {
        rankSorted || unsectioned ? [SortColumn("score", ascending: false), SortColumn("name")] : zoneScoreName
    }

    /// How many entries the change log keeps: few, so that readers fall behind the pruned
    /// part often and must read the summary of pruned entries.
    static let retainedLogEntries = 20

    var description: String {
        "sort \(rankSorted || unsectioned ? "score DESC, name" : "zone, score DESC, name"); \(unsectioned ? "no section key" : "section zone"); predicate \(usePredicate ? "flag = 1" : "none")"
            + (secondWriter ? "; two connections, log keeps \(Self.retainedLogEntries)" : "") + (fetchLimit > 0 ? "; fetchLimit \(fetchLimit)" : "")
            + (filter.map { "; filter: name contains '\($0)'" } ?? "")
    }
}

/// A controller over an item table, with the result it is expected to hold.
final class ModelRun {
    private(set) var fixture: Fixture
    let configuration: ModelConfiguration
    /// The result the controller last delivered (the mirror of a table view).
    private(set) var layout: [Layout]
    /// The rows now in the database.
    private(set) var rows: [Int64: Item]
    /// The rows when the controller last delivered a result.
    private var deliveredRows: [Int64: Item]
    /// Rows written by commits the controller refused (out of order) and has not reported yet.
    private var pendingTouched = Set<Int64>()
    /// Whether the database's result is sectioned in order.
    private(set) var valid = true

    /// Runs `setup` (before the fetch), then fetches.
    init(setup: [ModelOperation], configuration: ModelConfiguration) throws {
        self.configuration = configuration
        fixture = try Fixture([], predicate: configuration.usePredicate ? "flag = 1" : nil, sortDescriptors: configuration.sortDescriptors,
                              sectionNameKeyPath: configuration.unsectioned ? nil : "zone", fetchBatchSize: 3, fetchLimit: configuration.fetchLimit,
                              otherConnection: configuration.secondWriter,
                              filter: configuration.filter.map { .contains($0, inColumn: "name") }, setup: { db in
            // A unique code, so that REPLACE removes rows; the log learns it when installed again.
            try db.execute(sql: "ALTER TABLE item ADD COLUMN code TEXT; CREATE UNIQUE INDEX item_on_code ON item (code)")
            if configuration.secondWriter { try ChangeLog.install(on: "item", in: db, retaining: ModelConfiguration.retainedLogEntries) }
            var touched = Set<Int64>()
            for operation in setup {
                for statement in operation.statements { try statement.execute(db, touched: &touched) }
            }
        })
        layout = try fixture.freshLayout()
        rows = try Self.allRows(fixture.database)
        deliveredRows = rows
        if let problem = checkController() { throw ModelFailure(message: "after performFetch: " + problem) }
        fixture.controller.onSnapshot = { [weak self] snapshot in self?.snapshots.append(snapshot) }
    }

    /// The snapshots delivered since the last step (the snapshot form of the delegate).
    private var snapshots: [ResultsSnapshot] = []

    var ids: [Int64] { rows.keys.sorted() }

    static func allRows(_ database: some DatabaseReader) throws -> [Int64: Item] {
        try database.read { db in
            Dictionary(uniqueKeysWithValues: try Item.fetchAll(db, sql: "SELECT * FROM item").map { ($0.id!, $0) })
        }
    }

    /// Whether no section appears twice (its rows are contiguous in the sort).
    static func isInOrder(_ layout: [Layout]) -> Bool {
        Set(layout.map { Array($0.name.utf8) }).count == layout.count
    }

    /// Changes the in-memory filter (nil: none) and checks the controller against a fresh
    /// fetch with the filter in SQL. No batch is delivered: the result is taken as it is.
    func changeFilter(to text: String?) -> String? {
        do {
            try fixture.setFilter(text.map { .contains($0, inColumn: "name") })
            layout = try fixture.freshLayout()
            let events = fixture.recorder.take()
            if !events.isEmpty { return "setFilter delivered events: \(events)" }
            return checkController().map { "after setFilter(\(text.map { "'\($0)'" } ?? "nil")): " + $0 }
        } catch {
            return "setFilter threw: \(error)"
        }
    }

    /// Runs one transaction and checks what the controller made of it. Returns the problems.
    func step(_ operation: ModelOperation) -> String? {
        if let change = operation.filterChange { return changeFilter(to: change.text) }
        do {
            let writer = operation.viaOtherConnection ? fixture.otherConnection! : fixture.database
            var touched = Set<Int64>()
            if operation.separateCommits {
                for statement in operation.statements { try writer.write { try statement.execute($0, touched: &touched) } }
            } else if operation.throughLiveResultsWrite {
                try writer.liveResultsWrite { db in
                    for statement in operation.statements { try statement.execute(db, touched: &touched) }
                }
            } else {
                try writer.write { db in
                    for statement in operation.statements { try statement.execute(db, touched: &touched) }
                }
            }
            let newLayout = try fixture.freshLayout()
            rows = try Self.allRows(fixture.database)
            // Zone-sorted results are in order by construction (and may have both a NULL and an
            // empty zone, both named ""); rank-sorted ones use no NULL zone.
            // With a fetchLimit, the order is checked over every matching row, not only the first;
            // with a filter, over every row of the request (the filter applies to its result).
            valid = try !configuration.rankSorted || Self.isInOrder(fixture.freshLayout(applyingLimit: false, applyingFilter: false))
            do {
                // refresh() also reads the change log for the other connection's commits.
                if configuration.secondWriter { try fixture.controller.refresh() } else { try fixture.controller.processPendingChanges() }
            } catch let error as LiveResultsError where error.kind == .sectionOutOfOrder && !valid {
                // Expected: the result cannot be sectioned. Nothing is delivered, nothing changes.
                pendingTouched.formUnion(touched)
                var problems: [String] = []
                let events = fixture.recorder.take()
                if !events.isEmpty { problems.append("events were delivered before sectionOutOfOrder: \(events)") }
                if fixture.layout != layout { problems.append("after sectionOutOfOrder the controller holds \(fixture.layout), it delivered \(layout)") }
                return problems.isEmpty ? nil : problems.joined(separator: "\n") + "\nnew: \(newLayout)"
            } catch {
                return "processPendingChanges threw: \(error)\nold: \(layout)\nnew: \(newLayout)"
            }
            let events = fixture.recorder.take()
            if !valid {
                return "the result is out of order, but processPendingChanges did not throw sectionOutOfOrder\nevents: \(events)\nnew: \(newLayout)"
            }

            // One batch per commit, plus one first when a refetch was pending after an error.
            var batches: [[Recorder.Event]] = []
            for event in events {
                if event == .willChange || batches.isEmpty { batches.append([]) }
                batches[batches.count - 1].append(event)
            }
            var allTouched = touched.union(pendingTouched)
            if configuration.fetchLimit > 0 {
                // Rows pushed across the limit by others enter or leave without being touched.
                allTouched.formUnion(Set(layout.flatMap(\.ids)).symmetricDifference(newLayout.flatMap(\.ids)))
            }
            let changed = Set(rows.keys.filter { rows[$0] != deliveredRows[$0] })
            var problems: [String] = []
            if batches.count > (pendingTouched.isEmpty ? 1 : 2) { problems.append("\(batches.count) batches for one commit") }
            var before = layout
            for batch in batches {
                problems += batchViolations(old: before, new: newLayout, events: batch, touched: allTouched)
                before = newLayout
            }
            if batches.isEmpty { problems += batchViolations(old: layout, new: newLayout, events: [], touched: allTouched) }
            // Rows whose stored values changed must be reported (rule 6 the other way round).
            let reported = Set(events.compactMap { event -> RecordID? in
                if case let .row(_, id, _, _) = event { return id } else { return nil }
            })
            let inBoth = Set(layout.flatMap(\.ids)).intersection(newLayout.flatMap(\.ids))
            let unreported = changed.intersection(inBoth).subtracting(reported)
            if !unreported.isEmpty { problems.append("rows \(unreported.sorted()) changed but are not reported") }

            // (c) The snapshot form: one per batch, the last one equal to the fresh fetch.
            if snapshots.count != batches.count { problems.append("\(snapshots.count) snapshots for \(batches.count) batches") }
            if let snapshot = snapshots.last {
                let snapshotLayout = zip(snapshot.sectionIdentifiers, snapshot.itemIdentifiers).map { Layout($0, $1) }
                if snapshotLayout != newLayout { problems.append("the snapshot holds \(snapshotLayout), a fresh fetch gives \(newLayout)") }
                let strayReloads = snapshot.reloadedItemIdentifiers.subtracting(allTouched)
                if !strayReloads.isEmpty { problems.append("the snapshot reloads untouched rows \(strayReloads.sorted())") }
            }
            snapshots.removeAll()

            let oldLayout = layout
            layout = newLayout
            deliveredRows = rows
            pendingTouched.removeAll()
            if let problem = checkController() { problems.append(problem) }
            for id in touched.sorted() {
                guard let path = fixture.controller.indexPath(for: id) else { continue }
                let object = try fixture.controller.object(at: path)
                if object != rows[id] { problems.append("object(at: \(pathText(path))) is \(object), the database holds \(rows[id].map { "\($0)" } ?? "nothing")") }
            }
            for id in Set(oldLayout.flatMap(\.ids)).subtracting(newLayout.flatMap(\.ids)).sorted() {
                if let path = fixture.controller.indexPath(for: id) { problems.append("indexPath(for: \(id)) is \(pathText(path)), the row left the result") }
            }
            guard problems.isEmpty else {
                return problems.joined(separator: "\n") + "\nevents: \(events.map(\.description).joined(separator: ", "))\nold: \(oldLayout)\nnew: \(newLayout)"
            }
            return nil
        } catch {
            return "error: \(error)"
        }
    }

    /// Compares the controller with the expected result.
    private func checkController() -> String? {
        let controller = fixture.controller
        let actual = fixture.layout
        if actual != layout { return "the controller holds \(actual), a fresh fetch gives \(layout)" }
        if controller.numberOfObjects != layout.reduce(0, { $0 + $1.ids.count }) { return "numberOfObjects is \(controller.numberOfObjects)" }
        for (s, section) in layout.enumerated() {
            for (r, id) in section.ids.enumerated() where controller.indexPath(for: id) != ip(s, r) {
                return "indexPath(for: \(id)) is \(controller.indexPath(for: id).map(pathText) ?? "nil"), expected \(pathText(ip(s, r)))"
            }
        }
        do {
            let objects = try controller.fetchedObjects
            let expected = layout.flatMap(\.ids).map { rows[$0] }
            if objects.map(Optional.some) != expected { return "fetchedObjects differ from the database: \(objects.count) objects, \(expected.count) rows" }
        } catch {
            return "fetchedObjects threw: \(error)"
        }
        return nil
    }
}

struct ModelFailure: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}

/// Where a run failed: the index of the operation (-1: at the fetch), and what went wrong.
struct RunFailure {
    var index: Int
    var message: String
}

/// Replays recorded operations from an empty table; returns the first failure.
func replay(setup: [ModelOperation], operations: [ModelOperation], configuration: ModelConfiguration, executed: inout Int) -> RunFailure? {
    executed += setup.count
    let run: ModelRun
    do {
        run = try ModelRun(setup: setup, configuration: configuration)
    } catch {
        return RunFailure(index: -1, message: "\(error)")
    }
    for (index, operation) in operations.enumerated() {
        executed += 1
        if let message = run.step(operation) { return RunFailure(index: index, message: message) }
    }
    return nil
}

/// Removes operations (setup and later ones) while the sequence still fails, within a budget of
/// replayed operations. Returns the smallest failing sequence found.
func shrink(setup: [ModelOperation], operations: [ModelOperation], failure: RunFailure, configuration: ModelConfiguration, budget: Int)
    -> (setup: [ModelOperation], operations: [ModelOperation], failure: RunFailure, replayed: Int)
{
    // Items: setup operations (true) then tracked operations (false).
    var items = setup.map { (true, $0) } + operations.prefix(failure.index + 1).map { (false, $0) }
    var best = failure
    var executed = 0
    func attempt(_ candidate: [(Bool, ModelOperation)]) -> RunFailure? {
        replay(setup: candidate.filter(\.0).map(\.1), operations: candidate.filter { !$0.0 }.map(\.1), configuration: configuration, executed: &executed)
    }
    var chunk = max(1, items.count / 2)
    while executed < budget {
        var removed = false
        var start = 0
        while start < items.count, executed < budget {
            var candidate = items
            candidate.removeSubrange(start..<min(items.count, start + chunk))
            if let failure = attempt(candidate) {
                // Keep only what runs up to the failure.
                let setupCount = candidate.filter(\.0).count
                items = Array(candidate.prefix(failure.index < 0 ? setupCount : setupCount + failure.index + 1))
                best = failure
                removed = true
            } else {
                start += chunk
            }
        }
        if chunk == 1 && !removed { break }
        if !removed { chunk = max(1, chunk / 2) }
        chunk = min(chunk, max(1, items.count / 2))
    }
    // Then the statements inside each remaining transaction, one at a time.
    var position = 0
    while position < items.count, executed < budget {
        var statement = 0
        while statement < items[position].1.statements.count, items[position].1.statements.count > 1, executed < budget {
            var candidate = items
            candidate[position].1.statements.remove(at: statement)
            if let failure = attempt(candidate) {
                let setupCount = candidate.filter(\.0).count
                let keep = failure.index < 0 ? setupCount : setupCount + failure.index + 1
                items = Array(candidate.prefix(keep))
                best = failure
                if position >= items.count { break }
            } else {
                statement += 1
            }
        }
        position += 1
    }
    return (items.filter(\.0).map(\.1), items.filter { !$0.0 }.map(\.1), best, executed)
}

// MARK: - The test

struct ModelCase: Sendable, CustomTestStringConvertible {
    enum Kind: String, Sendable, CaseIterable {
        /// zone-sorted, zones without canonically equivalent pairs
        case plain
        /// zone-sorted, with zones canonically equivalent to others
        case equivalentZones
        /// rank-sorted sections
        case ranked
        /// no section key: one section, always
        case unsectioned
    }

    var seed: UInt64
    var usePredicate: Bool
    var kind: Kind
    var operations: Int
    /// Half the transactions come from a second connection (through the change log).
    var secondWriter = false
    /// The request's fetchLimit (0: none).
    var fetchLimit = 0
    /// The text of the in-memory filter set before the fetch; nil for none.
    var filter: String?

    var configuration: ModelConfiguration {
        ModelConfiguration(usePredicate: usePredicate, rankSorted: kind == .ranked, secondWriter: secondWriter, fetchLimit: fetchLimit,
                           unsectioned: kind == .unsectioned, filter: filter)
    }

    var zones: [String?] {
        switch kind {
        case .plain, .ranked, .unsectioned: return plainZones
        case .equivalentZones: return equivalentZones
        }
    }

    var testDescription: String {
        "seed 0x\(String(seed, radix: 16)), \(kind), predicate \(usePredicate ? "flag = 1" : "none"), \(operations) operations"
            + (secondWriter ? ", two connections" : "") + (fetchLimit > 0 ? ", fetchLimit \(fetchLimit)" : "")
            + (filter.map { ", filter '\($0)'" } ?? "")
    }

    static var all: [ModelCase] {
        let environment = ProcessInfo.processInfo.environment
        let total = environment["LIVERESULTS_MODEL_OPS"].flatMap { Int($0) } ?? 10_000
        var cases: [ModelCase] = []
        func add(_ seed: UInt64, _ kind: Kind, secondWriter: Bool = false, fetchLimit: Int = 0, filter: String? = nil) {
            for predicate in [false, true] {
                cases.append(ModelCase(seed: seed, usePredicate: predicate, kind: kind, operations: 0, secondWriter: secondWriter,
                                       fetchLimit: fetchLimit, filter: filter))
            }
        }
        if let text = environment["LIVERESULTS_MODEL_SEED"], let seed = parseSeed(text) {
            for kind in Kind.allCases {
                add(seed, kind)
                add(seed, kind, secondWriter: true)
                add(seed, kind, fetchLimit: 9)
                add(seed, kind, secondWriter: true, filter: "a")
            }
        } else {
            for seed: UInt64 in [0x5EED_0001, 0xC0FFEE, 0xBADC0DE] { add(seed, .plain) }
            add(0xE9E301, .equivalentZones)
            for seed: UInt64 in [0x5EC7_1085, 0x0DD5_EC75] { add(seed, .ranked) }
            add(0x2C0_1111, .plain, secondWriter: true)
            add(0x2C0_2222, .ranked, secondWriter: true)
            add(0x11_7777, .plain, fetchLimit: 9)
            add(0x11_8888, .ranked, fetchLimit: 9)
            add(0x05EC_0001, .unsectioned)
            add(0x05EC_0002, .unsectioned, secondWriter: true)
            add(0x11_9999, .plain, secondWriter: true, fetchLimit: 9)
            // The in-memory filter: alone, with a second connection, a fetchLimit, rank-sorted
            // sections and no section key; the runs change the filter now and then.
            add(0xF1_0001, .plain, filter: "a")
            add(0xF1_0002, .plain, secondWriter: true, filter: "n1")
            add(0xF1_0003, .ranked, secondWriter: true, filter: "a")
            add(0xF1_0004, .plain, fetchLimit: 9, filter: "")
            add(0xF1_0005, .unsectioned, secondWriter: true, filter: "B")
        }
        let each = max(1, total / cases.count)
        return cases.map { var c = $0; c.operations = each; return c }
    }

    static func parseSeed(_ text: String) -> UInt64? {
        text.lowercased().hasPrefix("0x") ? UInt64(text.dropFirst(2), radix: 16) : UInt64(text)
    }
}

@Suite("Model-based results controller")
struct ModelTests {
    @Test("Random transactions: batches obey the rules and rebuild the fresh result", arguments: ModelCase.all)
    func randomTransactions(_ modelCase: ModelCase) throws {
        let configuration = modelCase.configuration
        var generator = OperationGenerator(seed: modelCase.seed, zones: modelCase.zones)
        let setup = configuration.rankSorted
            ? generator.rankSetup()
            : (0..<25).map { _ in ModelOperation(statements: [generator.newRow()]) }
        var operations: [ModelOperation] = []
        var failure: RunFailure?
        var writers = SplitMix64(seed: modelCase.seed ^ 0x2C0)
        // A generator of its own, so that the other choices of a seed stay as they were.
        var writePaths = SplitMix64(seed: modelCase.seed ^ 0x11FE)
        do {
            let run = try ModelRun(setup: setup, configuration: configuration)
            for index in 0..<modelCase.operations {
                var operation = configuration.rankSorted
                    ? generator.rankOperation(rows: run.rows, valid: run.valid)
                    : generator.operation(ids: run.ids)
                operation.viaOtherConnection = configuration.secondWriter && writers.chance(0.5)
                operation.separateCommits = operation.viaOtherConnection && operation.statements.count > 1 && writers.chance(0.5)
                operation.throughLiveResultsWrite = !operation.viaOtherConnection && writePaths.chance(0.5)
                // (Not while the result is out of order: the controller keeps the last valid one.)
                if configuration.filter != nil, run.valid, writers.chance(0.04) {
                    operation = ModelOperation(statements: [], filterChange: .init(text: writers.pick(ModelConfiguration.filterTexts)))
                }
                operations.append(operation)
                if let message = run.step(operation) {
                    failure = RunFailure(index: index, message: message)
                    break
                }

            }
        } catch {
            failure = RunFailure(index: -1, message: "\(error)")
        }
        guard let failure else { return }

        let budget = ProcessInfo.processInfo.environment["LIVERESULTS_SHRINK_BUDGET"].flatMap { Int($0) } ?? 40_000
        let shrunk = shrink(setup: setup, operations: operations, failure: failure, configuration: configuration, budget: budget)
        var report = """
            Model test failed: \(modelCase.testDescription)
            Rerun with LIVERESULTS_MODEL_SEED=0x\(String(modelCase.seed, radix: 16)).
            Failed at \(failure.index < 0 ? "performFetch" : "operation \(failure.index)"): \(failure.message)

            Shrunk (\(shrunk.replayed) operations replayed) to \(shrunk.setup.count) setup and \(shrunk.operations.count) tracked operations, failing with:
            \(shrunk.failure.message)

            -- CREATE TABLE item (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT, zone TEXT, score INTEGER, flag INTEGER, code TEXT UNIQUE);
            \(configuration.secondWriter ? "-- with ChangeLog.install(on: \"item\", retaining: \(ModelConfiguration.retainedLogEntries)), in a file opened by two connections\n" : "")
            -- before performFetch (\(configuration.description)):

            """
        for operation in shrunk.setup { report += operation.description + "\n" }
        report += "-- performFetch, then one processPendingChanges after each of:\n"
        for operation in shrunk.operations { report += operation.description + "\n" }
        print(report)
        Issue.record(Comment(rawValue: report))
    }
}
