import Foundation

/// One scoreboard on a PostgreSQL URL in a pseudo-terminal, timed as a person at it sees it:
/// when it first shows the rows, and when its output starts and settles after a key or
/// another program's tap.
final class LinkBoard {
    static let width = 100
    static let height = 50
    /// In the title once the board holds the seed's rows.
    static let rowsMarker = "32 teams"

    private let terminal: PseudoTerminal
    /// From the spawn to the last byte of the first frame with the rows (ms).
    let launchMs: Double

    init(app: String, url: String, folder: URL) throws {
        var environment = ["TERM": "xterm-256color", "LANG": "C.UTF-8", "WORLDCUP_THEME": "dark",
                           "XDG_CACHE_HOME": folder.appendingPathComponent("cache").path]
        for name in ["HOME", "PATH"] {
            if let value = ProcessInfo.processInfo.environment[name] { environment[name] = value }
        }
        let started = Monotonic.now()
        terminal = try PseudoTerminal(executable: app, arguments: ["--database", url], environment: environment, width: Self.width, height: Self.height)
        guard let frame = try terminal.readFrame(quiet: 0.05, marker: Self.rowsMarker, timeout: 60) else {
            terminal.close()
            throw BenchError("The scoreboard on \(url) showed no rows within 60 s.")
        }
        launchMs = Monotonic.milliseconds(from: started, to: frame.lastByteAt)
    }

    /// Types q and waits for the board to go.
    func quit() {
        try? terminal.type(Array("q".utf8))
        _ = terminal.waitForExit(seconds: 10)
        terminal.close()
    }

    /// Reads and drops what the board writes until it has been quiet for `quiet` seconds.
    func settle(quiet: Double) {
        _ = outputTimes(quiet: quiet, timeout: 30)
    }

    /// Types `key`; returns when it was typed and when each chunk of the answer arrived, until
    /// the board has been quiet for `quiet` seconds.
    func press(_ key: String, quiet: Double) throws -> (typed: UInt64, output: [UInt64]) {
        let typed = Monotonic.now()
        try terminal.type(Array(key.utf8))
        return (typed, outputTimes(quiet: quiet, timeout: 30))
    }

    /// When each chunk the board writes arrives (monotonic ns), until `quiet` seconds pass
    /// with nothing, or `timeout` with nothing at all.
    func outputTimes(quiet: Double, timeout: Double) -> [UInt64] {
        var times: [UInt64] = []
        while true {
            let wait = times.isEmpty ? timeout : quiet
            switch terminal.read(timeoutNanoseconds: UInt64(wait * 1e9)) {
            case .bytes(_, let time): times.append(time)
            case .timeout, .closed: return times
            }
        }
    }
}
