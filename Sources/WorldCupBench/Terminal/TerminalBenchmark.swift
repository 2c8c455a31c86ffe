import Foundation
import GRDB
import WorldCup
import WorldCupSQLite

/// Median and 99th percentile of one kind of keypress, in milliseconds.
struct KeyLatency {
    var p50: Double
    var p99: Double
    /// How many keypresses were measured.
    var count: Int

    init(_ milliseconds: [Double]) {
        let percentiles = Percentiles(milliseconds)
        p50 = percentiles.median ?? 0
        p99 = percentiles.p99 ?? 0
        count = milliseconds.count
    }
}

/// The terminal figures of one size, as the report prints them.
struct TerminalResult {
    var rows: Int
    /// Median time from spawning the app to the last byte of its first complete frame.
    var launchMs: Double
    /// Median bytes the app writes for one tap: the frame answering Enter plus anything it
    /// writes by itself afterwards (the flash ending).
    var tapBytesP50: Double
    /// Key written → last byte of the frame that answers it. `tap`: Enter on a team that
    /// does not move; `movingTap`: Enter on the last team (after End), which moves up.
    var tap: KeyLatency
    var movingTap: KeyLatency
    var page: KeyLatency
    var end: KeyLatency
    /// The "/" filter, each character typed (`TerminalBenchmark.measureFilter`).
    var filter: FilterLatency
    /// The app while another process taps at a steady rate (small boards only).
    var storm: StormResult?
}

/// Runs the real `worldcup` binary in a pseudo-terminal on a database of `rows` teams, and
/// measures what a user at a terminal gets: launch to first frame, keypress to screen, and
/// the bytes each tap writes.
struct TerminalBenchmark {
    var rows: Int
    /// Measured keypresses of each kind (after warm-up presses).
    var keys: Int
    /// Measured launches (after one warm-up launch).
    var launches: Int
    /// Whether the app draws in colour (false passes `--no-color`).
    var color: Bool
    var seed: UInt64
    var folder: URL
    /// The `worldcup` executable.
    var app: String
    /// The other process's commits while the storm is measured.
    var storm = StormSettings()

    /// The terminal: fixed, so every run draws the same screen.
    static let width = 100
    static let height = 40
    /// Silence after the last byte that ends a frame (see `FrameAssembler`).
    static let quiet = 0.05
    /// The end of the footer, the last line drawn in every full frame.
    static let footerMarker = "q quit"
    /// How long a tapped row flashes (`TableView.flashDuration`), plus slack, so that the
    /// frame ending the flash is counted with its tap.
    static let flashWait = 0.5 + 0.3
    /// How long a key that changes nothing on screen is given to show that it wrote nothing.
    static let nothingWait = 0.3
    static let warmUpPresses = 2
    /// The storm is measured on small boards, where drawing, not fetching, is the cost.
    static let stormMaximumRows = 1_000

    /// The bytes a terminal of type xterm-256color sends for the keys (terminfo's kent, knp,
    /// kpp, kend and khome in keypad-transmit mode, which curses turns on). Enter is a CR.
    enum KeyBytes {
        static let enter: [UInt8] = [0x0d]
        static let pageDown = Array("\u{1b}[6~".utf8)
        static let pageUp = Array("\u{1b}[5~".utf8)
        static let end = Array("\u{1b}OF".utf8)
        static let home = Array("\u{1b}OH".utf8)
        static let quit = Array("q".utf8)
        static let down = Array("\u{1b}OB".utf8)
        static let up = Array("\u{1b}OA".utf8)
    }

    /// The `worldcup` executable: `path` when given, else the one beside this benchmark
    /// (both are products of the same build).
    static func locateApp(_ path: String?) throws -> String {
        try locateExecutable("worldcup", path, option: "--worldcup")
    }

    /// The executable `name`: `path` when given, else the one beside this benchmark (a product
    /// of the same build); an error that names `option` when there is none.
    static func locateExecutable(_ name: String, _ path: String?, option: String) throws -> String {
        let candidate: String
        if let path {
            candidate = path
        } else {
            guard let me = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") else {
                throw BenchError("Cannot find this program's own executable through /proc/self/exe.")
            }
            candidate = URL(fileURLWithPath: me).deletingLastPathComponent().appendingPathComponent(name).path
        }
        guard FileManager.default.isExecutableFile(atPath: candidate) else {
            throw BenchError("There is no \(name) executable at \(candidate): build every product (swift build -c release, without --product) or pass \(option) PATH.")
        }
        return candidate
    }

    func run() throws -> TerminalResult {
        defer { try? FileManager.default.removeItem(at: folder) }
        let database = folder.appendingPathComponent("terminal.sqlite")
        let label = "[\(rows) teams, terminal]"

        Progress.say("\(label) building the database in \(folder.path)")
        try Self.buildDatabase(rows: rows, at: database, seed: seed)

        Progress.say("\(label) launch to first frame: 1 warm-up launch, then \(launches) measured")
        var launchTimes: [Double] = []
        for launch in 0...launches {
            let (session, frame, started) = try start(database: database)
            try quit(session)
            if launch > 0 { launchTimes.append(Monotonic.milliseconds(from: started, to: frame.lastByteAt)) }
            if launch == launches {
                Progress.say("\(label) first frame: \(frame.bytes.count) bytes; launches \(launchTimes.map { Report.format($0, decimals: 1) }.joined(separator: ", ")) ms")
            }
        }
        let launchMs = Percentiles(launchTimes).median ?? 0

        let (session, _, _) = try start(database: database)
        defer { session.close() }
        if let late = try session.readFrame(quiet: Self.quiet, timeout: Self.flashWait) {
            Progress.say("\(label) note: the app wrote \(late.bytes.count) more bytes after its first frame")
        }
        let taps = try measureTaps(session, label: label)
        let ends = try measureEnds(session, label: label)
        let movingTaps = try measureTaps(session, after: KeyBytes.end, label: label)
        let pages = try measurePages(session, label: label)
        let filter = try measureFilter(session, label: label)
        try quit(session)
        let storm = rows <= Self.stormMaximumRows ? try measureStorm(database: database, label: label) : nil

        return TerminalResult(
            rows: rows,
            launchMs: launchMs,
            tapBytesP50: Percentiles(taps.map { Double($0.totalBytes) }).median ?? 0,
            tap: KeyLatency(taps.map(\.press.milliseconds)),
            movingTap: KeyLatency(movingTaps.map(\.press.milliseconds)),
            page: KeyLatency(pages.map(\.milliseconds)),
            end: KeyLatency(ends.map(\.milliseconds)),
            filter: filter,
            storm: storm
        )
    }

    // MARK: - The app

    /// Spawns the app and waits for its first complete frame. Returns the session, that
    /// frame, and the moment just before the spawn.
    func start(database: URL) throws -> (PseudoTerminal, TerminalFrame, UInt64) {
        // Caches go to this run's folder: never into the user's, and the same on every run.
        // The theme is named: this pseudo-terminal is no emulator and answers none of the
        // queries `--theme auto` sends (a real terminal answers them at once), so the app
        // would wait out its limit at every launch.
        var environment = ["TERM": "xterm-256color", "LANG": "C.UTF-8", "XDG_CACHE_HOME": folder.appendingPathComponent("cache").path,
                           "WORLDCUP_THEME": "dark"]
        for name in ["HOME", "PATH"] {
            if let value = ProcessInfo.processInfo.environment[name] { environment[name] = value }
        }
        let arguments = ["--database", database.path] + (color ? [] : ["--no-color"])
        let started = Monotonic.now()
        let session = try PseudoTerminal(executable: app, arguments: arguments, environment: environment, width: Self.width, height: Self.height)
        guard let frame = try session.readFrame(quiet: Self.quiet, marker: Self.footerMarker, timeout: 60) else {
            session.close()
            throw BenchError("The scoreboard drew no complete first frame within 60 s.")
        }
        return (session, frame, started)
    }

    /// Types q and waits for the app to exit; it is terminated if it does not.
    func quit(_ session: PseudoTerminal) throws {
        try session.type(KeyBytes.quit)
        let exited = session.waitForExit(seconds: 10)
        session.close()
        guard exited, session.exitCode == 0 else {
            throw BenchError("The scoreboard did not quit cleanly on q (\(exited ? "exit status \(session.exitCode.map(String.init) ?? "by a signal")" : "still running after 10 s; terminated")).")
        }
    }

    // MARK: - Keys

    /// One keypress: from writing the key to the last byte of the frame that answers it.
    struct Press {
        var milliseconds: Double
        var frame: TerminalFrame
    }

    /// Types `key` and reads the frame that answers it; nil if nothing was written within `wait`.
    func press(_ key: [UInt8], in session: PseudoTerminal, wait: Double) throws -> Press? {
        let typed = Monotonic.now()
        try session.type(key)
        guard let frame = try session.readFrame(quiet: Self.quiet, timeout: wait) else { return nil }
        return Press(milliseconds: Monotonic.milliseconds(from: typed, to: frame.lastByteAt), frame: frame)
    }

    /// A tap and everything it made the app write.
    struct Tap {
        var press: Press
        /// The answering frame, plus the frame that ends the flash half a second later (if any).
        var totalBytes: Int
    }

    /// Taps the team under the cursor. Without `before`, that is the first team of the first
    /// zone, which never moves (it only gains wins), so each tap changes that row, the status
    /// line and maybe the title. With `before` (End), each tap is on the last team, which
    /// moves up past the teams it overtakes; the cursor follows it, so the table scrolls.
    /// `before` is pressed, and its frame read, before the tap's clock starts.
    private func measureTaps(_ session: PseudoTerminal, after before: [UInt8]? = nil, label: String) throws -> [Tap] {
        let name = before == nil ? "tap (Enter)" : "moving tap (End, Enter)"
        var taps: [Tap] = []
        for index in 0..<(Self.warmUpPresses + keys) {
            if let before { _ = try press(before, in: session, wait: Self.nothingWait) }
            guard let press = try press(KeyBytes.enter, in: session, wait: 5) else {
                throw BenchError("A tap wrote nothing to the terminal.")
            }
            let flashEnd = try session.readFrame(quiet: Self.quiet, timeout: Self.flashWait)
            let tap = Tap(press: press, totalBytes: press.frame.bytes.count + (flashEnd?.bytes.count ?? 0))
            if index == Self.warmUpPresses {
                let shown = PseudoTerminal.printable(press.frame.bytes)
                Progress.say("\(label) one \(name) writes \(press.frame.bytes.count) bytes, then \(flashEnd?.bytes.count ?? 0) when its flash ends: \(shown.count > 400 ? shown.prefix(400) + "…" : shown)")
            }
            if index >= Self.warmUpPresses { taps.append(tap) }
        }
        let latency = KeyLatency(taps.map(\.press.milliseconds))
        Progress.say("\(label) \(name): p50 \(Report.format(latency.p50, decimals: 2)) ms, p99 \(Report.format(latency.p99, decimals: 2)) ms over \(latency.count); bytes p50 \(Report.format(Percentiles(taps.map { Double($0.totalBytes) }).median ?? 0, decimals: 0))")
        return taps
    }

    /// Alternates End and Home; returns the End presses (Home is reported in the progress).
    private func measureEnds(_ session: PseudoTerminal, label: String) throws -> [Press] {
        var ends: [Press] = []
        var homes: [Press] = []
        for index in 0..<(Self.warmUpPresses + keys) {
            guard let end = try press(KeyBytes.end, in: session, wait: 5), let home = try press(KeyBytes.home, in: session, wait: 5) else {
                throw BenchError("End or Home wrote nothing to the terminal.")
            }
            if index >= Self.warmUpPresses {
                ends.append(end)
                homes.append(home)
            }
        }
        report("End", ends, label: label)
        report("Home", homes, label: label)
        return ends
    }

    /// Pages down, and back up once the end is reached (a PgDn that writes nothing).
    private func measurePages(_ session: PseudoTerminal, label: String) throws -> [Press] {
        var pages: [Press] = []
        var key = KeyBytes.pageDown
        var warmUp = Self.warmUpPresses
        var idle = 0
        while pages.count < keys {
            guard let page = try press(key, in: session, wait: Self.nothingWait) else {
                // At the end (or the top): turn round. Twice idle in a row: paging does nothing.
                idle += 1
                guard idle < 2 else { throw BenchError("Neither PgDn nor PgUp writes anything to the terminal.") }
                key = key == KeyBytes.pageDown ? KeyBytes.pageUp : KeyBytes.pageDown
                continue
            }
            idle = 0
            if warmUp > 0 { warmUp -= 1 } else { pages.append(page) }
        }
        report("PgDn/PgUp", pages, label: label)
        return pages
    }

    private func report(_ name: String, _ presses: [Press], label: String) {
        let latency = KeyLatency(presses.map(\.milliseconds))
        let bytes = Percentiles(presses.map { Double($0.frame.bytes.count) }).median ?? 0
        Progress.say("\(label) \(name): p50 \(Report.format(latency.p50, decimals: 2)) ms, p99 \(Report.format(latency.p99, decimals: 2)) ms over \(latency.count); bytes p50 \(Report.format(bytes, decimals: 0))")
    }

    // MARK: - The database

    /// A database the app opens as it would its own: the sample's seed when `rows` is its
    /// size (32), generated teams otherwise, marked as seeded (a `seedImport` row) so the app
    /// neither imports the seed nor counts the teams to decide, and checkpointed.
    static func buildDatabase(rows: Int, at url: URL, seed: UInt64) throws {
        let sample = try Seed.bundled()
        if sample.count == rows {
            let scoreboard = try SQLiteTeamStore(databaseURL: url, seed: sample)
            try scoreboard.database.writeWithoutTransaction { db in _ = try db.checkpoint(.truncate) }
            return
        }
        let scoreboard = try BenchDatabase.build(rows: rows, at: url, seed: seed)
        try scoreboard.database.writeWithoutTransaction { db in
            try db.execute(sql: "INSERT OR IGNORE INTO seedImport (id, importedAt) VALUES (1, CURRENT_TIMESTAMP)")
            _ = try db.checkpoint(.truncate)
        }
    }
}
