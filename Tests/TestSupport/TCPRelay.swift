import Foundation
import Glibc

/// The built `tcp-relay` (Tests/Helpers/TCPRelay) on 127.0.0.1: a network the tests can cut.
public struct TCPRelay {
    let process: Process
    /// The port it listens on.
    public let port: Int

    /// Starts a relay to `upstream` (a Unix socket's path, or host:port) on `port` (0: any free
    /// one) that delivers each chunk `delayMilliseconds` after reading it, each way.
    public init(upstream: String, port: Int = 0, delayMilliseconds: Int = 0) throws {
        process = Process()
        process.executableURL = Executable.folder.appendingPathComponent("tcp-relay")
        process.arguments = (delayMilliseconds > 0 ? ["--delay-ms", "\(delayMilliseconds)"] : []) + ["\(port)", upstream]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            guard !chunk.isEmpty else { throw CocoaError(.executableLoad, userInfo: [NSLocalizedDescriptionKey: "tcp-relay ended before listening"]) }
            line.append(chunk)
        }
        guard let chosen = Int(String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw CocoaError(.executableLoad, userInfo: [NSLocalizedDescriptionKey: "tcp-relay printed no port"])
        }
        self.port = chosen
    }

    /// Sends a signal: SIGSTOP freezes every connection (no FIN, no RST), SIGCONT resumes them.
    /// SIGSTOP returns once every thread of the relay has stopped: `kill` only asks, and on a
    /// busy machine a thread can still forward what it had read.
    public func signal(_ number: Int32) {
        Glibc.kill(process.processIdentifier, number)
        guard number == SIGSTOP else { return }
        let deadline = Date().addingTimeInterval(5)
        while !everyThreadStopped(), Date() < deadline { usleep(1_000) }
    }

    /// Whether every thread of the relay is stopped (state T in /proc).
    private func everyThreadStopped() -> Bool {
        let tasks = "/proc/\(process.processIdentifier)/task"
        guard let threads = try? FileManager.default.contentsOfDirectory(atPath: tasks) else { return false }
        return threads.allSatisfy { thread in
            // The state follows the command's closing parenthesis: "pid (comm) T ...".
            guard let stat = try? String(contentsOfFile: "\(tasks)/\(thread)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")") else { return false }
            return stat[stat.index(after: close)...].trimmingCharacters(in: .whitespaces).first == "T"
        }
    }

    /// Kills the relay: its connections are reset.
    public func kill() {
        signal(SIGKILL)
        process.waitUntilExit()
    }
}
