import Foundation
import Glibc
import SpawnActions
import Testing
import TestSupport

/// A real terminal: a tmux server of its own, running one command.
final class TmuxTerminal {
    let socket = "worldcup-e2e-\(UUID().uuidString.prefix(8))"

    /// Starts `command` in a terminal of `width` × `height` cells whose programs see `term` as their TERM.
    init(command: [String], width: Int = 100, height: Int = 30, term: String = "xterm-256color") throws {
        let quoted = command.map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(separator: " ")
        // After the program ends, print its status and keep the pane so the test can read it.
        let script = "\(quoted); echo \"[exited $?]\"; sleep 600"
        // The server this starts outlives the call: it must not inherit a pipe we wait on.
        try tmux(["new-session", "-d", "-x", "\(width)", "-y", "\(height)", "-e", "TERM=\(term)", script], capture: false)
    }

    deinit {
        _ = try? tmux(["kill-server"])
    }

    /// Runs tmux with posix_spawn and waitpid. (Foundation's Process can wait forever for a
    /// command whose daemon, like the tmux server, inherits its descriptors.)
    @discardableResult
    func tmux(_ arguments: [String], capture: Bool = true) throws -> String {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("tmux-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: output) }
        let redirect = capture ? "'\(output.path)'" : "/dev/null"
        let command = (["tmux", "-L", socket, "-f", "/dev/null"] + arguments)
            .map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }
            .joined(separator: " ") + " </dev/null >\(redirect) 2>/dev/null"
        var pid: pid_t = 0
        let argv: [UnsafeMutablePointer<CChar>?] = [strdup("/bin/sh"), strdup("-c"), strdup(command), nil]
        defer { argv.forEach { free($0) } }
        // Only the standard descriptors: the tmux server and the programs in its panes outlive
        // the call, and a pipe of another test's thread they inherited would never reach its end.
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        spawn_actions_close_from(&actions, 3)
        guard posix_spawn(&pid, "/bin/sh", &actions, nil, argv, environ) == 0 else {
            throw CocoaError(.executableLoad)
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1, errno == EINTR {}
        return capture ? ((try? String(contentsOf: output, encoding: .utf8)) ?? "") : ""
    }

    /// Sends tmux key names (Enter, Down, C-c) or, with `literal`, text.
    func send(_ keys: String..., literal: Bool = false) throws {
        try tmux(["send-keys", "-t", "0"] + (literal ? ["-l"] : []) + keys)
    }

    /// Sends a mouse action at a cell (0-based) the way xterm reports it with SGR (mode 1006),
    /// the protocol curses asks for when the program runs with TERM=xterm-256color (tmux gives
    /// the pane its own TERM, whose curses description expects X10 reports instead).
    /// `send-keys -l` passes the bytes to the program as if the terminal had sent them.
    func mouse(_ action: MouseAction, x: Int, y: Int) throws {
        func report(_ button: Int, _ final: String) -> String { "\u{1B}[<\(button);\(x + 1);\(y + 1)\(final)" }
        let click = report(0, "M") + report(0, "m")
        let bytes: String
        switch action {
        case .click: bytes = click
        case .doubleClick: bytes = click + click
        case .wheelUp: bytes = report(64, "M")
        case .wheelDown: bytes = report(65, "M")
        }
        try send(bytes, literal: true)
    }

    enum MouseAction { case click, doubleClick, wheelUp, wheelDown }

    /// A tmux format of the pane, such as `#{mouse_any_flag}`.
    func format(_ format: String) -> String {
        ((try? tmux(["display-message", "-p", "-t", "0", format])) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Whether the program in the pane asked the terminal for mouse reports.
    var mouseReporting: Bool { format("#{mouse_any_flag}") == "1" }

    /// The process the pane's shell started: the program under test.
    var programPID: pid_t? {
        guard let shell = Int32(format("#{pane_pid}")),
              let children = try? String(contentsOfFile: "/proc/\(shell)/task/\(shell)/children", encoding: .utf8) else { return nil }
        return children.split(separator: " ").first.flatMap { pid_t($0) }
    }

    var screen: String {
        (try? tmux(["capture-pane", "-p", "-t", "0"])) ?? ""
    }

    /// Whether the terminal is in the alternate screen (curses mode).
    var inAlternateScreen: Bool {
        format("#{alternate_on}") == "1"
    }

    /// Waits until `text` is on screen; fails the test with the screen if it never is.
    @discardableResult
    func waitFor(_ text: String, seconds: Double = 10, sourceLocation: SourceLocation = #_sourceLocation) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if screen.contains(text) { return true }
            Thread.sleep(forTimeInterval: 0.05)
        }
        Issue.record("“\(text)” never appeared; the screen:\n\(screen)", sourceLocation: sourceLocation)
        return false
    }

    /// Waits until the cursor marker "▶" is on the line that shows `text`.
    @discardableResult
    func waitForCursor(on text: String, seconds: Double = 10, sourceLocation: SourceLocation = #_sourceLocation) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if line(containing: text)?.contains("▶") == true { return true }
            Thread.sleep(forTimeInterval: 0.05)
        }
        Issue.record("The cursor never reached “\(text)”; the screen:\n\(screen)", sourceLocation: sourceLocation)
        return false
    }

    /// The line of the screen that contains `text`.
    func line(containing text: String) -> String? {
        screen.split(separator: "\n").first { $0.contains(text) }.map(String.init)
    }
}

/// A fresh database path in a temporary folder, with an empty file there: every command
/// seeds an empty file as a new board, as the board does a missing one (only the board makes
/// a file that does not exist).
func temporaryDatabase() -> String {
    // A folder that cannot be made leaves a path whose opening fails with its own sentence.
    let folder = try? TemporaryFolder(prefix: "worldcup-e2e")
    let path = (folder?.database ?? FileManager.default.temporaryDirectory.appendingPathComponent("WorldCup.sqlite")).path
    if folder != nil { _ = FileManager.default.createFile(atPath: path, contents: nil) }
    return path
}
