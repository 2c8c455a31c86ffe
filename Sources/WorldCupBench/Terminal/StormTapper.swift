import ArgumentParser
import Foundation
import Glibc
import WorldCup
import WorldCupSQLite

/// When each commit of a storm is due: `rate` commits a second, evenly spaced from `start`
/// (nanoseconds on the monotonic clock). A tapper that falls behind commits at once until it
/// is back on time, so the storm keeps its rate on average; a rate of 0 has no schedule.
struct StormPace {
    /// Commits a second; 0: as fast as possible.
    var rate: Double
    var start: UInt64

    /// The moment commit number `index` (from 0) is due; nil when there is no schedule.
    func deadline(ofCommit index: Int) -> UInt64? {
        guard rate > 0 else { return nil }
        return start + UInt64((Double(index) * 1e9 / rate).rounded())
    }
}

/// `worldcup-bench storm-tapper --database PATH --seconds S [--rate N]`: taps one team for S
/// seconds, one commit each, N a second (0: as fast as it can), then prints how many commits
/// it made and in how many seconds.
struct StormTapperCommand: ParsableCommand {
    static let configuration = CommandConfiguration.childProcess("storm-tapper", abstract: "Tap one team in a loop for a while and print the number of commits and the seconds they took (used by the benchmark).")

    @Option(help: ArgumentHelp("The database to tap in.", valueName: "path"))
    var database: String

    @Option(help: ArgumentHelp("How long to tap.", valueName: "seconds"))
    var seconds: Double

    @Option(help: ArgumentHelp("Commits a second (0: as fast as it can).", valueName: "n"))
    var rate: Double = 0

    func validate() throws {
        if rate < 0 { throw ValidationError("--rate must be 0 or more.") }
    }

    func run() throws {
        try BenchError.readable {
            let store = try SQLiteTeamStore(databaseURL: URL(fileURLWithPath: database), seed: nil)
            guard let id = try store.teams().first?.id else { throw BenchError("The storm's database has no team.") }
            let start = Monotonic.now()
            let pace = StormPace(rate: rate, start: start)
            let end = start + UInt64(seconds * 1e9)
            var commits = 0
            while true {
                if let due = pace.deadline(ofCommit: commits) {
                    guard due < end else { break }
                    Self.sleep(until: due)
                }
                guard Monotonic.now() < end else { break }
                _ = try store.tap(teamID: id)
                commits += 1
            }
            print(commits, Monotonic.milliseconds(from: start, to: Monotonic.now()) / 1000)
        }
    }

    /// Sleeps until a moment on the monotonic clock (at once when it has passed).
    static func sleep(until moment: UInt64) {
        var time = timespec(tv_sec: Int(moment / 1_000_000_000), tv_nsec: Int(moment % 1_000_000_000))
        while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &time, nil) == EINTR {}
    }
}
