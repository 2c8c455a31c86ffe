import Foundation
import GRDB
import Glibc
import Testing
import TestSupport

/// `worldcup check`, and the full check that opening runs after a crash, through the binary.
@Suite("worldcup check and the full check after a crash")
struct CheckTests {
    /// Where the root page of a table or index is: its offset in the file and its size.
    static func rootPage(of name: String, in url: URL) throws -> (offset: UInt64, size: Int) {
        let queue = try DatabaseQueue(path: url.path)
        let (page, pageSize) = try queue.read { db in
            (try Int.fetchOne(db, sql: "SELECT rootpage FROM sqlite_master WHERE name = ?", arguments: [name]), try Int.fetchOne(db, sql: "PRAGMA page_size"))
        }
        try queue.close()
        let root = try #require(page), size = try #require(pageSize)
        return (UInt64((root - 1) * size), size)
    }

    /// Fills a page with bytes no page has, in the file itself, without SQLite.
    static func scribble(on page: (offset: UInt64, size: Int), in url: URL) throws {
        let handle = try FileHandle(forWritingTo: url)
        try handle.seek(toOffset: page.offset)
        try handle.write(contentsOf: Data(repeating: 0xA5, count: page.size))
        try handle.close()
    }

    /// Runs tap-loop on Brazil until it acknowledged `taps` taps, then kills it with SIGKILL:
    /// its -wal stays behind, and no process holds it.
    static func crashWhileTapping(_ url: URL, taps: Int = 200) throws {
        let process = Process()
        process.executableURL = Executable.tapLoop
        process.arguments = [url.path, "Brazil", "1000000"]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        var seen = 0
        while seen < taps {
            let chunk = out.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            seen += chunk.lazy.filter { $0 == UInt8(ascii: "\n") }.count
        }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        try #require(seen >= taps, "tap-loop acknowledged only \(seen) taps")
        try #require((try? FileManager.default.attributesOfItem(atPath: url.path + "-wal")[.size] as? Int) ?? 0 > 0, "a killed writer leaves its WAL")
    }

    @Test("A sound file: one sentence on stdout with the number of teams, status 0, the database unchanged")
    func sound() throws {
        let folder = try TemporaryFolder(prefix: "DurabilityTests")
        defer { folder.remove() }
        let url = try BadInputTests.seededDatabase("WorldCup.sqlite", in: folder)
        let before = try Data(contentsOf: url)
        let result = try Executable.run(["check", "--database", url.path])
        #expect(result.status == 0 && result.err.isEmpty, "\(result.err)")
        #expect(result.out == "The database \(url.path) is sound: it passed SQLite's quick check and holds 32 teams.\n")
        #expect(try Data(contentsOf: url) == before)
    }

    @Test("An empty file is sound (a new database is made of it); a missing one is an error, and is not created")
    func emptyAndMissing() throws {
        let folder = try TemporaryFolder(prefix: "DurabilityTests")
        defer { folder.remove() }
        let missing = folder.file("none/WorldCup.sqlite")
        expectError(try Executable.run(["check", "--database", missing.path]), mentions: ["There is no database"], "missing")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path) == [])
        try Data().write(to: folder.file("empty.sqlite"))
        let before = folder.snapshot()
        let empty = try Executable.run(["check", "--database", folder.file("empty.sqlite").path])
        #expect(empty.status == 0 && empty.err.isEmpty && empty.out.contains("is empty"), "\(empty)")
        #expect(folder.snapshot() == before)
    }

    @Test("Every bad database is refused by check too, in one sentence, and left as it was", arguments: BadInputTests.databaseCases)
    func badDatabase(_ bad: BadInputTests.Case) throws {
        let folder = try TemporaryFolder(prefix: "DurabilityTests")
        defer { folder.remove() }
        let database = try bad.prepare(folder)
        let before = folder.snapshot()
        let result = try Executable.run(["check", "--database"] + database)
        // A path through a file, or under a folder that cannot be made, is simply missing, for check.
        expectError(result, mentions: bad.label.hasPrefix("parent") ? ["no database"] : bad.mentions, bad.label)
        #expect(folder.snapshot() == before, "\(bad.label): files changed")
    }

    @Test("Damage where opening does not look (an index no command reads at start) is found by check")
    func damageOnlyCheckFinds() throws {
        let folder = try TemporaryFolder(prefix: "DurabilityTests")
        defer { folder.remove() }
        let url = try BadInputTests.seededDatabase("WorldCup.sqlite", in: folder)
        try Self.scribble(on: Self.rootPage(of: "sqlite_autoindex_team_1", in: url), in: url)
        let before = folder.snapshot()
        expectError(try Executable.run(["check", "--database", url.path]), mentions: ["damaged", "quick check"], "check")
        #expect(folder.snapshot() == before)
    }

    @Test("After kill -9, the next open reads the whole file: damage anywhere is refused, and nothing is written")
    func fullCheckAfterCrash() throws {
        let folder = try TemporaryFolder(prefix: "DurabilityTests")
        defer { folder.remove() }
        let url = try BadInputTests.seededDatabase("WorldCup.sqlite", in: folder)
        // The index of names: taps read it (to find Brazil) but never change it, so after
        // the crash its page is in the file, not in the log. Scribbled on after the crash,
        // SQLite's evidence of the crash (the log nobody holds) stays.
        let names = try Self.rootPage(of: "sqlite_autoindex_team_1", in: url)
        try Self.crashWhileTapping(url)
        try Self.scribble(on: names, in: url)
        // The -shm is SQLite's scratch index of the log, rebuilt by any reader: not compared.
        func files() -> [String: Data?] { folder.snapshot().filter { !$0.key.hasSuffix("-shm") } }
        let before = files()
        expectError(try Executable.run(["list", "--database", url.path]), mentions: ["damaged", "quick check"], "list after a crash")
        #expect(files() == before, "the refused file and its -wal stay as they were")
    }

    @Test("After kill -9 of a sound file, the full check passes and the next open is cheap again")
    func soundAfterCrash() throws {
        let folder = try TemporaryFolder(prefix: "DurabilityTests")
        defer { folder.remove() }
        let url = try BadInputTests.seededDatabase("WorldCup.sqlite", in: folder)
        try Self.crashWhileTapping(url)
        let listed = try Executable.run(["list", "--database", url.path])
        #expect(listed.status == 0 && listed.err.isEmpty, "\(listed.err)")
        // The clean exit folded the log into the file: no evidence of a crash is left.
        #expect(!FileManager.default.fileExists(atPath: url.path + "-wal"))
    }

    @Test("check is listed in the help")
    func help() throws {
        let result = try Executable.run(["--help"])
        #expect(result.out.contains("check"), "\(result.out)")
        let own = try Executable.run(["check", "--help"])
        #expect(own.status == 0 && own.out.contains("quick_check"), "\(own.out)")
    }
}
