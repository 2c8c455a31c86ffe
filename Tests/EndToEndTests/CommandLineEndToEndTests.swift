import Foundation
import Testing
import TestSupport

/// The built binary's commands, as a shell runs them.
@Suite("The command line: --version and list --json")
struct CommandLineEndToEndTests {
    @Test("--version prints the version and exits 0, touching no database")
    func version() throws {
        let result = try Executable.run(["--version"])
        #expect(result.status == 0, "\(result.err)")
        let printed = result.out.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(printed.split(separator: ".").count == 3 && printed.split(separator: ".").allSatisfy { Int($0) != nil }, "“\(printed)”")
    }

    @Test("list --json prints each team's keys in one sorted order, the same on every run")
    func jsonKeysSorted() throws {
        let database = temporaryDatabase()
        let first = try Executable.run(["list", "--json", "--database", database])
        try #require(first.status == 0, "\(first.err)")
        let keyLines = first.out.split(separator: "\n").filter { $0.contains("\" : ") }.map { $0.trimmingCharacters(in: .whitespaces) }
        let keys = keyLines.prefix(4).map { String($0.prefix { $0 != ":" }).trimmingCharacters(in: .whitespaces) }
        #expect(keys == ["\"imageName\"", "\"qualifyingZone\"", "\"teamName\"", "\"wins\""])
        for _ in 0..<3 {
            let again = try Executable.run(["list", "--json", "--database", database])
            #expect(again.out == first.out)
        }
    }
}
