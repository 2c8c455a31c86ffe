import Foundation
import Testing
import TestSupport

/// Two processes on one database: a scoreboard on screen, and commands run beside it.
@Suite("Live across processes", .serialized)
struct LiveAcrossProcessesTests {
    /// How long after the command's commit the scoreboard must show it.
    static let budget: TimeInterval = 0.25

    /// Runs `worldcup` with `arguments` and returns how long after it exited `condition` held
    /// on the screen (nil if it never did within 5 s).
    func latency(_ terminal: TmuxTerminal, _ arguments: [String], until condition: (String) -> Bool) throws -> TimeInterval? {
        let result = try Executable.run(arguments)
        #expect(result.status == 0, "\(arguments): \(result.err)")
        let committed = Date()
        while Date().timeIntervalSince(committed) < 5 {
            if condition(terminal.screen) { return Date().timeIntervalSince(committed) }
        }
        return nil
    }

    @Test("worldcup tap, add and delete from another process show on an open scoreboard within 250 ms")
    func commandsShowLive() throws {
        let database = temporaryDatabase()
        let cache = URL(fileURLWithPath: database).deletingLastPathComponent().appendingPathComponent("cache").path
        let terminal = try TmuxTerminal(command: ["env", "XDG_CACHE_HOME=\(cache)", Executable.worldcup.path, "--database", database], width: 100, height: 40)
        #expect(terminal.waitFor("32 teams"))
        // The cursor starts on Algeria, the first team of Africa; Ghana is below it.
        let before = terminal.screen.split(separator: "\n").map(String.init)
        #expect((before.firstIndex { $0.contains("Algeria") } ?? .max) < (before.firstIndex { $0.contains("Ghana") } ?? 0))

        var latencies: [TimeInterval] = []
        // A tap moves Ghana above Algeria, with one win.
        let tapped = try latency(terminal, ["tap", "Ghana", "--database", database]) { screen in
            let lines = screen.split(separator: "\n")
            // Rows, not the title's leader: the lines with a win count.
            guard let ghana = lines.firstIndex(where: { $0.contains("Ghana") && $0.contains("Wins:") }),
                  let algeria = lines.firstIndex(where: { $0.contains("Algeria") && $0.contains("Wins:") }) else { return false }
            return ghana < algeria && lines[ghana].contains("Wins: 1")
        }
        #expect(tapped != nil, "the tap never showed:\n\(terminal.screen)")
        latencies.append(tapped ?? .infinity)
        #expect(terminal.screen.contains("Leader: Ghana"))
        // The status line says briefly who made the change, and what it was.
        #expect(terminal.waitFor(": Ghana +1 win."))

        // An add in a new zone appears as a new section.
        let added = try latency(terminal, ["add", "Atlantis", "--zone", "Atlantic", "--database", database]) { screen in
            screen.contains("33 teams") && screen.contains(" Atlantic")
        }
        #expect(added != nil, "the add never showed:\n\(terminal.screen)")
        latencies.append(added ?? .infinity)

        // A delete takes the team and its section away.
        let deleted = try latency(terminal, ["delete", "Atlantis", "--database", database]) { screen in
            screen.contains("32 teams") && !screen.contains("Atlantis")
        }
        #expect(deleted != nil, "the delete never showed:\n\(terminal.screen)")
        latencies.append(deleted ?? .infinity)

        // The budget holds for the typical change (the median), so one hiccup of a loaded
        // machine does not fail the test; a missing or slow live path fails it every time.
        let median = latencies.sorted()[1]
        #expect(median <= Self.budget, "changes showed after \(latencies.map { String(format: "%.0f ms", $0 * 1000) })")

        try terminal.send("q")
        #expect(terminal.waitFor("[exited 0]"))
    }

    @Test("An idle scoreboard uses under 1% of a core")
    func idle() throws {
        let database = temporaryDatabase()
        let cache = URL(fileURLWithPath: database).deletingLastPathComponent().appendingPathComponent("cache").path
        let terminal = try TmuxTerminal(command: ["env", "XDG_CACHE_HOME=\(cache)", Executable.worldcup.path, "--database", database])
        #expect(terminal.waitFor("32 teams"))
        // The pane runs a shell, whose child is the scoreboard.
        let shell = try terminal.tmux(["display-message", "-p", "-t", "0", "#{pane_pid}"]).trimmingCharacters(in: .whitespacesAndNewlines)
        let children = try String(contentsOfFile: "/proc/\(shell)/task/\(shell)/children", encoding: .utf8)
        let app = try #require(children.split(separator: " ").first.map(String.init))
        /// User and system CPU time of the app so far, in clock ticks (100 a second).
        func ticks() throws -> Int {
            let stat = try String(contentsOfFile: "/proc/\(app)/stat", encoding: .utf8)
            let fields = stat[stat.index(after: stat.lastIndex(of: ")")!)...].split(separator: " ")
            return Int(fields[11])! + Int(fields[12])! // utime and stime (fields 14 and 15)
        }
        Thread.sleep(forTimeInterval: 1)
        let before = try ticks()
        Thread.sleep(forTimeInterval: 5)
        let used = try ticks() - before
        // 1% of a core for 5 s is 5 ticks.
        #expect(used <= 5, "the idle scoreboard used \(used) ticks (1/100 s) of CPU in 5 s")
        try terminal.send("q")
        #expect(terminal.waitFor("[exited 0]"))
    }

    @Test("Two scoreboards on one database: a tap in one moves the row in the other")
    func twoScoreboards() throws {
        let database = temporaryDatabase()
        let cache = URL(fileURLWithPath: database).deletingLastPathComponent().appendingPathComponent("cache").path
        let command = ["env", "XDG_CACHE_HOME=\(cache)", Executable.worldcup.path, "--database", database]
        let first = try TmuxTerminal(command: command, width: 100, height: 40)
        #expect(first.waitFor("32 teams"))
        let second = try TmuxTerminal(command: command, width: 100, height: 40)
        #expect(second.waitFor("32 teams"))
        // The cursor is on Algeria in both; three taps in the first scoreboard.
        try first.send("Enter", "Enter", "Enter")
        #expect(first.waitFor("Wins: 3"))
        #expect(second.waitFor("Leader: Algeria (3 wins)"))
        let row = second.screen.split(separator: "\n").first { $0.contains("Algeria") && $0.contains("Wins:") }
        #expect(row?.contains("Wins: 3") == true)
        try first.send("q")
        try second.send("q")
        #expect(first.waitFor("[exited 0]"))
        #expect(second.waitFor("[exited 0]"))
    }
}
