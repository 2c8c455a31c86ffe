import Foundation
import Glibc
@testable import PostgresURLs
import Testing
import TestSupport
@testable import WorldCup
@testable import WorldCupPostgres

/// Every command a sentence suggests (`mkdir -p`, `chmod 600`, `createdb`) pastes into a POSIX
/// shell as it is: its arguments quoted for the shell ('…' where needed), never with
/// typographic quotes, which a shell keeps as part of a name.
@Suite struct SuggestedCommandsTests {
    /// The commands sentences suggest, by the words they start with.
    static let commands = ["mkdir -p", "chmod 600", "createdb"]

    /// A path a shell must be careful with: a space, a quote, an accent.
    static func awkwardFolder() throws -> TemporaryFolder {
        let folder = try TemporaryFolder(prefix: "worldcup it's a café")
        return folder
    }

    /// The words a POSIX shell reads in `command` after its first `skip` words: the command
    /// run by /bin/sh with its program replaced by printf, one word a line.
    static func wordsAsTheShellReadsThem(_ command: String, skip: Int) throws -> [String] {
        let words = command.split(separator: " ", maxSplits: skip, omittingEmptySubsequences: false)
        let rest = try #require(words.count > skip ? String(words[skip]) : nil)
        let result = try Executable.run(["-c", "printf '%s\\n' " + rest], executable: URL(fileURLWithPath: "/bin/sh"))
        #expect(result.status == 0, "\(result.err)")
        return result.out.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
    }

    /// The command a sentence suggests: from its first word to the end of the command (a
    /// sentence goes on after a comma, a closing parenthesis, " if" or a final full stop).
    static func suggestedCommand(in sentence: String, startingWith start: String) throws -> String {
        let from = try #require(sentence.range(of: start), "“\(sentence)” suggests no \(start)")
        var command = String(sentence[from.lowerBound...])
        for end in [" if ", ", as ", "), ", ")"] {
            if let range = command.range(of: end) { command = String(command[..<range.lowerBound]) }
        }
        if command.hasSuffix(".") { command.removeLast() }
        return command
    }

    @Test("mkdir -p, for a folder that does not exist: the shell reads back the folder")
    func mkdir() throws {
        let folder = try Self.awkwardFolder()
        defer { folder.remove() }
        let missing = folder.url.appendingPathComponent("boards/it's mine").path
        let result = try Executable.run(["list", "--database", missing + "/x.sqlite"])
        let command = try Self.suggestedCommand(in: result.err, startingWith: "mkdir -p")
        #expect(!command.contains("“") && !command.contains("”"), "\(command)")
        #expect(try Self.wordsAsTheShellReadsThem(command, skip: 2) == [missing], "\(command)")
    }

    @Test("chmod 600, for a password file and a client key others may read")
    func chmod() throws {
        let folder = try Self.awkwardFolder()
        defer { folder.remove() }
        let file = folder.file("pass file \"quoted\"").path
        try "*:*:*:*:secret\n".write(toFile: file, atomically: true, encoding: .utf8)
        Glibc.chmod(file, 0o644)
        let warning = try #require(PasswordFile(path: file).password(host: "h", port: 5432, database: "d", user: "u").warning.map(WorldCupError.sentence(for:)))
        let key = WorldCupError(try #require(throws: PostgresSettingsError.self) { try PostgresTLS.checkPrivate(file) })
        for sentence in [warning, key.description] {
            let command = try Self.suggestedCommand(in: sentence, startingWith: "chmod 600")
            #expect(!command.contains("“") && !command.contains("”"), "\(command)")
            #expect(try Self.wordsAsTheShellReadsThem(command, skip: 2) == [file], "\(command)")
            #expect(sentence.contains("“\(file)”"), "the name in the prose keeps its quotes: \(sentence)")
        }
    }

    @Test("createdb, for a database that is missing or belongs to the server")
    func createdb() throws {
        let location = try PostgresLocation(url: "postgres://o'brien@db.example:5433/no%20such", environment: [:])
        let command = location.createdbCommand("my board")
        #expect(try Self.wordsAsTheShellReadsThem(command, skip: 1) == ["-h", "db.example", "-p", "5433", "-U", "o'brien", "my board"], "\(command)")
        for sentence in [location.missingDatabase.description, try PostgresLocation(url: "postgres://o'brien@db.example/postgres", environment: [:]).serversOwnDatabaseRefusal.description] {
            let suggested = try Self.suggestedCommand(in: sentence, startingWith: "createdb")
            #expect(!suggested.contains("“"), "\(sentence)")
            #expect(try Self.wordsAsTheShellReadsThem(suggested, skip: 1).contains("o'brien"), "\(sentence)")
        }
    }

    @Test("Every sentence of the sources that suggests a command quotes it for a shell")
    func everySuggestionInTheSources() throws {
        let sources = Repository.root.appendingPathComponent("Sources")
        let files = try #require(FileManager.default.enumerator(atPath: sources.path)).compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }
        var suggestions = 0
        for file in files {
            let text = try String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8)
            for line in text.split(separator: "\n") where !line.trimmingCharacters(in: .whitespaces).hasPrefix("//") {
                for command in Self.commands where line.contains("\"") && line.contains(command + " ") || line.contains("\"\(command)\"") {
                    suggestions += 1
                    // The command's arguments come from the shell quoting, never from a name in quotes.
                    #expect(line.contains("shellCommand(") || line.contains("createdbCommand(") || line.contains("shellQuoted("),
                            "\(file): a suggested \(command) not quoted for a shell:\n\(line)")
                    #expect(!line.contains("\(command) “"), "\(file): typographic quotes in a command:\n\(line)")
                }
            }
        }
        #expect(suggestions >= 4, "the sentences that suggest mkdir, chmod and createdb were found")
    }
}
