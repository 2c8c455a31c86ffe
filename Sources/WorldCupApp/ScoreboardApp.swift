import TerminalUI
import WorldCup

/// The interactive program: one loop that reads keys, signals and wake-ups (commits of
/// others, writes of its own finished off the loop), updates the one screen model, and draws
/// it. The loop never waits on the store's writes.
public enum ScoreboardApp {
    /// The shortest time between two frames drawn for changes of other programs.
    static let frameInterval = 1.0 / 60
    /// How long the frame answering a key waits for the write the key asked for: a write saved
    /// within it shows in that one frame; a slower one shows that it is being saved, then its
    /// outcome. Keys are read meanwhile, as always.
    static let writeGrace = 0.01

    /// Runs the scoreboard until the user quits or a signal ends it. The terminal is restored
    /// on every path out.
    /// - Returns: the exit status: 0 after quitting, 128 plus the signal's number after
    ///   SIGINT (Ctrl-C), SIGTERM or SIGHUP, as shells report a program a signal ended.
    /// - Throws: one sentence when the database file turns out to be damaged (SQLite reports
    ///   SQLITE_CORRUPT or SQLITE_NOTADB) at any moment: the terminal is restored first, and
    ///   the frame being drawn when it happened is never shown.
    /// - Parameter theme: the background the colours are for; `auto` asks the terminal
    ///   (`COLORFGBG` in `environment`, or OSC 11) before curses takes it.
    public static func run(scoreboard: any TeamStore, color: Bool, theme: ThemeChoice = .dark, environment: [String: String] = [:],
                           flags: FlagStyle = .badges) throws -> Int32 {
        let background = color ? theme.background(colorFGBG: environment["COLORFGBG"]) : .dark
        let session = try TerminalSession(color: color)
        defer { session.end() }
        // A board on a server reads its first rows over the network (a slow link takes seconds):
        // until they come, the screen says what it waits for instead of staying blank.
        if let server = scoreboard.server {
            let size = session.size
            session.present(connectingFrame(to: server, width: size.width, height: size.height))
        }
        let screen = try ScoreboardScreen(scoreboard: scoreboard, colors: session.colorDepth, background: background, flags: flags,
                                          onChangesAvailable: session.wakeUp, onWorkFinished: session.wakeUp,
                                          cacheName: ScoreboardScreen.cacheName(for: scoreboard))
        var status: Int32 = 0
        // Commits of other programs are shown at most once a frame (60 a second): in a storm of
        // commits the ones in between are taken together, as one batch each, but drawn once.
        var changesWaiting = false
        var needsFrame = true
        var lastFrame = -Double.infinity
        // The frame is held back until then for the outcome of a write a key asked for.
        var heldUntil: Double?
        while !screen.wantsToQuit {
            var now = ScoreboardScreen.monotonicSeconds()
            if changesWaiting, now - lastFrame >= frameInterval {
                changesWaiting = false
                screen.processChanges()
                needsFrame = true
            }
            if let held = heldUntil, now >= held || !screen.isSaving { heldUntil = nil }
            if needsFrame, heldUntil == nil {
                let size = session.size
                let frame = screen.render(width: size.width, height: size.height)
                if screen.damage != nil { break }
                session.present(frame.grid, caret: frame.caret)
                lastFrame = now
                needsFrame = false
            }
            let deadlines = [screen.nextDeadline, changesWaiting ? lastFrame + frameInterval : nil, heldUntil].compactMap { $0 }
            let timeout = deadlines.min().map { max(0.001, $0 - now) }
            let events = session.nextEvents(timeout: timeout)
            let asked = screen.writesAsked
            // The outcomes of writes that finished (and who made others' changes) come first:
            // a key that follows sees its team's change saved.
            if screen.deliverFinishedWork() { needsFrame = true }
            // Keys that arrived together are handled together (a typed filter fetches once).
            var keys: [Key] = []
            for event in events {
                if case .key(let key) = event, key != .resize {
                    keys.append(key)
                    continue
                }
                screen.handle(keys)
                keys.removeAll()
                switch event {
                case .key: session.invalidate() // resize
                case .signal(let number):
                    screen.quit()
                    if status == 0 { status = 128 + number }
                case .wake:
                    changesWaiting = true
                    continue
                }
                needsFrame = true
            }
            if !keys.isEmpty {
                // A key sees the other programs' changes that wait, then answers at once.
                if changesWaiting {
                    changesWaiting = false
                    screen.processChanges()
                }
                screen.handle(keys)
                needsFrame = true
            }
            now = ScoreboardScreen.monotonicSeconds()
            if let deadline = screen.nextDeadline, deadline <= now { needsFrame = true }
            screen.tick()
            if screen.writesAsked != asked { heldUntil = now + writeGrace }
        }
        // What was asked of the store is saved before the program ends (a tap then q counts),
        // each write within its own deadline; the board shows what it waits for meanwhile.
        if screen.isSaving, screen.damage == nil {
            let size = session.size
            session.present(screen.render(width: size.width, height: size.height).grid, caret: nil)
            screen.finishWork()
        }
        if let damage = screen.damage { throw damage }
        return status
    }

    /// The frame shown while a board on `server` reads its first rows: the title, and what it waits for.
    static func connectingFrame(to server: String, width: Int, height: Int) -> Grid {
        var grid = Grid(width: width, height: height)
        let end = grid.write("World Cup", x: 1, y: 0, style: Style(bold: true))
        _ = grid.write(DisplayText.truncate(" · connecting to \(server)…", toWidth: max(0, width - end - 1)), x: end, y: 0, style: Style(dim: true))
        return grid
    }
}
