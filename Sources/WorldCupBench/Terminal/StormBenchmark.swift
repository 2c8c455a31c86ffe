import ArgumentParser
import Foundation
import WorldCup

/// How the storm's other process commits: how many taps a second, for how long.
struct StormSettings {
    /// The storm: about 4,300 taps a second.
    static let defaultRate = 4_300.0
    static let defaultSeconds = 10.0

    /// Commits a second; 0: as fast as the other process can.
    var rate = defaultRate
    var seconds = defaultSeconds
}

/// What an open scoreboard costs while another process commits taps at a steady rate (or as
/// fast as it can).
struct StormResult {
    /// The app's CPU time over the storm's wall time, in percent of one core.
    var cpuPercent: Double
    /// Frames the app drew a second during the storm.
    var framesPerSecond: Double
    /// Commits the other process made a second (what it achieved, not what it was asked for).
    var commitsPerSecond: Double
    /// Key written → first frame after it, during the storm.
    var key: KeyLatency
}

extension TerminalBenchmark {
    /// How often a key is pressed during the storm.
    static let stormKeyInterval = 0.1
    /// Silence that separates two frames in the storm (they come at most every 16 ms).
    static let stormFrameQuiet = 0.004

    /// Opens the app on `database`, starts a child process tapping one team in a loop
    /// (`storm.rate` taps a second), and for `storm.seconds` counts the app's frames and CPU
    /// time, pressing ↓ and ↑ in turn.
    func measureStorm(database: URL, label: String) throws -> StormResult {
        let (session, _, _) = try start(database: database)
        defer { session.close() }
        _ = try session.readFrame(quiet: Self.quiet, timeout: Self.flashWait)
        let pace = storm.rate > 0 ? "\(Report.format(storm.rate, decimals: 0)) taps a second" : "as fast as it can"
        Progress.say("\(label) storm: another process taps \(pace) for \(storm.seconds) s; ↓ and ↑ every \(Self.stormKeyInterval) s")
        let output = Pipe()
        let tapper = try ChildProcess.startSelf(["storm-tapper", "--database", database.path, "--seconds", String(storm.seconds),
                                                 "--rate", String(storm.rate)], output: output)
        let cpuBefore = try Self.cpuSeconds(of: session.pid)
        let start = Monotonic.now()
        let end = start + UInt64(storm.seconds * 1e9)
        var frames = 0
        var assembler = FrameAssembler(quietNanoseconds: UInt64(Self.stormFrameQuiet * 1e9))
        var keyLatencies: [Double] = []
        var keyWrittenAt: UInt64?
        var nextKey = start + UInt64(Self.stormKeyInterval * 1e9)
        var down = true
        while true {
            let now = Monotonic.now()
            if now >= end { break }
            if keyWrittenAt == nil, now >= nextKey {
                try session.type(down ? KeyBytes.down : KeyBytes.up)
                down.toggle()
                keyWrittenAt = Monotonic.now()
                nextKey = now + UInt64(Self.stormKeyInterval * 1e9)
            }
            if assembler.frame(now: now) != nil {
                frames += 1
                assembler = FrameAssembler(quietNanoseconds: UInt64(Self.stormFrameQuiet * 1e9))
            }
            let wait = min(assembler.wait(now: now) ?? 1_000_000, 1_000_000)
            switch session.read(timeoutNanoseconds: max(wait, 100_000)) {
            case .bytes(let chunk, let time):
                if let written = keyWrittenAt, time >= written {
                    keyLatencies.append(Monotonic.milliseconds(from: written, to: time))
                    keyWrittenAt = nil
                }
                assembler.receive(chunk, at: time)
            case .timeout:
                continue
            case .closed:
                throw BenchError("The scoreboard ended during the storm.")
            }
        }
        let seconds = Monotonic.milliseconds(from: start, to: Monotonic.now()) / 1000
        let cpu = try Self.cpuSeconds(of: session.pid) - cpuBefore
        tapper.waitUntilExit()
        // The tapper prints its commits and the seconds it tapped for.
        let counts = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            .split(whereSeparator: \.isWhitespace).compactMap { Double($0) }
        guard tapper.terminationStatus == 0, counts.count == 2, counts[1] > 0 else {
            throw BenchError("The storm's tapper failed (exit status \(tapper.terminationStatus)).")
        }
        try quit(session)
        let result = StormResult(cpuPercent: 100 * cpu / seconds, framesPerSecond: Double(frames) / seconds,
                                 commitsPerSecond: counts[0] / counts[1], key: KeyLatency(keyLatencies))
        Progress.say("\(label) storm: \(Report.format(result.commitsPerSecond, decimals: 0)) commits/s elsewhere; the app used \(Report.format(result.cpuPercent, decimals: 1)) % of a core, drew \(Report.format(result.framesPerSecond, decimals: 1)) frames/s; key to next frame p50 \(Report.format(result.key.p50, decimals: 2)) ms, p99 \(Report.format(result.key.p99, decimals: 2)) ms")
        return result
    }

    /// User plus system CPU seconds of a process, from /proc.
    static func cpuSeconds(of pid: pid_t) throws -> Double {
        guard let stat = ProcessStat(pid: pid) else { throw BenchError("Cannot read the CPU time of process \(pid) from /proc.") }
        return stat.cpuSeconds
    }
}
