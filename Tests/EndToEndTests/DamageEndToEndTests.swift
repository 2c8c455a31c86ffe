import Foundation
import GRDB
import Testing
import TestSupport

/// A database file damaged while, or before, the scoreboard shows it: the program ends with
/// one sentence, and the terminal is restored.
@Suite(.serialized)
struct DamageEndToEndTests {
    /// The offset and size of the root page of a table, found through SQLite.
    func rootPage(of table: String, in database: String) throws -> (offset: UInt64, size: Int) {
        let queue = try DatabaseQueue(path: database)
        defer { try? queue.close() }
        return try queue.read { db in
            let root = try #require(try Int.fetchOne(db, sql: "SELECT rootpage FROM sqlite_master WHERE name = ?", arguments: [table]))
            let size = try #require(try Int.fetchOne(db, sql: "PRAGMA page_size"))
            return (UInt64((root - 1) * size), size)
        }
    }

    @Test func damageFoundWhileTheBoardRunsEndsItInOneSentence() throws {
        let database = temporaryDatabase()
        let seeded = try Executable.run(["list", "--database", database])
        try #require(seeded.status == 0, "\(seeded.err)")
        let teams = try rootPage(of: "team", in: database)
        let terminal = try TmuxTerminal(command: [Executable.worldcup.path, "--database", database])
        try #require(terminal.waitFor("32 teams"))

        // Under the running board: the log folded into the file, the team table's page
        // scribbled on there, then a commit elsewhere, so that the board's connections drop
        // the pages they hold and read the file again.
        let queue = try DatabaseQueue(path: database)
        try queue.writeWithoutTransaction { _ = try $0.checkpoint(.truncate) }
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: database))
        try handle.seek(toOffset: teams.offset)
        try handle.write(contentsOf: Data(repeating: 0xA5, count: teams.size))
        try handle.close()
        try queue.write { try $0.execute(sql: "PRAGMA user_version = 7") }
        try queue.close()

        // A tap meets the damage.
        try terminal.send("Enter")
        try #require(terminal.waitFor("[exited 1]"))
        #expect(!terminal.inAlternateScreen, "the terminal must be restored")
        // The sentence, wrapped by the terminal: joined again (-J).
        let text = try terminal.tmux(["capture-pane", "-p", "-J", "-t", "0"])
        #expect(text.contains("Error: The database is damaged (database disk image is malformed)"), "\(terminal.screen)")
        #expect(!terminal.screen.contains("Fatal error") && !terminal.screen.contains("Stack dump"), "\(terminal.screen)")
        #expect(!terminal.screen.contains("32 teams"), "no frame of the board is left on the restored screen:\n\(terminal.screen)")
    }

    @Test func aDamagedFileIsRefusedBeforeTheBoardOpens() throws {
        let database = temporaryDatabase()
        let seeded = try Executable.run(["list", "--database", database])
        try #require(seeded.status == 0, "\(seeded.err)")
        let bytes = try Data(contentsOf: URL(fileURLWithPath: database))
        try bytes.prefix(bytes.count - 4096).write(to: URL(fileURLWithPath: database))
        let terminal = try TmuxTerminal(command: [Executable.worldcup.path, "--database", database])
        try #require(terminal.waitFor("[exited 1]"))
        let text = try terminal.tmux(["capture-pane", "-p", "-J", "-t", "0"])
        #expect(text.contains("is damaged (it is shorter than its header says"), "\(terminal.screen)")
        #expect(!terminal.inAlternateScreen)
    }
}
