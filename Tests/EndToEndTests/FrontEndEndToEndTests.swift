import Foundation
import Glibc
import Testing
import TestSupport

/// The filter, the mouse, emoji flags and signals, in a real terminal.
@Suite(.serialized)
struct FrontEndEndToEndTests {
    /// Starts the program under TERM=xterm-256color, whose description has curses ask for
    /// SGR mouse reports (tmux sets the pane's TERM to its own default-terminal otherwise).
    func start(_ arguments: [String] = [], environment: [String] = []) throws -> TmuxTerminal {
        let command = ["env", "TERM=xterm-256color"] + environment + [Executable.worldcup.path, "--database", temporaryDatabase()] + arguments
        let terminal = try TmuxTerminal(command: command)
        try #require(terminal.waitFor("32 teams"))
        return terminal
    }

    @Test func slashFiltersAsYouTypeAndEscClearsIt() throws {
        let terminal = try start()
        try terminal.send("/")
        try terminal.send("ko", literal: true)
        try #require(terminal.waitFor("/ko: 1 match"))
        try #require(terminal.waitForCursor(on: "KOR"))
        #expect(!terminal.screen.contains("Algeria"))
        try terminal.send("x", literal: true)
        try #require(terminal.waitFor("No team matches “kox”"))
        try terminal.send("BSpace", "Enter")
        try #require(terminal.waitFor("Esc clear filter"))
        // Enter keeps the filter; Enter again taps the team it shows.
        try terminal.send("Enter")
        try #require(terminal.waitFor("Korea: 1 win."))
        try terminal.send("Escape")
        try #require(terminal.waitFor("32 teams"))
        try #require(terminal.waitFor("Algeria"))
        try #require(terminal.waitForCursor(on: "KOR"), "the cursor stays on Korea")
        // Esc without a filter says how to quit, and q quits.
        try terminal.send("Escape")
        try #require(terminal.waitFor("q quits."))
        Thread.sleep(forTimeInterval: 0.2)
        try terminal.send("q")
        try #require(terminal.waitFor("[exited 0]"))
        #expect(!terminal.inAlternateScreen)
    }

    @Test("The filter folds accents as the board's order does: /cote, /emoji and /ÉMOJI, the match underlined",
          arguments: ["sqlite", "postgres"])
    func slashFoldsAccents(store: String) throws {
        let server = store == "postgres" ? try SharedServer() : nil
        let database = server?.url() ?? temporaryDatabase()
        for (name, zone) in [("C\u{F4}te d\u{2019}Ivoire", "Africa"), ("\u{C9}moji", "Asia")] {
            let added = try Executable.run(["add", name, "--zone", zone, "--database", database])
            try #require(added.status == 0, "\(added.err)")
        }
        let terminal = try TmuxTerminal(command: ["env", "TERM=xterm-256color", Executable.worldcup.path, "--database", database])
        try #require(terminal.waitFor("34 teams"))
        for (typed, name) in [("cote", "C\u{F4}te d\u{2019}Ivoire"), ("emoji", "\u{C9}moji"), ("\u{C9}MOJI", "\u{C9}moji")] {
            try terminal.send("/")
            try terminal.send(typed, literal: true)
            try #require(terminal.waitFor("/\(typed): 1 match"), "/\(typed)")
            #expect(terminal.screen.contains(name))
            // The letters found are underlined where they are: "Côte" in "Côte d’Ivoire".
            let drawn = try terminal.tmux(["capture-pane", "-e", "-p", "-t", "0"])
            if typed == "cote" { #expect(drawn.contains("4mC\u{F4}te"), "\(drawn.debugDescription)") }
            try terminal.send("Escape")
            try #require(terminal.waitFor("34 teams"))
        }
        try terminal.send("q")
        #expect(terminal.waitFor("[exited 0]"))
    }

    @Test("At 40×10 a dialog's frame is whole, its bottom-right corner too, and the cursor shows only in its field")
    func dialogAtTheSmallestSize() throws {
        let terminal = try TmuxTerminal(command: ["env", "TERM=xterm-256color", Executable.worldcup.path, "--database", temporaryDatabase()], width: 40, height: 10)
        try #require(terminal.waitFor("32 teams"))
        #expect(terminal.format("#{cursor_flag}") == "0", "no cursor on the board")
        try terminal.send("+")
        try #require(terminal.waitFor("Secret Team"))
        try #require(terminal.waitFor("┘"), "the bottom-right corner is drawn")
        let rows = terminal.screen.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(rows.count >= 10 && rows[9].hasPrefix("└") && rows[9].hasSuffix("┘"), "\(rows)")
        #expect(terminal.format("#{cursor_flag}") == "1" && terminal.format("#{cursor_y}") == "2", "the cursor is in the name's field")
        try terminal.send("Escape")
        try #require(terminal.waitFor("No team added."))
        #expect(terminal.format("#{cursor_flag}") == "0", "no cursor once the dialog is gone")
        try terminal.send("q")
        #expect(terminal.waitFor("[exited 0]"))
    }

    @Test func aClickSelectsADoubleClickTapsTheIndexJumpsAndTheWheelScrolls() throws {
        let terminal = try start()
        #expect(terminal.mouseReporting, "the program asks for mouse reports")
        #expect(terminal.format("#{mouse_sgr_flag}") == "1")
        // Line 4 of the screen is Ghana (title, Africa, Algeria, Cameroon, Ghana).
        try terminal.mouse(.click, x: 12, y: 4)
        try #require(terminal.waitForCursor(on: "GHA"))
        #expect(!terminal.screen.contains("Wins: 1"), "a click does not tap")
        try terminal.mouse(.doubleClick, x: 12, y: 4)
        try #require(terminal.waitFor("Ghana: 1 win."))
        #expect(terminal.line(containing: "GHA")?.contains("▶") == true)

        // The index at the right edge: "No" on line 4 jumps to North, Central America.
        let index = try #require(terminal.line(containing: "  No"))
        #expect(index.hasSuffix("  No"))
        try terminal.mouse(.click, x: 97, y: 4)
        try #require(terminal.waitForCursor(on: "CRC"))

        try terminal.send("g")
        try #require(terminal.waitForCursor(on: "GHA"))
        // Three turns scroll nine lines: Africa's rows and Asia's first three are gone, and the
        // cursor moves to the first team left on screen, under Asia's sticky header.
        for _ in 0..<3 { try terminal.mouse(.wheelDown, x: 20, y: 10) }
        try #require(terminal.waitForCursor(on: "KOR"))
        #expect(!terminal.screen.contains("GHA"))

        try terminal.send("q")
        try #require(terminal.waitFor("[exited 0]"))
        #expect(!terminal.inAlternateScreen)
        #expect(!terminal.mouseReporting, "mouse reporting is off again")
    }

    @Test func emojiFlagsAreOptIn() throws {
        let terminal = try start(["--flags", "emoji"])
        #expect(terminal.line(containing: "Algeria")?.contains("\u{1F1E9}\u{1F1FF}") == true)
        #expect(terminal.line(containing: "England")?.contains("ENG") == true, "England's flag is a tag sequence: the badge")
        try terminal.send("q")
        try #require(terminal.waitFor("[exited 0]"))

        let plain = try start()
        #expect(plain.line(containing: "Algeria")?.contains("ALG") == true)
        #expect(!plain.screen.unicodeScalars.contains { (0x1F1E6...0x1F1FF).contains($0.value) })
        let bad = try Executable.run(["--flags", "stickers"])
        #expect(bad.status != 0)
    }

    @Test(arguments: [(SIGTERM, 143), (SIGHUP, 129), (SIGINT, 130)])
    func aSignalRestoresTheTerminalAndExitsWith128PlusIt(signal: Int32, status: Int) throws {
        let terminal = try start()
        try terminal.send("/")  // in the middle of typing a filter
        try #require(terminal.waitFor("type to filter"))
        let pid = try #require(terminal.programPID)
        kill(pid, signal)
        try #require(terminal.waitFor("[exited \(status)]"))
        #expect(!terminal.inAlternateScreen)
        #expect(!terminal.mouseReporting)
        #expect(terminal.format("#{cursor_flag}") == "1", "the cursor shows")
    }

    @Test(arguments: [SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL])
    func aCrashRestoresTheTerminalThenTheSignalEndsTheProgram(signal: Int32) throws {
        // Without the runtime's backtracer the crash takes its default course at once.
        let terminal = try start(environment: ["SWIFT_BACKTRACE=enable=no"])
        let pid = try #require(terminal.programPID)
        kill(pid, signal)
        try #require(terminal.waitFor("[exited \(128 + signal)]"))
        #expect(!terminal.inAlternateScreen)
        #expect(!terminal.mouseReporting)
        #expect(terminal.format("#{cursor_flag}") == "1")
    }

    @Test func aCrashLetsTheSwiftBacktracerPrintOnTheRestoredScreen() throws {
        let terminal = try start(environment: ["SWIFT_BACKTRACE=interactive=no,color=no"])
        let pid = try #require(terminal.programPID)
        kill(pid, SIGSEGV)
        try #require(terminal.waitFor("[exited 139]", seconds: 30))
        #expect(!terminal.inAlternateScreen)
        #expect(!terminal.mouseReporting)
        let history = (try? terminal.tmux(["capture-pane", "-p", "-t", "0", "-S", "-5000"])) ?? ""
        #expect(history.contains("Program crashed"))
    }
}
