import Foundation
import TestSupport
import GRDB
import Testing
@testable import LiveResults
@testable import LiveResultsSQLite

/// The third mode: the section cache file.
@Suite("Section cache")
struct SectionCacheTests {
    /// A database file with a change log and 300 items in 4 zones, and a folder for caches.
    struct Setup {
        let file: URL
        let cacheFolder: URL
        let database: DatabaseQueue

        init() throws {
            let folder = try makeTemporaryFolder()
            file = folder.appendingPathComponent("items.sqlite")
            cacheFolder = folder.appendingPathComponent("caches")
            database = try makeItemDatabase(configuration: fileConfiguration, file: file)
            var random = SplitMix64(seed: 42)
            let zones = ["Africa", "Asia", "Europe", "Zone é 🌍"]
            try insertItems((0..<300).map { Item(name: "Team \($0)", zone: random.pick(zones), score: random.int(0...20)) }, into: database)
        }

        func controller(_ name: String? = "scores", predicate: String? = nil, sort: [SortColumn] = zoneScoreName, database: DatabaseQueue? = nil) -> (ResultsController<Item>, Recorder) {
            let controller = ResultsController<Item>(
                database: database ?? self.database,
                fetchRequest: ResultsRequest(predicate: predicate.map { ResultsPredicate(sql: $0) }, sortDescriptors: sort),
                sectionNameKeyPath: "zone", cacheName: name, cacheDirectory: cacheFolder)
            let recorder = Recorder()
            controller.delegate = recorder
            controller.changeLogPollInterval = .zero
            return (controller, recorder)
        }

        var cacheFile: URL { cacheFolder.appendingPathComponent("scores.liveresults-cache") }

        /// Fetches with a fresh controller and returns where the result came from, checking it
        /// against SQLite.
        func fetch(_ name: String? = "scores", predicate: String? = nil, sort: [SortColumn] = zoneScoreName) throws -> FetchSource? {
            let (controller, _) = controller(name, predicate: predicate, sort: sort)
            try controller.performFetch()
            try expectFresh(controller, predicate: predicate, sort: sort)
            return controller.lastFetchSource
        }

        func expectFresh(_ controller: ResultsController<Item>, predicate: String? = nil, sort: [SortColumn] = zoneScoreName) throws {
            let order = sort.map { "\($0.column) COLLATE BINARY \($0.ascending ? "ASC" : "DESC")" }.joined(separator: ", ")
            let expected = try database.read { try Int64.fetchAll($0, sql: "SELECT id FROM item WHERE \(predicate ?? "1") ORDER BY \(order), id") }
            let actual = controller.sections.indices.flatMap { s in (0..<controller.numberOfObjects(inSection: s)).map { controller.id(at: ip(s, $0)) } }
            #expect(actual == expected)
            let sections = try database.read { try String.fetchAll($0, sql: "SELECT DISTINCT zone FROM item WHERE \(predicate ?? "1") ORDER BY zone COLLATE BINARY") }
            #expect(controller.sections.map(\.name) == sections)
        }
    }

    @Test("The first fetch builds the cache; the next one reads it and equals a fresh fetch")
    func reuse() throws {
        let setup = try Setup()
        #expect(try setup.fetch() == .database)
        #expect(FileManager.default.fileExists(atPath: setup.cacheFile.path))
        #expect(try setup.fetch() == .cache)
    }

    @Test("A cache outlives closing and reopening a WAL database with a new pool")
    func reopenedPool() throws {
        let folder = try makeTemporaryFolder()
        let file = folder.appendingPathComponent("items.sqlite")
        try DatabaseQueue(path: file.path).write { db in
            try db.execute(sql: "CREATE TABLE item (id INTEGER PRIMARY KEY, name TEXT, zone TEXT, score INTEGER, flag INTEGER)")
            try ChangeLog.install(on: "item", in: db)
            for i in 0..<50 { try db.execute(sql: "INSERT INTO item (name, zone, score, flag) VALUES (?, ?, ?, 1)", arguments: ["T\(i)", "Z\(i % 3)", i % 7]) }
        }
        func fetch() throws -> FetchSource? {
            // Each launch opens a new pool; GRDB then makes a WAL file by creating and dropping a table.
            let pool = try DatabasePool(path: file.path)
            defer { try? pool.close() }
            let controller = ResultsController<Item>(database: pool, fetchRequest: ResultsRequest(sortDescriptors: zoneScoreName),
                                                     sectionNameKeyPath: "zone", cacheName: "scores", cacheDirectory: folder)
            try controller.performFetch()
            return controller.lastFetchSource
        }
        #expect(try fetch() == .database)
        #expect(try fetch() == .cache)
        #expect(try fetch() == .cache)
    }

    /// Commits another connection makes while no controller is open: a few rows (replayed
    /// through `apply`), or many (in one pass, `SectionedIndex.replay`), with a zone emptied
    /// and one made.
    static let commitsMeanwhile: [(name: String, statements: [String], atLeast: Int, under: Int)] = [
        ("a few", [
            "UPDATE item SET score = score + 7 WHERE id % 9 = 0",
            "DELETE FROM item WHERE id % 50 = 1",
            "INSERT INTO item (name, zone, score, flag) VALUES ('Atlantis', 'Oceania', 3, 1)",
        ], 1, SectionedIndex.replayPassRows),
        ("many", [
            "UPDATE item SET score = score + 5 WHERE id % 3 = 0",
            "UPDATE item SET zone = 'Mars' WHERE zone = 'Asia'",
            "DELETE FROM item WHERE id % 7 = 2",
            "INSERT INTO item (name, zone, score, flag) SELECT 'New ' || id, 'Atlantis', id % 4, 1 FROM item WHERE id <= 40",
        ], SectionedIndex.replayPassRows, .max),
    ]

    @Test("Commits made while no controller was open are replayed from the change log onto the cache: a few rows, or many in one pass",
          arguments: commitsMeanwhile.indices)
    func catchUp(_ kind: Int) throws {
        let (name, statements, atLeast, under) = Self.commitsMeanwhile[kind]
        let setup = try Setup()
        #expect(try setup.fetch() == .database)
        let other = try DatabaseQueue(path: setup.file.path, configuration: fileConfiguration)
        let (start, end) = try other.write { db in
            let start = try ChangeLog.position(db)
            for statement in statements { try db.execute(sql: statement) }
            return (start, try ChangeLog.position(db))
        }
        // The path taken depends on how many rows changed.
        let changed = try other.read { try ChangeLog.changedRowIDs($0, table: "item", after: start, through: end) }?.count ?? 0
        #expect((atLeast..<under).contains(changed), "\(name): \(changed) rows changed")
        #expect(try setup.fetch() == .cache)
    }

    @Test("A controller saves the cache when it goes away, so the next launch starts where it stopped")
    func saveOnClose() throws {
        let setup = try Setup()
        do {
            let (controller, recorder) = setup.controller()
            try controller.performFetch()
            for id in [3, 5, 8] { try setup.database.write { try $0.execute(sql: "UPDATE item SET score = score + 30 WHERE id = ?", arguments: [id]) } }
            try controller.processPendingChanges()
            #expect(recorder.take().count == 9)
        }
        // The log is emptied (but for its newest entry, which it always keeps): only a cache
        // saved after the taps can be used.
        try setup.database.write { db in
            try db.execute(sql: "DELETE FROM liveresults_change")
        }
        #expect(try setup.fetch() == .cache)
    }

    @Test("A cache whose changes were pruned from the log is stale: rebuilt from the database")
    func stale() throws {
        let setup = try Setup()
        #expect(try setup.fetch() == .database)
        try setup.database.write { db in
            try db.execute(sql: "UPDATE item SET score = score + 1 WHERE id = 1")
            try db.execute(sql: "UPDATE item SET score = score + 1 WHERE id = 2")
            // All but the newest entry (id 2's) go: id 1's change is lost to the cache.
            try db.execute(sql: "DELETE FROM liveresults_change")
        }
        #expect(try setup.fetch() == .database)
        #expect(try setup.fetch() == .cache)
    }

    @Test("A different request, predicate, sort, schema or database ignores the cache", arguments: ["predicate", "sort", "schema", "database"])
    func foreign(_ change: String) throws {
        let setup = try Setup()
        #expect(try setup.fetch() == .database)
        switch change {
        case "predicate":
            #expect(try setup.fetch(predicate: "score > 3") == .database)
        case "sort":
            #expect(try setup.fetch(sort: [SortColumn("zone"), SortColumn("name")]) == .database)
        case "schema":
            try setup.database.write { try $0.execute(sql: "CREATE INDEX item_on_name ON item(name)") }
            #expect(try setup.fetch() == .database)
        default:
            // Another database file, same cache name and same position.
            let other = try Setup()
            try FileManager.default.createDirectory(at: other.cacheFolder, withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: setup.cacheFile, to: other.cacheFile)
            #expect(try other.fetch() == .database)
        }
    }

    @Test("A truncated, corrupted or garbage cache file is ignored and rebuilt", arguments: ["truncated", "flipped", "garbage", "empty", "directory"])
    func damaged(_ damage: String) throws {
        let setup = try Setup()
        #expect(try setup.fetch() == .database)
        var bytes = try Data(contentsOf: setup.cacheFile)
        switch damage {
        case "truncated": bytes = bytes.prefix(bytes.count / 2)
        case "flipped": bytes[bytes.count / 2] ^= 0x20
        case "garbage": bytes = Data((0..<bytes.count).map { UInt8(truncatingIfNeeded: $0 &* 7919) })
        case "empty": bytes = Data()
        default: break
        }
        if damage == "directory" {
            try FileManager.default.removeItem(at: setup.cacheFile)
            try FileManager.default.createDirectory(at: setup.cacheFile, withIntermediateDirectories: false)
            #expect(try setup.fetch() == .database)
            return
        }
        try bytes.write(to: setup.cacheFile)
        #expect(try setup.fetch() == .database)
        #expect(try setup.fetch() == .cache)
    }

    @Test("deleteCache(named:) removes one cache; nil removes them all")
    func delete() throws {
        let setup = try Setup()
        _ = try setup.fetch("scores")
        _ = try setup.fetch("odd name/with ✓")
        let files = { try FileManager.default.contentsOfDirectory(atPath: setup.cacheFolder.path).sorted() }
        #expect(try files() == ["odd%20name%2Fwith%20%E2%9C%93.liveresults-cache", "scores.liveresults-cache"])
        try ResultsController<Item>.deleteCache(named: "scores", in: setup.cacheFolder)
        #expect(try files() == ["odd%20name%2Fwith%20%E2%9C%93.liveresults-cache"])
        try FileManager.default.createDirectory(at: setup.cacheFolder.appendingPathComponent("unrelated"), withIntermediateDirectories: false)
        try ResultsController<Item>.deleteCache(named: nil, in: setup.cacheFolder)
        #expect(try files() == ["unrelated"])
        #expect(try setup.fetch("scores") == .database)
    }

    @Test("A save removes the temporary files of saves killed midway, and only those")
    func abandonedTemporariesRemoved() throws {
        let setup = try Setup()
        _ = try setup.fetch("scores")
        let folder = setup.cacheFolder
        // A process that has ended: its number is free (until reused, when its file stays).
        let ended = Process()
        ended.executableURL = URL(fileURLWithPath: "/bin/true")
        try ended.run()
        ended.waitUntilExit()
        let gone = ended.processIdentifier
        let living = ProcessInfo.processInfo.processIdentifier
        let anHourAgo = Date().addingTimeInterval(-3600)
        func make(_ name: String, modified: Date = anHourAgo) throws {
            let file = folder.appendingPathComponent(name)
            try Data("partial".utf8).write(to: file)
            try FileManager.default.setAttributes([.modificationDate: modified], ofItemAtPath: file.path)
        }
        try make(".scores.liveresults-cache.\(gone).123")                  // abandoned: removed
        try make(".scores.liveresults-cache.\(living).456")                // a living process's
        try make(".scores.liveresults-cache.\(gone).789", modified: Date()) // written to just now
        try make(".other.liveresults-cache.\(gone).123")                   // another cache's
        try make(".scores.liveresults-cache.\(gone).12.3")                 // not a name a save makes
        try make("notes.txt")
        let files = { Set(try FileManager.default.contentsOfDirectory(atPath: folder.path)) }
        let before = try files()
        do {
            // A controller saves its cache when it goes away.
            let (controller, recorder) = setup.controller()
            try controller.performFetch()
            try setup.database.write { try $0.execute(sql: "UPDATE item SET score = score + 30 WHERE id = 1") }
            try controller.processPendingChanges()
            #expect(!recorder.take().isEmpty)
        }
        let after = try files()
        #expect(after == before.subtracting([".scores.liveresults-cache.\(gone).123"]), "\(before.sorted()) → \(after.sorted())")
        #expect(try setup.fetch() == .cache)
    }

    @Test("Changing the request: delete the cache, change the request, fetch again; changes keep flowing")
    func changeRequest() throws {
        let setup = try Setup()
        let (controller, recorder) = setup.controller()
        try controller.performFetch()
        try ResultsController<Item>.deleteCache(named: controller.cacheName, in: setup.cacheFolder)
        controller.fetchRequest.predicate = ResultsPredicate(sql: "score >= ?", arguments: [10])
        try controller.performFetch()
        #expect(controller.lastFetchSource == .database)
        try setup.expectFresh(controller, predicate: "score >= 10")
        let low = try setup.database.read { try Int64.fetchOne($0, sql: "SELECT id FROM item WHERE score < 10 LIMIT 1") }!
        try setup.database.write { try $0.execute(sql: "UPDATE item SET score = 40 WHERE id = ?", arguments: [low]) }
        try controller.processPendingChanges()
        #expect(recorder.rowEvents.count == 1)
        try setup.expectFresh(controller, predicate: "score >= 10")
    }

    @Test("Without a change log there is no position to check a cache against: none is written")
    func noChangeLog() throws {
        let folder = try makeTemporaryFolder()
        let database = try makeItemDatabase(configuration: fileConfiguration, file: nil)
        try insertItems([Item(name: "A", zone: "Z")], into: database)
        let controller = ResultsController<Item>(database: database, fetchRequest: ResultsRequest(sortDescriptors: zoneScoreName),
                                                 sectionNameKeyPath: "zone", cacheName: "scores", cacheDirectory: folder)
        try controller.performFetch()
        #expect(controller.lastFetchSource == .database)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
    }

    @Test("The file name escapes everything but letters, digits, '-', '_' and inner dots")
    func fileNames() {
        #expect(SectionCache.fileName(for: "WorldCup.scoreboard") == "WorldCup.scoreboard.liveresults-cache")
        #expect(SectionCache.fileName(for: "../x") == "%2E.%2Fx.liveresults-cache")
        #expect(SectionCache.fileName(for: "") == ".liveresults-cache")
    }

    /// Writes `index` to a cache file and reads it back, after `damage` changed the file's bytes.
    static func roundTrip(_ index: SectionedIndex, unsectioned: Bool, damage: (inout Data) -> Void = { _ in }) throws -> SectionedIndex? {
        let stamp = CacheStamp(table: "item", schema: "s", sortDescriptors: [], predicate: "", sectionKeyPath: unsectioned ? nil : "zone", databaseID: "d", position: 1)
        let file = SectionCache(name: "round-trip", directory: try makeTemporaryFolder())
        try file.save(index, stamp: stamp)
        var bytes = try Data(contentsOf: file.url)
        damage(&bytes)
        try bytes.write(to: file.url)
        return file.load(matching: stamp, ascending: index.ascending, sectionName: SectionedIndex.sectionName)?.index
    }

    @Test("The compact forms read back exactly: the section key column, narrow and wide integers, texts, any values")
    func compactFormsRoundTrip() throws {
        // Sectioned by zone, sorted by zone, score (descending), name: the zone is stored once per section.
        let rows: [(id: RecordID, key: RowKey)] = [
            (1 << 40, RowKey(section: "Africa".columnValue, sort: ["Africa".columnValue, Int64(1 << 50).columnValue, "Ghana".columnValue])),
            (5, RowKey(section: "Africa".columnValue, sort: ["Africa".columnValue, 3.columnValue, "Mali".columnValue])),
            (2, RowKey(section: "Europe".columnValue, sort: ["Europe".columnValue, 3.columnValue, 7.columnValue])),
            (3, RowKey(section: "Europe".columnValue, sort: ["Europe".columnValue, 3.columnValue, "é".columnValue])),
        ]
        let index = try SectionedIndex(ascending: [true, false, true], unsectioned: false, sortedRows: rows, sectionName: SectionedIndex.sectionName)
        #expect(index.store.columns[0].isSectionKey)
        let loaded = try #require(try Self.roundTrip(index, unsectioned: false))
        loaded._checkInvariants()
        #expect(loaded.store.columns[0].isSectionKey)
        #expect(loaded.allIDs == rows.map(\.id))
        for (id, key) in rows { #expect(loaded.key(for: id) == key) }
        #expect(loaded.sections.map(\.name) == ["Africa", "Europe"])

        // Unsectioned, sorted by small integers then text: no section key column.
        let plain: [(id: RecordID, key: RowKey)] = (1...40).map { id in
            (RecordID(id), RowKey(section: .null, sort: [(id / 10).columnValue, "n\(id)".columnValue]))
        }
        let sortedPlain = plain.sorted { a, b in
            let x = (a.key.sort[0], a.key.sort[1]), y = (b.key.sort[0], b.key.sort[1])
            guard case let (.integer(ax), .text(an)) = x, case let (.integer(bx), .text(bn)) = y else { return false }
            return ax != bx ? ax < bx : (an != bn ? Array(an.utf8).lexicographicallyPrecedes(Array(bn.utf8)) : a.id < b.id)
        }
        let unsectioned = try SectionedIndex(ascending: [true, true], unsectioned: true, sortedRows: sortedPlain, sectionName: SectionedIndex.sectionName)
        #expect(!unsectioned.store.columns[0].isSectionKey)
        let loadedPlain = try #require(try Self.roundTrip(unsectioned, unsectioned: true))
        loadedPlain._checkInvariants()
        #expect(loadedPlain.allIDs == sortedPlain.map(\.id))
        for (id, key) in sortedPlain { #expect(loadedPlain.key(for: id) == key) }
    }

    @Test("A large index reads back exactly, its arrays copied on several threads; a byte changed anywhere in them refuses it")
    func largeRoundTrip() throws {
        // 201,600 rows in result order (zone, wins descending, name), a name of 255 bytes or more
        // every 997 rows: many blocks of the checksum, past the thresholds of the parallel copy.
        var rows: [(id: RecordID, key: RowKey)] = []
        for zone in ["Africa", "Asia", "Europe"] {
            for wins in stride(from: 20, through: 0, by: -1) {
                for _ in 0..<3200 {
                    let id = rows.count + 1
                    let name = "Team " + String(repeating: "0", count: 7 - String(id).count) + String(id) + (id % 997 == 0 ? String(repeating: "é", count: 140) : "")
                    rows.append((RecordID(id), RowKey(section: zone.columnValue, sort: [zone.columnValue, wins.columnValue, name.columnValue])))
                }
            }
        }
        let index = try SectionedIndex(ascending: [true, false, true], unsectioned: false, sortedRows: rows, sectionName: SectionedIndex.sectionName)
        let loaded = try #require(try Self.roundTrip(index, unsectioned: false))
        #expect(loaded.allIDs == rows.map(\.id))
        for (id, key) in rows where id % 997 == 0 || id % 1013 == 1 { #expect(loaded.key(for: id) == key, "row \(id)") }
        #expect(loaded.sections.map(\.name) == ["Africa", "Asia", "Europe"])
        for fraction in [0.1, 0.3, 0.5, 0.7, 0.9] {
            let damaged = try Self.roundTrip(index, unsectioned: false) { bytes in bytes[Int(Double(bytes.count) * fraction)] ^= 0x04 }
            #expect(damaged == nil, "a byte changed at \(fraction) of the file")
        }
    }
    @Test("A loaded index uses the file's pages in place; changes to it (taps, new rows, deletes, a new zone) never reach the file")
    func usedInPlace() throws {
        var random = SplitMix64(seed: 11)
        var keys: [RecordID: RowKey] = [:]
        func key(zone: String, wins: Int, name: String) -> RowKey {
            RowKey(section: zone.columnValue, sort: [zone.columnValue, wins.columnValue, name.columnValue])
        }
        for id in 1...3_000 { keys[RecordID(id)] = key(zone: random.pick(["Africa", "Asia", "Europe"]), wins: random.int(0...30), name: "Team \(id)") }
        /// The ids in result order: zone, wins descending, name, id.
        func order(_ keys: [RecordID: RowKey]) -> [RecordID] {
            keys.sorted { a, b in
                let (x, y) = (a.value.sort, b.value.sort)
                for (c, ascending) in [true, false, true].enumerated() {
                    let compared = SQLiteOrdering.compare(x[c], y[c])
                    if compared != 0 { return ascending ? compared < 0 : compared > 0 }
                }
                return a.key < b.key
            }.map(\.key)
        }
        let saved = try SectionedIndex(ascending: [true, false, true], unsectioned: false, sortedRows: order(keys).map { ($0, keys[$0]!) },
                                       sectionName: SectionedIndex.sectionName)
        let stamp = CacheStamp(table: "item", schema: "s", sortDescriptors: [], predicate: "", sectionKeyPath: "zone", databaseID: "d", position: 1)
        let file = SectionCache(name: "in-place", directory: try makeTemporaryFolder())
        try file.save(saved, stamp: stamp)
        let written = try Data(contentsOf: file.url)
        func load() throws -> SectionedIndex {
            try #require(file.load(matching: stamp, ascending: saved.ascending, sectionName: SectionedIndex.sectionName)?.index)
        }

        var loaded = try load()
        guard case .int16(let ids) = loaded.store.ids.storage, case .texts = loaded.store.columns[2] else {
            Issue.record("ids of 2 bytes and a column of texts expected")
            return
        }
        #expect(ids.isMapped && loaded.sections.allSatisfy { !$0.slots.isMapped }, "ids where the file is; sections' slots made at the load")
        for round in 0..<20 {
            var changes: [(id: RecordID, key: RowKey?)] = []
            for _ in 0..<random.int(1...40) {
                let id = RecordID(random.int(1...3_200))
                switch random.int(0..<10) {
                case 0: changes.append((id, nil)) // a delete, or nothing for an id not there
                case 1: changes.append((id, key(zone: random.pick(["Asia", "Mars"]), wins: random.int(0...40), name: "Moved \(id) é")))
                default:
                    if let old = keys[id] { changes.append((id, key(zone: SectionedIndex.sectionName(old.section), wins: random.int(0...40), name: "Team \(id)"))) }
                }
            }
            var unique: [RecordID: RowKey?] = [:]
            for (id, key) in changes { unique[id] = key }
            _ = try loaded.apply(unique.map { ($0.key, $0.value) }, sectionName: SectionedIndex.sectionName)
            for (id, key) in unique { keys[id] = key }
            loaded._checkInvariants()
            #expect(loaded.allIDs == order(keys), "round \(round)")
        }
        #expect(try Data(contentsOf: file.url) == written, "the file is as it was written")
        #expect(try load().allIDs == saved.allIDs, "and loads as it was saved")
    }
}
