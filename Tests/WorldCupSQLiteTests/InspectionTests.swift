@testable import WorldCup
@testable import WorldCupSQLite
import Foundation
import GRDB
import Glibc
import LiveResults
import LiveResultsSQLite
import TestSupport
import Testing

/// The checks at open: cheap (header, size, schema) unless SQLite's own evidence of a crash,
/// a doubtful size or the caller asks for the full one.
@Suite("Opening checks")
struct InspectionTests {
    /// A seeded database closed cleanly: everything in the file, no -wal.
    static func cleanDatabase(in folder: TemporaryFolder) throws -> URL {
        do { _ = try SQLiteTeamStore(databaseURL: folder.database, seedURL: Repository.seed) }
        #expect(!FileManager.default.fileExists(atPath: folder.database.path + "-wal"))
        return folder.database
    }

    static func header(of url: URL) throws -> DatabaseHeader {
        try #require(DatabaseHeader(Array(Data(contentsOf: url).prefix(DatabaseHeader.size))))
    }

    @Test("The header of our database: WAL, 4 KiB pages, a page count that matches the file")
    func header() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let url = try Self.cleanDatabase(in: folder)
        let header = try Self.header(of: url)
        #expect(header.problem == nil)
        #expect(header.isWAL)
        #expect(header.pageSize == 4096)
        let size = try #require(FileLocks.size(of: url.path))
        #expect(header.trustedPageCount.map { $0 * header.pageSize } == size)
    }

    @Test("Headers SQLite would refuse are refused by their fields")
    func badHeaders() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let bytes = Array(try Data(contentsOf: Self.cleanDatabase(in: folder)).prefix(DatabaseHeader.size))
        func patched(_ offset: Int, _ values: [UInt8]) -> DatabaseHeader? {
            var copy = bytes
            copy.replaceSubrange(offset..<offset + values.count, with: values)
            return DatabaseHeader(copy)
        }
        #expect(patched(16, [0x10, 0x01])?.problem?.contains("page size") == true, "4097 is no power of two")
        #expect(patched(16, [0x00, 0x80])?.problem?.contains("page size") == true, "128 is too small")
        #expect(patched(16, [0x00, 0x01])?.problem == nil, "1 means 65,536")
        #expect(patched(18, [3, 3])?.problem != nil)
        #expect(patched(21, [65])?.problem != nil)
        #expect(patched(20, [255])?.problem == nil, "255 reserved bytes still leave 3,841 of 4,096")
        #expect(patched(0, Array("SQLite format 2".utf8)) == nil, "not our magic")
        #expect(patched(92, [0, 0, 0, 0])?.trustedPageCount == nil, "a count from an old writer is not trusted")
        #expect(DatabaseHeader(Array(bytes.prefix(20)))?.problem != nil, "cut short")
    }

    @Test("A clean file is checked cheaply: no full read")
    func cheapWhenClean() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let url = try Self.cleanDatabase(in: folder)
        #expect(try DatabaseFile.inspect(url) == DatabaseInspection(isNew: false, fullCheck: nil))
        #expect(try DatabaseFile.inspect(url, thorough: true, countTeams: true) == DatabaseInspection(isNew: false, fullCheck: .asked, teamCount: 32))
    }

    @Test("A -wal with content that no connection holds is a crash: the full check runs")
    func crashEvidence() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let url = try Self.cleanDatabase(in: folder)
        // Not a valid log (SQLite ignores it), but evidence all the same.
        try Data(repeating: 0x5A, count: 4096).write(to: URL(fileURLWithPath: url.path + "-wal"))
        #expect(SideFiles.look(beside: url.path).showCrash)
        #expect(try DatabaseFile.inspect(url).fullCheck == .crash)
    }

    @Test("A log held by a live connection is no crash; nor is one this process holds")
    func liveLog() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let url = try Self.cleanDatabase(in: folder)
        do {
            let scoreboard = try SQLiteTeamStore(databaseURL: url, seedURL: nil)
            try scoreboard.tap(named: "Brazil")
            let sideFiles = SideFiles.look(beside: url.path)
            #expect(sideFiles.walBytes > 0)
            #expect(sideFiles.walInUse, "this process's connection holds the -shm's dead man switch")
            #expect(!sideFiles.showCrash)
            #expect(FileLocks.current().isLocked(url.path, by: getpid()))
            // A second store in the same process does not read the file again (see `inspect`).
            #expect(try DatabaseFile.inspect(url) == DatabaseInspection(isNew: false))
        }
        // Released, the store closes its connections, and the last one deletes the log.
        #expect(!FileManager.default.fileExists(atPath: url.path + "-wal"))
        #expect(!FileLocks.current().isLocked(url.path, by: getpid()))
    }

    @Test("A file longer than its header says is checked in full; a shorter one is refused")
    func sizeAgainstPageCount() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let url = try Self.cleanDatabase(in: folder)
        let bytes = try Data(contentsOf: url)
        try (bytes + Data(count: 4096)).write(to: url)
        #expect(try DatabaseFile.inspect(url).fullCheck == .doubtfulSize)
        try bytes.prefix(bytes.count - 4096).write(to: url)
        let error = worldCupError { try DatabaseFile.inspect(url) }
        #expect(error?.description.contains("shorter than its header says") == true, "\(error?.description ?? "")")
        #expect(error?.isDamage == true)
        #expect(error.map { isOneSentence($0.description) } == true)
    }

    @Test("Damage the cheap checks do not read is found by the full check")
    func damageOnlyTheFullCheckSees() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let url = try Self.cleanDatabase(in: folder)
        try scribble(onRootOf: "sqlite_autoindex_team_1", in: url)
        #expect(try DatabaseFile.inspect(url).fullCheck == nil, "the open stays cheap")
        let error = worldCupError { _ = try SQLiteTeamStore.check(databaseURL: url) }
        #expect(error?.description.contains("its quick check failed") == true, "\(error?.description ?? "")")
        #expect(error?.isDamage == true)
    }

    @Test("SQLite's corruption errors, and the controller's sentence for them, read as damage; others do not")
    func damageFromErrors() {
        let corrupt = DatabaseFile.damage(in: DatabaseError(resultCode: .SQLITE_CORRUPT, message: "database disk image is malformed"), path: "/tmp/x.sqlite")
        #expect(corrupt?.description == "The database /tmp/x.sqlite is damaged (database disk image is malformed), so it was left untouched (worldcup reset replaces it).")
        #expect(DatabaseFile.damage(in: DatabaseError(resultCode: .SQLITE_NOTADB, message: "file is not a database")) != nil)
        #expect(DatabaseFile.damage(in: DatabaseError(resultCode: .SQLITE_BUSY, message: "database is locked")) == nil)
        #expect(DatabaseFile.damage(in: WorldCupError("That team no longer exists.")) == nil)
        struct Passed: Error, CustomStringConvertible { var description: String }
        #expect(DatabaseFile.damage(in: Passed(description: "The database could not run the fetch request: database disk image is malformed.")) != nil)
        #expect(DatabaseFile.damage(in: Passed(description: "The row 7 is no longer in the database.")) == nil)
    }

    @Test("/proc/locks lines: POSIX locks only, device numbers unpadded, EOF as an open end")
    func lockListing() {
        let locks = FileLocks(listing: """
            1: POSIX  ADVISORY  READ 6706 fe:00:16319648 128 128
            2: FLOCK  ADVISORY  WRITE 27657 fe:00:16223152 0 EOF
            3: POSIX  ADVISORY  WRITE 30837 08:11:5563751 1073741824 EOF
            4: OFDLCK ADVISORY  READ  -1 00:05:99 0 0
            """)
        #expect(locks.locks == [
            FileLocks.Lock(pid: 6706, file: "fe:0:16319648", bytes: 128...128),
            FileLocks.Lock(pid: 30837, file: "8:11:5563751", bytes: 1_073_741_824...Int.max),
        ])
    }

    @Test("check: a missing file is an error and is not created; an empty one is new")
    func checkMissingAndEmpty() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let error = worldCupError { _ = try SQLiteTeamStore.check(databaseURL: folder.database) }
        #expect(error?.description.contains("There is no database") == true)
        #expect(!FileManager.default.fileExists(atPath: folder.database.path))
        _ = FileManager.default.createFile(atPath: folder.database.path, contents: nil)
        #expect(try SQLiteTeamStore.check(databaseURL: folder.database).isNew)
    }
}

/// Fills the root page of a table or index with bytes no page has, in the file itself.
func scribble(onRootOf name: String, in url: URL) throws {
    let queue = try DatabaseQueue(path: url.path)
    let (page, pageSize) = try queue.read { db in
        (try Int.fetchOne(db, sql: "SELECT rootpage FROM sqlite_master WHERE name = ?", arguments: [name]), try Int.fetchOne(db, sql: "PRAGMA page_size"))
    }
    try queue.close()
    let root = try #require(page), size = try #require(pageSize)
    let handle = try FileHandle(forWritingTo: url)
    try handle.seek(toOffset: UInt64((root - 1) * size))
    try handle.write(contentsOf: Data(repeating: 0xA5, count: size))
    try handle.close()
}
