import Foundation
import Glibc
import Testing
import TestSupport

/// Whether the tests run as root, for whom file permissions do not bar reading or writing.
let isRoot = geteuid() == 0

/// The one line a failing command prints: "Error: " and one sentence.
func isOneSentenceError(_ stderr: String) -> Bool {
    stderr.hasPrefix("Error: ") && stderr.hasSuffix("\n") && isOneSentence(stderr.dropFirst("Error: ".count).dropLast())
}

/// `url` with an empty file there, which every command takes for a new database (only the
/// board makes a file that does not exist).
@discardableResult
func emptyFile(_ url: URL) -> URL {
    _ = FileManager.default.createFile(atPath: url.path, contents: nil)
    return url
}

/// Starts tap-loop tapping Brazil `taps` times on `database`, its standard output and error
/// piped: it prints each acknowledged tap's win count on a line of its own.
func startTapLoop(on database: URL, taps: Int) throws -> (process: Process, out: Pipe, err: Pipe) {
    let process = Process()
    process.executableURL = Executable.tapLoop
    process.arguments = [database.path, "Brazil", "\(taps)"]
    let out = Pipe()
    let err = Pipe()
    process.standardOutput = out
    process.standardError = err
    try process.run()
    return (process, out, err)
}

/// Starts tap-loop tapping Brazil on `database` without end, reads its output until it has
/// acknowledged `taps` taps (or has ended by itself), and kills it with SIGKILL. Returns all
/// it printed (the lines already in the pipe at the kill too) and the ended process.
func killTapLoop(on database: URL, afterAcknowledged taps: Int) throws -> (output: String, process: Process) {
    let (process, out, _) = try startTapLoop(on: database, taps: 1_000_000)
    var output = Data()
    var lines = 0
    while lines < taps {
        let chunk = out.fileHandleForReading.availableData
        if chunk.isEmpty { break }  // the child ended: the caller's expectations say how
        output.append(chunk)
        lines += chunk.lazy.filter { $0 == UInt8(ascii: "\n") }.count
    }
    kill(process.processIdentifier, SIGKILL)
    output.append(out.fileHandleForReading.readDataToEndOfFile())
    process.waitUntilExit()
    return (String(decoding: output, as: UTF8.self), process)
}
