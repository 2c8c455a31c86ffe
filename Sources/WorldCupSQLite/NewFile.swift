import Foundation
import WorldCup

/// A file that appears whole or not at all: written beside its place under a temporary name,
/// flushed to disk, then linked into place, which fails when a file is there already (or
/// renamed over it, when replacing is asked for). A reader never sees half a file, and an
/// interrupted write leaves at most a hidden temporary file, which the next write removes.
public enum NewFile {
    /// Makes the file at `url` from what `fill` writes at the temporary URL it is given (a
    /// file it creates, in the same folder). Without `replacing`, an existing file at `url` is
    /// refused before `fill` runs, and again at the moment the new one is put in place; the
    /// sentence ends with `advice`. `what` names the file in sentences ("the backup").
    public static func create(at url: URL, what: String, replacing: Bool = false, advice: String = "give the name of a new file",
                              _ fill: (URL) throws -> Void) throws {
        try DatabaseFile.requireFolder(of: url, for: what)
        if !replacing { try refuseExisting(url, advice: advice) }
        let temporary = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).partial-\(getpid())")
        let sideFiles = ["", "-journal", "-wal", "-shm"].map { temporary.path + $0 }
        sideFiles.forEach { unlink($0) }
        defer { sideFiles.forEach { unlink($0) } }
        try fill(temporary)
        try flush(temporary.path)
        if replacing {
            guard rename(temporary.path, url.path) == 0 else { throw failure(url, errno) }
        } else {
            guard link(temporary.path, url.path) == 0 else {
                let code = errno
                if code == EEXIST { try refuseExisting(url, advice: advice) }
                throw failure(url, code)
            }
        }
        try flush(url.deletingLastPathComponent().path)
    }

    /// Writes what `data` returns as a new file at `url` (see `create`); `data` runs once the
    /// place is checked.
    public static func write(to url: URL, what: String, replacing: Bool = false,
                             advice: String = "give the name of a new file", _ data: () throws -> Data) throws {
        try create(at: url, what: what, replacing: replacing, advice: advice) { temporary in
            guard FileManager.default.createFile(atPath: temporary.path, contents: try data()) else {
                throw failure(url, errno)
            }
        }
    }

    /// Throws when something is at `url` already.
    private static func refuseExisting(_ url: URL, advice: String) throws {
        var status = stat()
        if lstat(url.path, &status) == 0 {
            throw WorldCupError("The file \(WorldCupError.quotable(url.path)) already exists, so nothing was written: \(advice).")
        }
    }

    /// Flushes a file or folder to the disk.
    private static func flush(_ path: String) throws {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw failure(URL(fileURLWithPath: path), errno) }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 || errno == EINVAL else { throw failure(URL(fileURLWithPath: path), errno) }
    }

    /// The sentence for a file that could not be written.
    private static func failure(_ url: URL, _ code: Int32) -> WorldCupError {
        WorldCupError("Cannot write \(WorldCupError.quotable(url.path)): \(WorldCupError.phrase(errno: code)); nothing was written.")
    }
}
