import TerminalUI
import WorldCup

/// The interactive program: one loop that reads keys, signals and database wake-ups,
/// updates the one screen model, and draws it.
public enum ScoreboardApp {
    /// Runs the scoreboard until the user quits or a signal ends it. The terminal is restored
    /// on every path out.
    /// - Returns: the exit status: 0 after quitting, 128 plus the signal's number after
    ///   SIGINT (Ctrl-C), SIGTERM or SIGHUP, as shells report a program a signal ended.
    public static func run(scoreboard: TeamStore, color: Bool, flags: FlagStyle = .badges) throws -> Int32 {
        let session = try TerminalSession(color: color)
        defer { session.end() }
        let screen = try ScoreboardScreen(scoreboard: scoreboard, colors: session.colorDepth, flags: flags, onChangesAvailable: session.wakeUp,
                                          cacheName: ScoreboardScreen.cacheName(for: scoreboard))
        var status: Int32 = 0
        while !screen.wantsToQuit {
            let size = session.size
            let frame = screen.render(width: size.width, height: size.height)
            session.present(frame.grid, caret: frame.caret)
            let timeout = screen.nextDeadline.map { max(0.01, $0 - ScoreboardScreen.monotonicSeconds()) }
            // Keys that arrived together are handled together (a typed filter fetches once).
            var keys: [Key] = []
            for event in session.nextEvents(timeout: timeout) {
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
                case .wake: screen.processChangesFromElsewhere()
                }
            }
            screen.handle(keys)
            screen.tick()
        }
        return status
    }
}
