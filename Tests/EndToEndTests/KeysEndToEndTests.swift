import Foundation
import Testing
import TestSupport

/// The bytes terminals send for Home, End and Alt with a key, typed into the built binary in
/// a real terminal under each common terminal description: none of them may end the board.
@Suite(.serialized)
struct KeysEndToEndTests {
    /// Home and End as xterm sends them (in its two cursor-key modes), and as tmux, screen and
    /// the Linux console send them, whatever TERM says.
    static let homeSequences = ["\u{1B}[1~", "\u{1B}OH", "\u{1B}[H"]
    static let endSequences = ["\u{1B}[4~", "\u{1B}OF", "\u{1B}[F"]

    @Test("Home and End move to the first and last team, Alt with a key and Esc Esc are harmless", arguments: ["xterm", "xterm-256color", "screen", "tmux-256color", "linux"])
    func keysUnder(term: String) throws {
        let terminal = try TmuxTerminal(command: [Executable.worldcup.path, "--database", temporaryDatabase()], term: term)
        try #require(terminal.waitFor("32 teams"))
        for (home, end) in zip(Self.homeSequences, Self.endSequences) {
            let shown = end.replacingOccurrences(of: "\u{1B}", with: "\\e")
            try terminal.send(end, literal: true)
            #expect(terminal.waitForCursor(on: "Uruguay"), "End sent as \(shown) under TERM=\(term)")
            try terminal.send(home, literal: true)
            #expect(terminal.waitForCursor(on: "Algeria"), "Home sent as \(shown.replacingOccurrences(of: "F", with: "H").replacingOccurrences(of: "4", with: "1")) under TERM=\(term)")
        }
        // Alt-x and Alt-j arrive as Esc then the letter: ignored, neither Esc nor j.
        for alt in ["\u{1B}x", "\u{1B}j"] {
            try terminal.send(alt, literal: true)
        }
        // A filter, then Esc Esc: the first clears it, the second has nothing to do.
        try terminal.send("/")
        try terminal.send("gh", literal: true)
        try #require(terminal.waitFor("1 match"))
        try terminal.send("\u{1B}\u{1B}", literal: true)
        try #require(terminal.waitFor("32 teams"))
        // On the board, Esc says how to quit. (A key within the escape delay after it would
        // make Alt with that key: the test waits as a person's next key would.)
        try terminal.send("Escape")
        try #require(terminal.waitFor("q quits"))
        Thread.sleep(forTimeInterval: 0.2)
        #expect(!terminal.screen.contains("[exited"), "the board ended under TERM=\(term):\n\(terminal.screen)")
        #expect(terminal.line(containing: "Algeria")?.contains("▶") == true, "Alt-j moved the cursor under TERM=\(term):\n\(terminal.screen)")

        // In the help, q closes the help (as in less); on the board, q quits.
        try terminal.send("?")
        try #require(terminal.waitFor(" Keys "))
        try terminal.send("q")
        let deadline = Date().addingTimeInterval(10)
        while terminal.screen.contains(" Keys "), Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        #expect(!terminal.screen.contains(" Keys "), "q did not close the help under TERM=\(term)")
        #expect(!terminal.screen.contains("[exited"), "q in the help ended the board under TERM=\(term)")
        try terminal.send("q")
        #expect(terminal.waitFor("[exited 0]"))
    }
}
