import Foundation
import Glibc
import Testing
import TestSupport

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
