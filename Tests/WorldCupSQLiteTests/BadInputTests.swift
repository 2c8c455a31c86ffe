@testable import WorldCup
@testable import WorldCupSQLite
import Foundation
import GRDB
import TestSupport
import Testing

@Suite("JSON error positions")
struct JSONSyntaxTests {
    static let cases: [(text: String, line: Int, column: Int, expected: String)] = [
        ("", 1, 1, "a value"),
        ("this { not", 1, 1, "a value"),
        ("[1, 2", 1, 6, "“,” or “]”"),
        ("[1 2]", 1, 4, "“,” or “]”"),
        ("[1,,]", 1, 4, "a value"),
        ("{\"a\" 1}", 1, 6, "“:”"),
        ("{\"a\": 1,,}", 1, 9, "a field name"),
        ("{\"a\": }", 1, 7, "a value"),
        ("[\n  {\"teamName\": \"Brazil\",\n    \"wins\": tru }\n]", 3, 13, "a value"),
        ("[\"Curaçao\", x]", 1, 13, "a value"),  // columns count characters, not bytes
        ("[\"open\n\"]", 1, 7, "“\"” before the end of the line"),
        ("[\"no end", 1, 9, "“\"” to end the text"),
        ("[1] 2", 1, 5, "nothing after the end of the document"),
        ("/* never closed", 1, 1, "“*/” to end this comment"),
        ("[\"\\u12G4\"]", 1, 7, "four hexadecimal digits"),
        ("[-]", 1, 2, "a value"),
        ("[1e]", 1, 4, "the digits of an exponent"),
    ]

    @Test("The first problem is found at its line and column", arguments: cases.indices)
    func positions(index: Int) throws {
        let (text, line, column, expected) = Self.cases[index]
        let problem = try #require(JSONSyntax.firstProblem(in: Array(text.utf8)), "\(text)")
        #expect(problem.line == line && problem.column == column, "\(text): \(problem)")
        #expect(problem.expected == expected, "\(text): \(problem)")
    }

    @Test("JSON5 that the decoder accepts has no problem", arguments: [
        "[]", "{}", "[1, 2, 3,]", "{a: 1, 'b': 'two', \"c\": [true, false, null],}",
        "// comment\n[/* inline */ 0x1F, .5, 5., +1, -Infinity, NaN, 1e-3]",
        "[\"line \\\ncontinued\", \"\\x41\\u00e9\\n\"]", "\u{FEFF}[1]",
    ])
    func validText(_ text: String) {
        #expect(JSONSyntax.firstProblem(in: Array(text.utf8)) == nil, "\(text)")
    }

    @Test("Invalid UTF-8 is a problem at its character")
    func invalidUTF8() throws {
        let bytes = Array("[\"ab".utf8) + [0xC3, 0x28] + Array("\"]".utf8)
        let problem = try #require(JSONSyntax.firstProblem(in: bytes))
        #expect(problem.expected == "valid UTF-8" && problem.column == 5)
    }

    @Test("Deep nesting is scanned without recursion")
    func deepNesting() {
        let deep = String(repeating: "[", count: 200_000) + String(repeating: "]", count: 199_999)
        #expect(JSONSyntax.firstProblem(in: Array(deep.utf8))?.expected == "“,” or “]”")
    }

    @Test("Seed errors for text that is not JSON name the line and column")
    func seedMessage() {
        let error = worldCupError { _ = try Seed.decode(Data("[\n  {\"teamName\": 'x',\n   wins: 1,, }\n]".utf8), source: "s.json") }
        #expect(error?.description == "The seed file s.json is not valid JSON: expected a field name at line 3, column 12.")
        #expect(isOneSentence(error?.description ?? ""))
    }
}

@Suite("Seed files at the edges")
struct SeedEdgeTests {
    @Test("A file over the size limit is refused by its size, one at the limit is read")
    func sizeLimit() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let over = folder.file("over.json")
        _ = FileManager.default.createFile(atPath: over.path, contents: nil)
        let handle = try FileHandle(forWritingTo: over)
        try handle.truncate(atOffset: UInt64(Seed.maximumFileSize + 1))
        try handle.close()
        let error = worldCupError { _ = try Seed.load(from: over) }
        #expect(error?.description.contains("over the 4 MB limit") == true, "\(error?.description ?? "")")
        // At the limit the file is read: spaces, then a list of one team.
        let team = Array(#"[{"teamName": "A", "qualifyingZone": "B", "imageName": "c", "wins": 1}]"#.utf8)
        let atLimit = Data(repeating: 0x20, count: Seed.maximumFileSize - team.count) + Data(team)
        try atLimit.write(to: folder.file("limit.json"))
        #expect(try Seed.load(from: folder.file("limit.json")).count == 1)
    }

    @Test("An endless file stops at the limit", .timeLimit(.minutes(1)))
    func endless() {
        let error = worldCupError { _ = try Seed.load(from: URL(fileURLWithPath: "/dev/zero")) }
        #expect(error?.description == "The seed file /dev/zero is over the 4 MB limit for seed files.")
    }

    @Test("A folder, and a path through a file")
    func notFiles() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        #expect(worldCupError { _ = try Seed.load(from: folder.url) }?.description == "The seed file \(folder.url.path) is a folder, not a file.")
        try Data("x".utf8).write(to: folder.file("file"))
        let through = folder.file("file/seed.json")
        #expect(worldCupError { _ = try Seed.load(from: through) }?.description == "Cannot read the seed file \(through.path): part of the path is not a folder.")
    }

    static let badTeams: [(String, String)] = [
        (#"{"teamName": "A", "qualifyingZone": "B", "imageName": "c", "wins": 1000000001}"#, "more than 1000000000 wins"),
        (#"{"teamName": "A", "qualifyingZone": "B", "imageName": "c\u001B[2J", "wins": 1}"#, "image name in entry 1 of s.json contains control characters"),
        (#"{"teamName": "A", "qualifyingZone": "B", "imageName": "c", "wins": 1.5}"#, "expected a whole number at entry 1, wins"),
        (#"{"teamName": "A", "qualifyingZone": "B", "imageName": "c", "wins": 1e30}"#, "expected a whole number at entry 1, wins"),
        (#"{"teamName": "A", "qualifyingZone": "B", "imageName": "c", "wins": null}"#, "expected a whole number at entry 1, wins"),
        (#"{"teamName": 7, "qualifyingZone": "B", "imageName": "c", "wins": 1}"#, "expected text at entry 1, teamName"),
        (#""Brazil""#, "expected a team with teamName, qualifyingZone, imageName and wins at entry 1"),
        // Found by fuzz-seed: the name was quoted untrimmed, newline and all.
        (#"{"teamName": "\nAtlantis", "qualifyingZone": "B", "imageName": "c", "wins": -1}"#, "The team “Atlantis” in entry 1 of s.json has negative wins."),
    ]

    @Test("Wrong values in a team are named", arguments: badTeams.indices)
    func badTeam(index: Int) {
        let (team, words) = Self.badTeams[index]
        let error = worldCupError { _ = try Seed.decode(Data("[\(team)]".utf8), source: "s.json") }
        #expect(error?.description.contains(words) == true, "\(error?.description ?? "")")
        #expect(isOneSentence(error?.description ?? ""), "\(error?.description ?? "")")
    }

    @Test("Invalid UTF-8 in an unquoted key is an error, not Foundation's trap (found by fuzz-seed)")
    func invalidKey() {
        let error = worldCupError { _ = try Seed.decode(Data([UInt8]("[{".utf8) + [0xFF, 0xFF] + Array("a: 1}]".utf8)), source: "s.json") }
        #expect(error?.description == "The seed file s.json is not valid JSON: expected valid UTF-8 at line 1, column 3.")
    }

    @Test("A malformed hex number is an error, not Foundation's trap (found by fuzz-seed)")
    func malformedHex() {
        let seed = #"[{"teamName": "A", "qualifyingZone": "B", "imageName": "c", "wins": 0x0x3}]"#
        let error = worldCupError { _ = try Seed.decode(Data(seed.utf8), source: "s.json") }
        #expect(error?.description == "The seed file s.json is not valid JSON: expected “,” or “}” at line 1, column 72.")
    }

    @Test("A bad seed leaves an existing database that was never seeded exactly as it was")
    func existingUnseededDatabase() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        do { _ = try SQLiteTeamStore(databaseURL: folder.database, seedURL: nil) }  // closed on release
        let before = try Data(contentsOf: folder.database)
        try Data("[]".utf8).write(to: folder.file("empty.json"))
        _ = worldCupError { _ = try SQLiteTeamStore(databaseURL: folder.database, seedURL: folder.file("empty.json")) }
        #expect(try Data(contentsOf: folder.database) == before)
        #expect(try seededScoreboard(folder).teamCount() == 32)
    }
}

@Suite("Names from outside")
struct NameTests {
    static let sqlLooking = [
        "Robert'); DROP TABLE team;--",
        "\" OR 1=1 --",
        "x' UNION SELECT sqlite_version() --",
        "%_ LIKE %",
        "Team; DELETE FROM team",
    ]

    @Test("Text that looks like SQL is stored, found and deleted verbatim", arguments: sqlLooking)
    func sqlIsText(_ name: String) throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let scoreboard = try seededScoreboard(folder)
        try scoreboard.add(name: name, zone: name)
        #expect(try scoreboard.tap(named: name.uppercased()).wins == 1)
        // Verbatim: the same bytes back, not text equal to it after normalisation.
        let stored = try #require(try scoreboard.teams().first { Array($0.teamName.utf8) == Array(name.utf8) })
        #expect(Array(stored.qualifyingZone.utf8) == Array(name.utf8))
        #expect(try scoreboard.teamCount() == 33)
        try scoreboard.delete(named: name)
        #expect(try scoreboard.teamCount() == 32)
        #expect(try scoreboard.database.read { try $0.tableExists("team") })
    }

    static let refused: [(String, String)] = [
        ("Atlan\u{1B}[31mtis", "control characters"),             // an escape sequence
        ("Atlan\u{9B}31mtis", "control characters"),              // C1 CSI
        ("Atlantis\u{7}", "control characters"),                  // bell, not trimmed
        ("Atlan\ntis", "control characters"),
        ("Atlan\u{2028}tis", "control characters"),               // line separator
        ("Atlan\u{202E}sit", "control characters"),               // right-to-left override
        ("Atlan\u{FFFD}tis", "not valid UTF-8"),                  // what invalid UTF-8 decodes to
        (String(repeating: "x", count: 100_000), "longer than 64 characters"),
        ("Z" + String(repeating: "\u{301}", count: 100_000), "stacks more than 16 marks"),
        ("", "empty"),
        (" \t ", "empty"),
    ]

    @Test("Unsafe names are refused in one sentence, and nothing is stored", arguments: refused.indices)
    func refusedNames(index: Int) throws {
        let (name, words) = Self.refused[index]
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let scoreboard = try seededScoreboard(folder)
        let error = worldCupError { try scoreboard.add(name: name, zone: "Europe") }
        #expect(error?.description.contains(words) == true, "\(error?.description ?? "")")
        #expect(isOneSentence(error?.description ?? ""), "\(error?.description ?? "")")
        #expect(try scoreboard.teamCount() == 32)
        // As a zone too.
        #expect(worldCupError { try scoreboard.add(name: "Atlantis", zone: name) } != nil)
    }

    @Test("Names of emoji, scripts and marks within the limits are kept as typed", arguments: [
        "👨‍👩‍👧‍👦 Family", "🇧🇷🇧🇷", "Ελλάδα", "日本代表", "Côte d’Ivoire", "e\u{301}quipe", "עברית", "👩🏽‍❤️‍💋‍👨🏾",
    ])
    func keptNames(_ name: String) throws {
        try TeamValidation.checkName(name)
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try seededScoreboard(folder)
        let added = try store.add(name: name, zone: name)
        // Byte for byte: the same characters in the same normalisation, as typed.
        #expect(Array(added.teamName.utf8) == Array(name.utf8))
        let read = try #require(try store.team(named: name))
        #expect(Array(read.teamName.utf8) == Array(name.utf8))
        #expect(Array(read.qualifyingZone.utf8) == Array(name.utf8))
    }

    @Test("Unknown names are quoted safely in errors: escapes shown, length cut")
    func quotedInErrors() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let scoreboard = try seededScoreboard(folder)
        let escape = worldCupError { try scoreboard.tap(named: "\u{1B}]0;pwned\u{7}") }
        #expect(escape?.description == "There is no team named “\\u{1B}]0;pwned\\u{7}”.")
        let long = worldCupError { try scoreboard.tap(named: String(repeating: "y", count: 100_000)) }
        #expect(long?.description == "There is no team named “\(String(repeating: "y", count: 80))…”.")
    }

    @Test("quotable() leaves ordinary text alone and escapes what a terminal would obey")
    func quotable() {
        #expect(WorldCupError.quotable("Côte d’Ivoire 👨‍👩‍👧") == "Côte d’Ivoire 👨‍👩‍👧")
        #expect(WorldCupError.quotable("a\u{9B}b\u{2066}c\nd") == "a\\u{9B}b\\u{2066}c\\u{A}d")
        #expect(WorldCupError.quotable("abcdef", limit: 3) == "abc…")
    }
}

@Suite("Database files that are not ours")
struct DatabaseFileTests {
    /// Opens the file as a scoreboard and returns the error, checking that the folder's files
    /// are the same bytes afterwards and that none was added.
    func refusal(of url: URL, in folder: TemporaryFolder) throws -> String {
        func files() throws -> [String: Data] {
            var files: [String: Data] = [:]
            for name in try FileManager.default.contentsOfDirectory(atPath: folder.url.path) {
                files[name] = try Data(contentsOf: folder.file(name))
            }
            return files
        }
        let before = try files()
        let error = worldCupError { _ = try SQLiteTeamStore(databaseURL: url, seedURL: Repository.seed) }
        #expect(try files() == before)
        let message = error?.description ?? ""
        #expect(isOneSentence(message), "\(message)")
        return message
    }

    @Test("A file that is not SQLite")
    func notSQLite() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        try Data(String(repeating: "not a database ", count: 100).utf8).write(to: folder.database)
        #expect(try refusal(of: folder.database, in: folder).contains("is not a SQLite database"))
    }

    @Test("A SQLite database of another program is not migrated into ours")
    func foreign() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let queue = try DatabaseQueue(path: folder.database.path)
        try queue.write { try $0.execute(sql: "CREATE TABLE invoice (id INTEGER PRIMARY KEY)") }
        try queue.close()
        #expect(try refusal(of: folder.database, in: folder).contains("of some other program"))
    }

    @Test("A damaged database: its pages scribbled on, or cut short", arguments: ["scribbled", "cut"])
    func damaged(how: String) throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        // Released, the scoreboard closes its readers, then the writer, which folds the WAL into the file.
        do { _ = try seededScoreboard(folder) }
        #expect(!FileManager.default.fileExists(atPath: folder.database.path + "-wal"))
        var bytes = try Data(contentsOf: folder.database)
        if how == "cut" {
            bytes = bytes.prefix(bytes.count / 2)
        } else {
            for page in 1..<(bytes.count / 4096) { bytes.replaceSubrange(page * 4096 ..< page * 4096 + 64, with: Data(repeating: 0xEE, count: 64)) }
        }
        try bytes.write(to: folder.database)
        let message = try refusal(of: folder.database, in: folder)
        #expect(message.contains("is damaged") && message.contains("worldcup reset"), "\(message)")
    }

    @Test("An empty file is a new database")
    func emptyFile() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        _ = FileManager.default.createFile(atPath: folder.database.path, contents: nil)
        #expect(try seededScoreboard(folder).teamCount() == 32)
    }
}

@Suite("SQLiteTeamStore.reset")
struct ResetTests {
    @Test("Replaces taps and secret teams with the seed, and leaves no file of its own behind")
    func replaces() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let scoreboard = try seededScoreboard(folder)
        try scoreboard.tap(named: "Brazil")
        try scoreboard.add(name: "Atlantis", zone: "Oceania")
        try scoreboard.database.close()
        #expect(try SQLiteTeamStore.reset(databaseURL: folder.database, seedURL: Repository.seed) == 32)
        let fresh = try SQLiteTeamStore(databaseURL: folder.database, seedURL: nil)
        #expect(try fresh.teamCount() == 32)
        #expect(try fresh.team(named: "Brazil")?.wins == 0)
        try fresh.database.close()
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.url.path)
        #expect(names.allSatisfy { $0.hasPrefix("WorldCup.sqlite") }, "\(names)")
    }

    @Test("Removes the old file's stale -wal and -shm before the new file takes its place")
    func staleSideFiles() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        try Data("garbage".utf8).write(to: folder.database)
        try Data(repeating: 0x37, count: 8192).write(to: URL(fileURLWithPath: folder.database.path + "-wal"))
        try Data(repeating: 0x18, count: 32768).write(to: URL(fileURLWithPath: folder.database.path + "-shm"))
        try SQLiteTeamStore.reset(databaseURL: folder.database, seedURL: Repository.seed)
        #expect(!FileManager.default.fileExists(atPath: folder.database.path + "-wal"))
        #expect(try SQLiteTeamStore(databaseURL: folder.database, seedURL: nil).teamCount() == 32)
    }

    @Test("A bad seed changes nothing")
    func badSeed() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        try Data("garbage".utf8).write(to: folder.database)
        try Data("[]".utf8).write(to: folder.file("empty.json"))
        _ = worldCupError { try SQLiteTeamStore.reset(databaseURL: folder.database, seedURL: folder.file("empty.json")) }
        #expect(try Data(contentsOf: folder.database) == Data("garbage".utf8))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path).sorted() == ["WorldCup.sqlite", "empty.json"])
    }
}
