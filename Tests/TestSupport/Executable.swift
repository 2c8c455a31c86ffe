import Foundation
import Synchronization

/// The built executables, beside the test bundle: `swift test` builds them first, as the test
/// targets depend on them, so the tests need no earlier build.
public enum Executable {
    public static let folder = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
    /// The `worldcup` command (or `WORLDCUP_BINARY`).
    public static let worldcup = ProcessInfo.processInfo.environment["WORLDCUP_BINARY"].map(URL.init(fileURLWithPath:))
        ?? folder.appendingPathComponent("worldcup")
    /// The benchmark, `worldcup-bench`.
    public static let worldcupBench = folder.appendingPathComponent("worldcup-bench")
    /// The test helper that taps in a loop and prints each acknowledged tap.
    public static let tapLoop = folder.appendingPathComponent("tap-loop")

    /// Runs an executable to completion: its exit status, standard output and standard error.
    /// `workingDirectory`: where it runs (by default, where the tests run). A run that lasts
    /// longer than `limit` is killed (its standard error says so), so that a
    /// program that hangs fails its test instead of stalling the whole suite.
    public static func run(_ arguments: [String], executable: URL = worldcup, input: FileHandle? = nil,
                           workingDirectory: URL? = nil, limit: Duration = .seconds(120)) throws -> (status: Int32, out: String, err: String) {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let workingDirectory { process.currentDirectoryURL = workingDirectory }
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = input ?? FileHandle.nullDevice
        try process.run()
        let overran = Mutex(false)
        // A cancelled work item stays queued until its deadline: it holds the process weakly, so
        // that the process's pipes close when this run returns and not `limit` later (hundreds of
        // runs a minute would otherwise keep thousands of descriptors open).
        let overdue = DispatchWorkItem { [weak process] in
            guard let process, process.isRunning else { return }
            overran.withLock { $0 = true }
            kill(process.processIdentifier, SIGKILL)
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(Int(limit.components.seconds * 1_000_000_000)), execute: overdue)
        defer { overdue.cancel() }
        // Read both pipes at once, so that neither can fill up and stall the child.
        let errData = DataBox()
        let done = DispatchSemaphore(value: 0)
        Thread {
            errData.data = err.fileHandleForReading.readDataToEndOfFile()
            done.signal()
        }.start()
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        done.wait()
        process.waitUntilExit()
        var errors = String(decoding: errData.data, as: UTF8.self)
        if overran.withLock({ $0 }) {
            errors += "\n(\(executable.lastPathComponent) \(arguments.joined(separator: " ")) was killed: it ran longer than \(limit))"
        }
        return (process.terminationStatus, String(decoding: outData, as: UTF8.self), errors)
    }

    /// Bytes one thread writes and another reads after a semaphore: @unchecked for that hand-off.
    final class DataBox: @unchecked Sendable {
        var data = Data()
    }
}
