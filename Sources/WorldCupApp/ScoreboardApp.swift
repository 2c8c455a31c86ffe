import TerminalUI
import WorldCup

/// The interactive program: one loop that reads keys, signals and database wake-ups,
/// updates the one screen model, and draws it.
public enum ScoreboardApp {
    /// Runs the scoreboard until the user quits. The terminal is restored on every path out.
    public static func run(scoreboard: Scoreboard, color: Bool) throws {
        let session = try TerminalSession(color: color)
        defer { session.end() }
        let screen = try ScoreboardScreen(scoreboard: scoreboard, usesColor: session.usesColor, onChangesAvailable: session.wakeUp)
        while !screen.wantsToQuit {
            let size = session.size
            let frame = screen.render(width: size.width, height: size.height)
            session.present(frame.grid, caret: frame.caret)
            let timeout = screen.nextDeadline.map { max(0.01, $0 - ScoreboardScreen.monotonicSeconds()) }
            for event in session.nextEvents(timeout: timeout) {
                switch event {
                case .key(.resize): session.invalidate()
                case .key(let key): screen.handle(key)
                case .signal: screen.quit()
                case .wake: screen.processChanges()
                }
            }
            screen.tick()
        }
    }
}
