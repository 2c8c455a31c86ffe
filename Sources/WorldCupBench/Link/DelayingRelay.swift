import Foundation

/// The tests' `tcp-relay` (a product of the same build), started between this benchmark and
/// the server: each chunk is delivered `delayMilliseconds` after it was read, each way, as a
/// distant server's link does, so a request and its answer take twice that more.
final class DelayingRelay {
    let port: Int
    private let process: Process

    /// Starts the relay to `upstream` (a Unix socket's path), with `relay` the executable or
    /// the one beside this benchmark.
    init(upstream: String, delayMilliseconds: Int, relay: String?) throws {
        let executable = try TerminalBenchmark.locateExecutable("tcp-relay", relay, option: "--relay")
        let output = Pipe()
        process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["--die-with-parent", "--delay-ms", String(delayMilliseconds), "0", upstream]
        process.standardOutput = output
        do {
            try process.run()
        } catch {
            throw BenchError("Cannot start the relay \(executable).")
        }
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            line.append(chunk)
        }
        guard let port = Int(String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) else {
            process.terminate()
            throw BenchError("The relay \(executable) did not say which port it listens on.")
        }
        self.port = port
    }

    deinit { stop() }

    /// Kills the relay (a SIGTERM may find it blocked, as under a test runner).
    func stop() {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }
}
