import Foundation
import Testing
import TestSupport

/// A mistyped `--database` path: only the board makes a new file; every other command refuses
/// it in one sentence naming the board command that makes one, and makes nothing.
@Suite("A --database file that does not exist")
struct MissingDatabaseTests {
    static let commands: [[String]] = [
        ["list"], ["tap", "Ghana"], ["add", "Atlantis", "--zone", "Oceania"], ["delete", "Ghana"],
        ["edit", "Ghana", "--wins", "3"], ["zones"], ["zone", "rename", "Africa", "CAF"], ["undo"],
        ["redo", "1"], ["history"], ["export"], ["reset", "--yes"],
    ]

    @Test("Every command but the board refuses it and makes nothing", arguments: commands)
    func refused(command: [String]) throws {
        let folder = try TemporaryFolder(prefix: "worldcup-e2e")
        defer { folder.remove() }
        let typo = folder.file("typo board.sqlite").path
        let result = try Executable.run(command + ["--database", typo])
        #expect(result.status != 0, "\(command) answered: \(result.out)")
        #expect(result.err == "Error: There is no database at “\(typo)”; worldcup --database '\(typo)' opens a new board there.\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path).isEmpty)
    }

    @Test("The board makes and seeds it, and the commands then find it")
    func theBoardMakesIt() throws {
        let folder = try TemporaryFolder(prefix: "worldcup-e2e")
        defer { folder.remove() }
        let path = folder.file("new.sqlite").path
        let board = try TmuxTerminal(command: [Executable.worldcup.path, "--database", path])
        #expect(board.waitFor("32 teams"))
        try board.send("q")
        #expect(board.waitFor("[exited 0]"))
        let tap = try Executable.run(["tap", "ghana", "--database", path])
        #expect(tap.status == 0 && tap.out == "Ghana: 1 win\n", "\(tap.err)")
    }
}
