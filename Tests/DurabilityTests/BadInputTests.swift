import Foundation
import GRDB
import Glibc
import Testing
import TestSupport

/// Bad seeds and bad database paths, through the real binary: each gets one sentence on
/// stderr and a non-zero exit, and every file is left exactly as it was.
@Suite("Bad input through the binary")
struct BadInputTests {
    /// A bad input: it prepares files in a folder and returns extra arguments for the command.
    struct Case: CustomTestStringConvertible, Sendable {
        var label: String
        /// Words the error must contain.
        var mentions: [String] = []
        var prepare: @Sendable (TemporaryFolder) throws -> [String]
        var testDescription: String { label }
    }

    /// Writes `text` to a file in the folder and returns its path.
    static func write(_ text: String, to name: String, in folder: TemporaryFolder) throws -> String {
        try Data(text.utf8).write(to: folder.file(name))
        return folder.file(name).path
    }

    /// The repository's seed with one more entry.
    static func seed(adding entry: String) -> String {
        let seed = try! String(contentsOf: Repository.seed, encoding: .utf8)
        let end = seed.range(of: "]", options: .backwards)!.lowerBound
        return seed[..<end].trimmingCharacters(in: .whitespacesAndNewlines) + ",\n    " + entry + "\n]\n"
    }

    static let seedCases: [Case] = [
        Case(label: "missing seed", mentions: ["does not exist"]) { [$0.file("none.json").path] },
        Case(label: "seed is a folder", mentions: ["folder"]) { folder in
            try FileManager.default.createDirectory(at: folder.file("seed.d"), withIntermediateDirectories: false)
            return [folder.file("seed.d").path]
        },
        Case(label: "not JSON", mentions: ["expected a value at line 3, column 13"]) {
            [try write("[\n  {\"teamName\": \"Brazil\",\n    \"wins\": tru }\n]\n", to: "seed.json", in: $0)]
        },
        Case(label: "invalid UTF-8", mentions: ["UTF-8", "line 1, column 17"]) { folder in
            try Data([UInt8]("[{\"teamName\": \"B".utf8) + [0xFF] + [UInt8]("\"}]".utf8)).write(to: folder.file("seed.json"))
            return [folder.file("seed.json").path]
        },
        Case(label: "wrong type", mentions: ["whole number", "entry 33"]) {
            [try write(seed(adding: #"{"teamName": "Atlantis", "qualifyingZone": "Europe", "imageName": "x", "wins": "3"}"#), to: "seed.json", in: $0)]
        },
        Case(label: "missing field", mentions: ["imageName", "entry 33"]) {
            [try write(seed(adding: #"{"teamName": "Atlantis", "qualifyingZone": "Europe", "wins": 3}"#), to: "seed.json", in: $0)]
        },
        Case(label: "negative wins", mentions: ["negative", "entry 33"]) {
            [try write(seed(adding: #"{"teamName": "Atlantis", "qualifyingZone": "Europe", "imageName": "x", "wins": -1}"#), to: "seed.json", in: $0)]
        },
        Case(label: "duplicate name, other case", mentions: ["twice"]) {
            [try write(seed(adding: #"{"teamName": "BRAZIL", "qualifyingZone": "Europe", "imageName": "x", "wins": 0}"#), to: "seed.json", in: $0)]
        },
        Case(label: "duplicate name, other normalisation", mentions: ["twice"]) {
            // "Curaçao" precomposed, then with c and a combining cedilla.
            let teams = ["Cura\u{E7}ao", "Cura\u{63}\u{327}ao"].map { #"{"teamName": "\#($0)", "qualifyingZone": "North", "imageName": "x", "wins": 0}"# }
            return [try write("[" + teams.joined(separator: ",") + "]", to: "seed.json", in: $0)]
        },
        Case(label: "control character in a name", mentions: ["control"]) {
            [try write(seed(adding: #"{"teamName": "Atlan\u001B[31mtis", "qualifyingZone": "Europe", "imageName": "x", "wins": 0}"#), to: "seed.json", in: $0)]
        },
        Case(label: "empty array", mentions: ["no teams"]) { [try write("[]", to: "seed.json", in: $0)] },
        Case(label: "50 MB file", mentions: ["50 MB", "limit"]) { folder in
            // Sparse: 50 MB long without 50 MB on disk.
            let url = folder.file("big.json")
            try Data("[".utf8).write(to: url)
            let handle = try FileHandle(forWritingTo: url)
            try handle.truncate(atOffset: 50 << 20)
            try handle.close()
            return [url.path]
        },
    ]

    @Test("A bad seed and no database: an error, and no database is created", arguments: seedCases)
    func badSeedWithoutDatabase(_ bad: Case) throws {
        let folder = try TemporaryFolder(prefix: "DurabilityTests")
        defer { folder.remove() }
        let seed = try bad.prepare(folder)
        let before = folder.snapshot()
        for command in [["list"], ["tap", "Brazil"], ["reset", "--yes"]] {
            let result = try Executable.run(command + ["--database", folder.file("db/WorldCup.sqlite").path, "--seed"] + seed)
            expectError(result, mentions: bad.mentions, "\(bad.label), \(command[0])")
            #expect(folder.snapshot() == before, "\(bad.label), \(command[0]): files changed")
        }
    }

    @Test("A bad seed beside an existing database: an error, and the database is byte for byte the same", arguments: seedCases)
    func badSeedWithDatabase(_ bad: Case) throws {
        let folder = try TemporaryFolder(prefix: "DurabilityTests")
        defer { folder.remove() }
        let database = emptyFile(folder.database).path
        #expect(try Executable.run(["tap", "Brazil", "--database", database]).status == 0)
        let seed = try bad.prepare(folder)
        let before = folder.snapshot()
        for command in [["list"], ["tap", "Brazil"], ["reset", "--yes"]] {
            let result = try Executable.run(command + ["--database", database, "--seed"] + seed)
            expectError(result, mentions: bad.mentions, "\(bad.label), \(command[0])")
            #expect(folder.snapshot() == before, "\(bad.label), \(command[0]): files changed")
        }
    }

    @Test("A seed file nobody may read", .disabled(if: isRoot, "root reads files whatever their mode"))
    func unreadableSeed() throws {
        let folder = try TemporaryFolder(prefix: "DurabilityTests")
        defer { folder.remove() }
        let seed = folder.file("seed.json")
        try FileManager.default.copyItem(at: Repository.seed, to: seed)
        chmod(seed.path, 0)
        let before = folder.snapshot()
        let result = try Executable.run(["list", "--database", folder.database.path, "--seed", seed.path])
        expectError(result, mentions: ["permission denied"], "unreadable seed")
        #expect(folder.snapshot() == before)
    }

    /// A seeded database, made by the binary, at `name` in the folder.
    static func seededDatabase(_ name: String, in folder: TemporaryFolder) throws -> URL {
        let url = emptyFile(folder.file(name))
        let made = try Executable.run(["list", "--database", url.path])
        #expect(made.status == 0, "\(made.err)")
        return url
    }

    static let databaseCases: [Case] = [
        Case(label: "database path is a folder", mentions: ["folder"]) { folder in
            try FileManager.default.createDirectory(at: folder.file("db.sqlite"), withIntermediateDirectories: false)
            return [folder.file("db.sqlite").path]
        },
        Case(label: "parent is a file", mentions: ["not a folder"]) { folder in
            _ = try write("just text", to: "notes.txt", in: folder)
            return [folder.file("notes.txt/WorldCup.sqlite").path]
        },
        Case(label: "parent does not exist", mentions: ["does not exist", "mkdir -p /proc/self/worldcup-test"]) { _ in
            ["/proc/self/worldcup-test/WorldCup.sqlite"]
        },
        Case(label: "not SQLite", mentions: ["not a SQLite database", "worldcup reset"]) {
            [try write("Dear diary, today the database was a letter.\n", to: "WorldCup.sqlite", in: $0)]
        },
        Case(label: "truncated database", mentions: ["damaged", "worldcup reset"]) { folder in
            let url = try seededDatabase("WorldCup.sqlite", in: folder)
            let bytes = try Data(contentsOf: url)
            try bytes.prefix(bytes.count / 2).write(to: url)
            return [url.path]
        },
        Case(label: "corrupt database", mentions: ["damaged", "worldcup reset"]) { folder in
            let url = try seededDatabase("WorldCup.sqlite", in: folder)
            var bytes = try Data(contentsOf: url)
            // Scribble over the second page: the root of the first table.
            bytes.replaceSubrange(4096 + 8 ..< 4096 + 1024, with: Data(repeating: 0xA5, count: 1016))
            try bytes.write(to: url)
            return [url.path]
        },
        Case(label: "its last page missing", mentions: ["damaged", "shorter than its header says", "worldcup reset"]) { folder in
            let url = try seededDatabase("WorldCup.sqlite", in: folder)
            let bytes = try Data(contentsOf: url)
            try bytes.prefix(bytes.count - 4096).write(to: url)
            return [url.path]
        },
        Case(label: "nothing but the header", mentions: ["damaged", "cut short", "worldcup reset"]) { folder in
            let url = try seededDatabase("WorldCup.sqlite", in: folder)
            try Data(contentsOf: url).prefix(100).write(to: url)
            return [url.path]
        },
        Case(label: "an impossible page size in the header", mentions: ["damaged", "page size", "worldcup reset"]) { folder in
            let url = try seededDatabase("WorldCup.sqlite", in: folder)
            var bytes = try Data(contentsOf: url)
            bytes.replaceSubrange(16..<18, with: [0x10, 0x01])
            try bytes.write(to: url)
            return [url.path]
        },
        Case(label: "a SQLite database of another program", mentions: ["other program"]) { folder in
            let url = folder.file("notes.sqlite")
            let queue = try DatabaseQueue(path: url.path)
            try queue.write { try $0.execute(sql: "CREATE TABLE note (id INTEGER PRIMARY KEY, text TEXT); INSERT INTO note (text) VALUES ('keep me')") }
            try queue.close()
            return [url.path]
        },
    ]

    @Test("A bad database path: an error, and the file is byte for byte the same", arguments: databaseCases)
    func badDatabase(_ bad: Case) throws {
        let folder = try TemporaryFolder(prefix: "DurabilityTests")
        defer { folder.remove() }
        let database = try bad.prepare(folder)
        let before = folder.snapshot()
        for command in [["list"], ["tap", "Brazil"], ["add", "Atlantis", "--zone", "Oceania"], ["delete", "Brazil"]] {
            let result = try Executable.run(command + ["--database"] + database)
            expectError(result, mentions: bad.mentions, "\(bad.label), \(command[0])")
            #expect(folder.snapshot() == before, "\(bad.label), \(command[0]): files changed")
        }
    }

    @Test("Names with escape sequences put in the file by other means are printed escaped, never raw")
    func escapesFromTheFile() throws {
        let folder = try TemporaryFolder(prefix: "DurabilityTests")
        defer { folder.remove() }
        let database = try Self.seededDatabase("WorldCup.sqlite", in: folder)
        let queue = try DatabaseQueue(path: database.path)
        try queue.write { db in
            try db.execute(sql: "UPDATE zone SET name = 'South' || char(155) || '2J' WHERE id = (SELECT zoneID FROM team WHERE teamName = 'Brazil')")
            try db.execute(sql: "UPDATE team SET teamName = 'Bra' || char(27) || ']0;pwned' || char(7) || 'zil' WHERE teamName = 'Brazil'")
        }
        try queue.close()
        for command in [["list"], ["tap", "Brazil"], ["delete", "Brazil"]] {
            let result = try Executable.run(command + ["--database", database.path])
            #expect(result.status == 0, "\(result.err)")
            #expect(!result.out.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 || $0.value == 0x9B }, "\(command[0]): \(result.out)")
            #expect(result.out.contains("Bra\\u{1B}]0;pwned\\u{7}zil"), "\(command[0]): \(result.out)")
        }
    }

    @Test("A read-only folder", .disabled(if: isRoot, "root writes anywhere"))
    func readOnlyFolder() throws {
        let folder = try TemporaryFolder(prefix: "DurabilityTests")
        defer { folder.remove() }
        let locked = folder.file("locked")
        try FileManager.default.createDirectory(at: locked, withIntermediateDirectories: false)
        chmod(locked.path, 0o555)
        let result = try Executable.run(["list", "--database", locked.appendingPathComponent("WorldCup.sqlite").path])
        expectError(result, mentions: ["permission denied"], "read-only folder")
        #expect(try FileManager.default.contentsOfDirectory(atPath: locked.path).isEmpty)
    }
}

/// Expects a failure: a non-zero status, nothing on stdout, one sentence on stderr that
/// contains every word of `mentions`.
func expectError(_ result: (status: Int32, out: String, err: String), mentions: [String], _ label: String, sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(result.status != 0, "\(label): exit status 0", sourceLocation: sourceLocation)
    #expect(result.out.isEmpty, "\(label): stdout \(result.out)", sourceLocation: sourceLocation)
    #expect(isOneSentenceError(result.err), "\(label): \(result.err)", sourceLocation: sourceLocation)
    for word in mentions {
        #expect(result.err.contains(word), "\(label): “\(word)” missing from \(result.err)", sourceLocation: sourceLocation)
    }
}
