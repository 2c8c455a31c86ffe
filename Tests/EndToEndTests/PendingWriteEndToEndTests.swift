import Foundation
import GRDB
import Testing
import TestSupport

/// A write that waits, through the built binary in a real terminal: the board goes on
/// meanwhile (it scrolls, filters and says the change is being saved), and shows the outcome
/// once the write gets through.
@Suite("Writes off the board's loop, end to end", .serialized)
struct PendingWriteEndToEndTests {
    @Test("Taps while another program holds the file locked: the board scrolls and filters, says Ghana is being saved, queues a second tap, then shows both")
    func lockedFile() throws {
        let database = temporaryDatabase()
        let board = try TmuxTerminal(command: [Executable.worldcup.path, "--database", database], width: 100, height: 40)
        try #require(board.waitFor("32 teams"))
        try board.send("Down", "Down")
        try #require(board.waitForCursor(on: "Ghana"))
        // Another connection takes the file's write lock, as a `sqlite3` shell's BEGIN EXCLUSIVE does.
        var configuration = Configuration()
        configuration.allowsUnsafeTransactions = true // a transaction left open across accesses
        let other = try DatabaseQueue(path: database, configuration: configuration)
        try other.inDatabase { try $0.execute(sql: "BEGIN EXCLUSIVE") }
        var locked = true
        defer { if locked { try? other.inDatabase { try $0.execute(sql: "ROLLBACK") } } }
        // Well within the file's busy timeout (10 s), after which a write that waited on the loop gave up.
        try board.send("Enter")
        #expect(board.waitFor("Saving Ghana…", seconds: 2), "the board says the tap is being saved")
        #expect(board.line(containing: "Ghana")?.contains("saving…") == true, "\(board.screen)")
        try board.send("Down")
        #expect(board.waitForCursor(on: "Ivory Coast", seconds: 1), "the board scrolls while the tap waits")
        try board.send("/")
        try board.send("nig", literal: true)
        #expect(board.waitFor("/nig: 1 match", seconds: 1), "the board filters while the tap waits")
        try board.send("Escape")
        #expect(board.waitFor("32 teams", seconds: 1))
        try board.send("Up")
        #expect(board.waitForCursor(on: "Ghana", seconds: 1))
        // A second tap of Ghana queues behind the first, and its row shows both at once.
        try board.send("Enter")
        let both = waitUntil(seconds: 1) { board.line(containing: "Ghana")?.contains("saving…  Wins: 2") == true }
        #expect(both, "the row shows both taps at once:\n\(board.screen)")
        try other.inDatabase { try $0.execute(sql: "COMMIT") }
        locked = false
        #expect(board.waitFor("Ghana: 2 wins."), "the taps' outcomes arrive once the lock goes")
        #expect(!board.screen.contains("saving…"))
        let listed = try Executable.run(["list", "--json", "--database", database])
        let teams = try JSONSerialization.jsonObject(with: Data(listed.out.utf8)) as! [[String: Any]]
        #expect(teams.first { $0["teamName"] as? String == "Ghana" }?["wins"] as? Int == 2, "both taps counted")
    }

    @Test("Enter then q at once: the tap is saved before the board ends")
    func tapThenQuit() throws {
        let database = temporaryDatabase()
        let board = try TmuxTerminal(command: [Executable.worldcup.path, "--database", database], width: 100, height: 40)
        try #require(board.waitFor("32 teams"))
        try board.send("Enter", "q")
        try #require(board.waitFor("[exited 0]"))
        let listed = try Executable.run(["list", "--json", "--database", database])
        let teams = try JSONSerialization.jsonObject(with: Data(listed.out.utf8)) as! [[String: Any]]
        #expect(teams.first { $0["teamName"] as? String == "Algeria" }?["wins"] as? Int == 1)
    }

    @Test("A tap while the PostgreSQL server does not answer (the network to it frozen): the board scrolls and says Ghana is being saved, then shows the tap")
    func frozenServer() throws {
        let server = try SharedServer()
        let relay = try TCPRelay(upstream: server.relayUpstream)
        defer { relay.kill() }
        let board = try TmuxTerminal(command: server.board(port: relay.port), width: 100, height: 40)
        try #require(board.waitFor("32 teams"))
        try board.send("Down", "Down")
        try #require(board.waitForCursor(on: "Ghana"))
        relay.signal(SIGSTOP)
        var frozen = true
        defer { if frozen { relay.signal(SIGCONT) } }
        try board.send("Enter")
        #expect(board.waitFor("Saving Ghana…", seconds: 2), "the board says the tap is being saved")
        try board.send("Down")
        #expect(board.waitForCursor(on: "Ivory Coast", seconds: 2), "the board scrolls while the tap waits")
        // The filter's names come from the server: the filter opens and takes keys, and
        // applies when they are in.
        try board.send("/")
        try board.send("nig", literal: true)
        #expect(board.waitFor("/nig", seconds: 1), "the filter takes keys while the tap waits")
        try board.send("Enter")
        relay.signal(SIGCONT)
        frozen = false
        #expect(board.waitFor("Ghana: 1 win."), "the tap's outcome arrives once the server answers")
        #expect(board.waitFor("/nig: 1 match"), "the filter applies once the names are in")
        #expect(try server.wins()["Ghana"] == 1)
    }
}
