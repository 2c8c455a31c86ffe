import Foundation
import Synchronization

/// Text a reading thread appends to and the test reads.
public final class SharedText: Sendable {
    private let text = Mutex("")
    public func append(_ data: Data) { text.withLock { $0 += String(decoding: data, as: UTF8.self) } }
    public var value: String { text.withLock { $0 } }
}

/// A program running while the test talks to it: its standard output and error as they come.
public final class RunningProgram {
    private let process: Process
    private let outputText = SharedText()
    private let errorText = SharedText()

    public init(_ executable: URL, _ arguments: [String]) throws {
        process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.standardInput = FileHandle.nullDevice
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        for (pipe, text) in [(out, outputText), (err, errorText)] {
            let handle = pipe.fileHandleForReading
            Thread {
                while true {
                    let data = handle.availableData
                    if data.isEmpty { return }
                    text.append(data)
                }
            }.start()
        }
    }

    /// The program's process id (to read its /proc entries).
    public var processIdentifier: Int32 { process.processIdentifier }

    public var output: String { outputText.value }
    public var error: String { errorText.value }

    /// Waits (10 s at most) until standard output is exactly `text`.
    public func waitFor(output text: String) async throws {
        try await waitUntil("standard output to be:\n\(text)") { output == text }
    }

    /// Waits (10 s at most) until standard output contains `text`.
    public func waitFor(outputContaining text: String) async throws {
        try await waitUntil("standard output to contain \(text)") { output.contains(text) }
    }

    /// Waits (10 s at most) until standard error contains `text`.
    public func waitFor(error text: String) async throws {
        try await waitUntil("standard error to contain \(text)") { error.contains(text) }
    }

    private func waitUntil(_ what: String, _ done: () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(10)
        while !done() {
            guard ContinuousClock.now < deadline, process.isRunning else {
                throw WaitFailure(description: "Waited for \(what)\nstdout:\n\(output)\nstderr:\n\(error)")
            }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    /// Ctrl-C.
    public func interrupt() {
        kill(process.processIdentifier, SIGINT)
    }

    /// The exit status, once it ended (10 s at most).
    public func exitStatus() async throws -> Int32 {
        let deadline = ContinuousClock.now + .seconds(10)
        while process.isRunning {
            guard ContinuousClock.now < deadline else {
                throw WaitFailure(description: "The program did not end.")
            }
            try await Task.sleep(for: .milliseconds(10))
        }
        return process.terminationStatus
    }

    /// What a wait that timed out (or whose program ended) throws: what it waited for, and
    /// what the program wrote.
    public struct WaitFailure: Error, CustomStringConvertible {
        public var description: String
    }

    /// Kills it if it still runs.
    public func stop() {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }
}
