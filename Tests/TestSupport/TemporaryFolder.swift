import Foundation
import Glibc

/// A fresh folder under the temporary directory for one test's files, removed by `remove()`.
public struct TemporaryFolder: Sendable {
    public let url: URL

    /// Creates the folder; `prefix` names the suite in its name, for a person looking in /tmp.
    public init(prefix: String = "worldcup-tests") throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// A path inside the folder.
    public func file(_ name: String) -> URL {
        url.appendingPathComponent(name)
    }

    /// The database path inside the folder, as the app names it (the file need not exist yet).
    public var database: URL { file("WorldCup.sqlite") }

    /// Every file under the folder with its bytes (folders as nil): a picture to compare
    /// before and after, so that "untouched" also means "no new files beside it".
    public func snapshot() -> [String: Data?] {
        var files: [String: Data?] = [:]
        let enumerator = FileManager.default.enumerator(at: url, includingPropertiesForKeys: [.isDirectoryKey])
        while let item = enumerator?.nextObject() as? URL {
            let isFolder = (try? item.resourceValues(forKeys: [.isDirectoryKey]).isDirectory) ?? false
            let relative = String(item.path.dropFirst(url.path.count))
            files[relative] = isFolder ? .some(nil) : .some(try? Data(contentsOf: item))
        }
        return files
    }

    /// Removes the folder and everything in it (even after a test took its permissions away).
    public func remove() {
        chmod(url.path, 0o755)
        try? FileManager.default.removeItem(at: url)
    }
}
