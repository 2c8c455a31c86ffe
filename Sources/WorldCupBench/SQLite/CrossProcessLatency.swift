import ArgumentParser
import Dispatch
import Foundation
import LiveResults
import WorldCup
import WorldCupSQLite

/// Cross-process latency: process A (the benchmark) taps; process B (a child running
/// `worldcup-bench latency-listener`) holds a controller over the same database and reports
/// when each batch was delivered. CLOCK_MONOTONIC is one clock for every process of a machine.
enum CrossProcessLatency {
    /// Milliseconds from the start of each tap's write in this process to the end of the batch
    /// delivered in the child.
    static func measure(databasePath path: String, rows: Int, taps: [Int64], scoreboard: SQLiteTeamStore) throws -> [Double] {
        let output = Pipe()
        let input = Pipe()
        let process = try ChildProcess.startSelf(["latency-listener", "--database", path], output: output, input: input)
        var lines = LineReader(descriptor: output.fileHandleForReading.fileDescriptor)
        defer {
            try? input.fileHandleForWriting.close() // The listener exits when its input closes.
            process.waitUntilExit()
        }
        guard lines.next() == "ready \(rows)" else {
            throw BenchError("The latency listener did not start with \(rows) teams.")
        }
        var latencies: [Double] = []
        for id in taps {
            let start = Monotonic.now()
            try scoreboard.tap(teamID: id)
            guard let line = lines.next(), line.hasPrefix("batch "), let delivered = UInt64(line.dropFirst(6)) else {
                throw BenchError("The latency listener stopped reporting batches.")
            }
            latencies.append(delivered > start ? Double(delivered - start) / 1_000_000 : 0)
        }
        return latencies
    }

    /// The child's side: follows the database and prints `batch <monotonic ns>` after every
    /// delivered batch, until its standard input closes.
    static func listen(databasePath path: String) throws {
        guard FileManager.default.fileExists(atPath: path) else { throw BenchError("There is no database at \(path).") }
        let scoreboard = try SQLiteTeamStore(databaseURL: URL(fileURLWithPath: path), seedURL: nil)
        let controller = BenchRequest.controller(scoreboard)
        let recorder = BatchPrinter()
        controller.delegate = recorder
        let wake = DispatchSemaphore(value: 0)
        controller.onChangesAvailable = { wake.signal() }
        try controller.performFetch()
        // Exit when the parent closes our input.
        Thread.detachNewThread {
            var byte: UInt8 = 0
            while read(STDIN_FILENO, &byte, 1) > 0 {}
            exit(0)
        }
        say("ready \(controller.numberOfObjects)")
        while true {
            wake.wait()
            try controller.processPendingChanges()
        }
    }
}

/// Prints the time at the end of every batch.
private final class BatchPrinter: ResultsControllerDelegate {
    typealias Record = Team

    func controllerDidChangeContent(_ controller: ResultsController<Team>) {
        say("batch \(Monotonic.now())")
    }

    func controllerDidResetContent(_ controller: ResultsController<Team>) {
        say("batch \(Monotonic.now())")
    }
}

/// Writes a line to standard output at once (no buffering: the parent waits for it).
private func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

/// Lines from a file descriptor, read as they come.
struct LineReader {
    let descriptor: Int32
    private var buffer: [UInt8] = []

    init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    mutating func next() -> String? {
        while true {
            if let newline = buffer.firstIndex(of: 10) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeSubrange(...newline)
                return line
            }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let count = read(descriptor, &chunk, chunk.count)
            guard count > 0 else { return nil }
            buffer.append(contentsOf: chunk[..<count])
        }
    }
}

/// `worldcup-bench latency-listener --database PATH`: the other process of the cross-process
/// measurement.
struct LatencyListenerCommand: ParsableCommand {
    static let configuration = CommandConfiguration.childProcess("latency-listener", abstract: "Follow the database and print when each batch is delivered (used by the benchmark).")

    @Option(help: ArgumentHelp("The database to follow.", valueName: "path"))
    var database: String

    func run() throws {
        try BenchError.readable { try CrossProcessLatency.listen(databasePath: database) }
    }
}
