import Foundation
import Glibc

/// The built `tcp-relay` (Tests/Helpers/TCPRelay) on 127.0.0.1: a network the tests can cut.
public struct TCPRelay {
    let process: Process
    /// The port it listens on.
    public let port: Int

    /// Starts a relay to `upstream` (a Unix socket's path, or host:port) on `port` (0: any free one).
    public init(upstream: String, port: Int = 0) throws {
        process = Process()
        process.executableURL = Executable.folder.appendingPathComponent("tcp-relay")
        process.arguments = ["\(port)", upstream]
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
    public func signal(_ number: Int32) {
        Glibc.kill(process.processIdentifier, number)
    }

    /// Kills the relay: its connections are reset.
    public func kill() {
        signal(SIGKILL)
        process.waitUntilExit()
    }
}
