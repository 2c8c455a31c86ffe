import Foundation
import Glibc
import Testing

/// The built executables, beside this test bundle: `swift test` builds them first, as this
/// target depends on them, so the tests need no earlier build.
enum Executable {
    static let folder = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
    /// The `worldcup` command (or `WORLDCUP_BINARY`).
    static let worldcup = ProcessInfo.processInfo.environment["WORLDCUP_BINARY"].map(URL.init(fileURLWithPath:))
        ?? folder.appendingPathComponent("worldcup")
    /// The test helper that taps in a loop and prints each acknowledged tap.
    static let tapLoop = folder.appendingPathComponent("tap-loop")

    /// Runs an executable to completion: its exit status, standard output and standard error.
    static func run(_ arguments: [String], executable: URL = worldcup, input: FileHandle? = nil) throws -> (status: Int32, out: String, err: String) {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = input ?? FileHandle.nullDevice
        try process.run()
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
        return (process.terminationStatus, String(decoding: outData, as: UTF8.self), String(decoding: errData.data, as: UTF8.self))
    }

    /// Bytes one thread writes and another reads after a semaphore: @unchecked for that hand-off.
    final class DataBox: @unchecked Sendable {
        var data = Data()
    }
}

/// A fresh folder under the temporary directory, removed by `remove()`.
struct Folder {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("DurabilityTests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    func file(_ name: String) -> URL { url.appendingPathComponent(name) }

    /// Every file under the folder with its bytes (folders as nil): a picture to compare
    /// before and after, so that "untouched" also means "no new files beside it".
    func snapshot() -> [String: Data?] {
        var files: [String: Data?] = [:]
        let enumerator = FileManager.default.enumerator(at: url, includingPropertiesForKeys: [.isDirectoryKey])
        while let item = enumerator?.nextObject() as? URL {
            let isFolder = (try? item.resourceValues(forKeys: [.isDirectoryKey]).isDirectory) ?? false
            let relative = String(item.path.dropFirst(url.path.count))
            files[relative] = isFolder ? .some(nil) : .some(try? Data(contentsOf: item))
        }
        return files
    }

    func remove() {
        chmod(url.path, 0o755)
        try? FileManager.default.removeItem(at: url)
    }
}

/// Whether the tests run as root, for whom file permissions do not bar reading or writing.
let isRoot = geteuid() == 0

/// The one line a failing command prints: "Error: " and one sentence.
func isOneSentenceError(_ stderr: String) -> Bool {
    let lines = stderr.split(separator: "\n", omittingEmptySubsequences: false)
    guard lines.count == 2, lines[1].isEmpty, lines[0].hasPrefix("Error: ") else { return false }
    let sentence = lines[0].dropFirst("Error: ".count)
    guard let first = sentence.first, first.isUppercase, sentence.hasSuffix(".") else { return false }
    let body = sentence.dropLast()
    return ![". ", "! ", "? "].contains { body.contains($0) } && !body.hasSuffix(".")
}
