import ArgumentParser
import Dispatch
import Foundation
import LiveResults
import LiveResultsPostgres
import Synchronization
import ThrowawayPostgres
import WorldCup
import WorldCupApp

/// One process of viewers of the fan-out benchmark: `count` headless scoreboards, each a
/// `ResultsController<Team>` on the scoreboard's request over a `PostgresReader` of its own
/// (so one server connection each, for its reads and its feed's LISTEN), all drained by this
/// process's main thread as the app's loop would drain its one controller.
///
/// It speaks with the benchmark through lines: `ready <count>` once every viewer has fetched;
/// then, when its standard input says `finish` (or closes), it makes every viewer look once
/// more (`refresh()`), checks each against a fresh fetch, and prints what it saw
/// (`FanoutViewerReport`) and `end`.
final class FanoutViewers {
    private let viewers: [(controller: ResultsController<Team>, recorder: SightingRecorder, reader: PostgresReader)]
    private let woken: WakeQueue

    private let request: FanoutRequest

    /// Connects and fetches `count` viewers of the board at `url` on `request`, one after the other.
    init(url: PostgresURL, count: Int, request: FanoutRequest) throws {
        let woken = WakeQueue(count: count)
        self.woken = woken
        self.request = request
        viewers = try (0..<count).map { index in
            let reader = PostgresReader(configuration: url.configuration)
            let controller = BenchRequest.postgresController(reader, request)
            // As the scoreboard does: other programs' commits are read at most once a frame.
            controller.minimumChangeLogLookInterval = .milliseconds(16)
            let recorder = SightingRecorder()
            controller.delegate = recorder
            controller.onChangesAvailable = { woken.wake(index) }
            try controller.performFetch()
            return (controller, recorder, reader)
        }
    }

    /// Applies woken viewers' changes on this thread until the `finisher` is called.
    func drain() throws {
        while true {
            let (woken, finished) = woken.take()
            for (index, at) in woken {
                viewers[index].recorder.wokenAt = at
                try viewers[index].controller.processPendingChanges()
            }
            if finished { return }
        }
    }

    /// What ends `drain()`, callable from any thread.
    var finisher: @Sendable () -> Void {
        let woken = woken
        return { woken.finish() }
    }

    /// Every viewer looks once more and is compared with a fresh fetch of the board at `url`.
    func report(freshFrom url: PostgresURL) throws -> FanoutViewerReport {
        for viewer in viewers {
            viewer.recorder.wokenAt = Monotonic.now()
            try viewer.controller.refresh()
        }
        let reader = PostgresReader(configuration: url.configuration)
        defer { reader.close() }
        let fresh = BenchRequest.postgresController(reader, request)
        try fresh.performFetch()
        let truth = fresh.snapshot()
        var report = FanoutViewerReport()
        for (index, viewer) in viewers.enumerated() {
            let snapshot = viewer.controller.snapshot()
            let converged = snapshot.sectionIdentifiers == truth.sectionIdentifiers && snapshot.itemIdentifiers == truth.itemIdentifiers
            report.viewers.append(.init(index: index, batches: viewer.recorder.batches, resets: viewer.recorder.resets,
                                        converged: converged, sightings: viewer.recorder.sightings))
        }
        report.rssKB = (try? MemoryProbe.statusKB("VmRSS")) ?? 0
        let outcomes = viewers.reduce(NotifiedOutcomes()) { $0.adding($1.reader.notifiedOutcomes(under: "team")) }
        let reads = viewers.reduce(0) { $0 + $1.reader.logReadsBegun(under: "team") }
        FileHandle.standardError.write(Data("[\(viewers.count) viewers in process \(getpid())] notifications: \(outcomes); log reads \(reads)\n".utf8))
        return report
    }

    /// Closes every viewer's connection.
    func close() {
        for viewer in viewers { viewer.reader.close() }
    }
}

/// Records, for one viewer, each row a batch reported, when that batch ended and when the
/// controller had said that changes were waiting.
private final class SightingRecorder: ResultsControllerDelegate {
    typealias Record = Team

    /// When `onChangesAvailable` woke the viewer whose changes are being processed.
    var wokenAt: UInt64 = 0
    private(set) var sightings: [FanoutViewerReport.Sighting] = []
    private(set) var batches = 0
    private(set) var resets = 0
    private var rows: [RecordID] = []

    func controller(_ controller: ResultsController<Team>, didChangeRecordWithID id: RecordID, at indexPath: IndexPath?, for type: ChangeKind, newIndexPath: IndexPath?) {
        rows.append(id)
    }

    func controllerDidChangeContent(_ controller: ResultsController<Team>) {
        let now = Monotonic.now()
        sightings += rows.map { .init(id: $0, at: now, woken: wokenAt) }
        rows.removeAll()
        batches += 1
    }

    /// A reset reports no rows: its taps stay unseen, and count as missed.
    func controllerDidResetContent(_ controller: ResultsController<Team>) {
        resets += 1
    }
}

/// The viewers woken since the drain last looked, each once, and whether to stop.
private final class WakeQueue: Sendable {
    private struct State {
        /// Each woken viewer once, with the time of its first wake-up since the last `take`.
        var woken: [(index: Int, at: UInt64)] = []
        var queued: [Bool]
        var finished = false
    }

    private let state: Mutex<State>
    private let signal = DispatchSemaphore(value: 0)

    init(count: Int) {
        state = Mutex(State(queued: Array(repeating: false, count: count)))
    }

    /// Called from an event loop when viewer `index` has changes waiting. Only the first
    /// viewer woken since the drain last took them signals it: a tap wakes every viewer at
    /// once, and one wake-up of the drain takes them all (a signal each made the drain's
    /// thread wake, and the event loops enter the kernel, once a viewer).
    func wake(_ index: Int) {
        let now = Monotonic.now()
        let first = state.withLock { state in
            guard !state.queued[index] else { return false }
            state.queued[index] = true
            state.woken.append((index, now))
            return state.woken.count == 1
        }
        if first { signal.signal() }
    }

    func finish() {
        state.withLock { $0.finished = true }
        signal.signal()
    }

    /// Waits for a wake-up, then takes every viewer woken so far.
    func take() -> (woken: [(index: Int, at: UInt64)], finished: Bool) {
        signal.wait()
        return state.withLock { state in
            defer {
                for woken in state.woken { state.queued[woken.index] = false }
                state.woken.removeAll()
            }
            return (state.woken, state.finished)
        }
    }
}

/// What one viewer process saw, as the lines it prints and the benchmark reads back.
struct FanoutViewerReport: Equatable {
    /// A row reported in a batch that ended at `at`, processed after `onChangesAvailable`
    /// woke the viewer at `woken` (monotonic nanoseconds, one clock for the machine).
    struct Sighting: Equatable {
        var id: RecordID
        var at: UInt64
        var woken: UInt64
    }

    struct Viewer: Equatable {
        var index: Int
        var batches: Int
        var resets: Int
        /// Whether the viewer's result equalled a fresh fetch after its last look.
        var converged: Bool
        var sightings: [Sighting]
    }

    var viewers: [Viewer] = []
    /// The process's resident memory, holding its viewers.
    var rssKB = 0

    /// `viewer <index> <batches> <resets> <converged 0|1> <id>:<ns>:<woken ns> …` per viewer, then `rss_kb <kB>`.
    var lines: [String] {
        viewers.map { viewer in
            (["viewer", String(viewer.index), String(viewer.batches), String(viewer.resets), viewer.converged ? "1" : "0"]
                + viewer.sightings.map { "\($0.id):\($0.at):\($0.woken)" }).joined(separator: " ")
        } + ["rss_kb \(rssKB)"]
    }

    /// Reads `lines` back; nil when a line is not one of them.
    init?(lines: some Sequence<String>) {
        for line in lines {
            let fields = line.split(separator: " ")
            if fields.first == "rss_kb", fields.count == 2, let kB = Int(fields[1]) {
                rssKB = kB
                continue
            }
            guard fields.first == "viewer", fields.count >= 5, let index = Int(fields[1]), let batches = Int(fields[2]),
                  let resets = Int(fields[3]), fields[4] == "0" || fields[4] == "1" else { return nil }
            var sightings: [Sighting] = []
            for field in fields.dropFirst(5) {
                let parts = field.split(separator: ":")
                guard parts.count == 3, let id = RecordID(parts[0]), let at = UInt64(parts[1]), let woken = UInt64(parts[2]) else { return nil }
                sightings.append(Sighting(id: id, at: at, woken: woken))
            }
            viewers.append(Viewer(index: index, batches: batches, resets: resets, converged: fields[4] == "1", sightings: sightings))
        }
    }

    init() {}
}

/// `worldcup-bench fanout-viewer --database-url URL --viewers K`: one process of the fan-out
/// benchmark's viewers (see `FanoutViewers`).
struct FanoutViewerCommand: ParsableCommand {
    static let configuration = CommandConfiguration.childProcess("fanout-viewer", abstract: "Hold viewers of a PostgreSQL board and print which taps each saw, and when (used by the fan-out benchmark).")

    @Option(name: .customLong("database-url"), help: ArgumentHelp("The board's PostgreSQL database (a postgres:// URL).", valueName: "url"))
    var databaseURL: String

    @Option(help: ArgumentHelp("How many viewers this process holds.", valueName: "n"))
    var viewers: Int

    @Flag(help: "Hold plain LISTEN connections instead of viewers (the benchmark's floor).")
    var raw = false

    @Option(help: ArgumentHelp("The viewers' request: joined (the board's own) or plain.", valueName: "request"))
    var request: FanoutRequest = .joined

    func validate() throws {
        guard PostgresURL(string: databaseURL) != nil else { throw ValidationError("--database-url must be a postgres:// URL.") }
        guard viewers >= 1 else { throw ValidationError("--viewers must be at least 1.") }
    }

    func run() throws {
        try BenchError.readable {
            guard let url = PostgresURL(string: databaseURL) else { return }
            if raw { return try listenRaw(url) }
            let group = try FanoutViewers(url: url, count: viewers, request: request)
            FanoutLine.say("ready \(viewers)")
            // The benchmark writes `finish` (or closes our input, should it end first).
            let finish = group.finisher
            Thread.detachNewThread {
                while let line = readLine(), line != "finish" {}
                finish()
            }
            try group.drain()
            let report = try group.report(freshFrom: url)
            for line in report.lines { FanoutLine.say(line) }
            FanoutLine.say("end")
            group.close()
        }
    }
}

extension FanoutViewerCommand {
    /// The floor's process: plain listeners until `finish`, then what they heard.
    private func listenRaw(_ url: PostgresURL) throws {
        let listeners = try RawListeners(url: url, count: viewers)
        FanoutLine.say("ready \(viewers)")
        while let line = readLine(), line != "finish" {}
        for line in listeners.report().lines { FanoutLine.say(line) }
        FanoutLine.say("end")
        listeners.close()
    }
}

/// Lines between the benchmark and its viewer processes.
enum FanoutLine {
    /// Writes a line to standard output at once (the benchmark waits for it).
    static func say(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }
}
