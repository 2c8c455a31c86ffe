import Foundation
import WorldCup

/// What SQLite keeps beside a database file, looked at without opening any of it: the
/// write-ahead log (`-wal`), whether a live connection holds the log's index (`-shm`), and a
/// rollback journal (`-journal`).
///
/// SQLite deletes the log when the last connection to a file closes. A log with commits in
/// it that no live connection holds is therefore SQLite's own evidence that the last program
/// to write the file ended without closing it (killed, crashed, or the machine stopped);
/// so is a rollback journal with content (a "hot journal"). That is when the full check pays.
/// A log that another open scoreboard holds is no such evidence.
struct SideFiles: Equatable {
    /// Bytes in the `-wal` file (0 when there is none).
    var walBytes: Int
    /// Bytes in the `-journal` file (0 when there is none).
    var journalBytes: Int
    /// Whether some process, this one included, holds the `-shm` file as a connection does.
    var walInUse: Bool

    /// Whether the last program to write the file ended without closing it.
    var showCrash: Bool {
        (walBytes > 0 && !walInUse) || journalBytes > 0
    }

    /// Looks beside the database at `path`.
    static func look(beside path: String, locks: FileLocks = .current()) -> SideFiles {
        SideFiles(walBytes: FileLocks.size(of: path + "-wal") ?? 0, journalBytes: FileLocks.size(of: path + "-journal") ?? 0,
                  walInUse: locks.isLocked(path + "-shm", at: deadManSwitch))
    }

    /// The byte of the `-shm` file that every connection holding it keeps a read lock on
    /// (SQLite's unix VFS: `UNIX_SHM_DMS`, the "dead man switch").
    static let deadManSwitch = 128
}

/// The POSIX locks of every process on this machine, from the kernel's list (`/proc/locks`).
///
/// Asking with `fcntl(F_GETLK)` instead would need the file open, and closing it would drop
/// every lock this process holds on it (POSIX locks belong to the process), pulling the rug
/// from under a connection this process may have on the same database. When the list cannot
/// be read it is empty: no file is locked, which at worst costs a full check.
struct FileLocks {
    /// One lock: the process, the file ("major:minor:inode", device numbers in hex, unpadded)
    /// and the bytes it covers.
    struct Lock: Equatable {
        var pid: Int32
        var file: String
        var bytes: ClosedRange<Int>
    }

    var locks: [Lock]

    static func current() -> FileLocks {
        FileLocks(listing: (try? String(contentsOfFile: "/proc/locks", encoding: .utf8)) ?? "")
    }

    /// Parses lines such as "1: POSIX  ADVISORY  READ 6706 fe:00:16319648 128 128" ("EOF"
    /// ends a range that runs to the end of the file). Other kinds (FLOCK, OFDLCK) are skipped.
    init(listing: String) {
        locks = listing.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: " ")
            guard fields.count >= 8, fields[1] == "POSIX", let pid = Int32(fields[4]), let file = Self.normalized(fields[5]),
                  let start = Int(fields[6]) else { return nil }
            let end = Int(fields[7]) ?? Int.max
            guard start <= end else { return nil }
            return Lock(pid: pid, file: file, bytes: start...end)
        }
    }

    /// Whether a process (any, or `pid`) holds a lock on the file at `path` covering `byte`
    /// (any byte when nil).
    func isLocked(_ path: String, at byte: Int? = nil, by pid: Int32? = nil) -> Bool {
        guard let file = Self.identity(of: path) else { return false }
        return locks.contains { lock in
            lock.file == file && (pid == nil || lock.pid == pid) && (byte.map { lock.bytes.contains($0) } ?? true)
        }
    }

    /// "major:minor:inode" of a file, as `/proc/locks` names it; nil when it does not exist.
    static func identity(of path: String) -> String? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        let device = UInt64(status.st_dev)
        let major = (device >> 8) & 0xFFF | (device >> 32) & ~0xFFF
        let minor = device & 0xFF | (device >> 12) & ~0xFF
        return String(major, radix: 16) + ":" + String(minor, radix: 16) + ":" + String(status.st_ino)
    }

    /// The size of a file in bytes; nil when it does not exist.
    static func size(of path: String) -> Int? {
        var status = stat()
        return stat(path, &status) == 0 ? Int(status.st_size) : nil
    }

    /// "fe:00:123" as "fe:0:123": the kernel pads the device numbers.
    private static func normalized(_ field: Substring) -> String? {
        let parts = field.split(separator: ":")
        guard parts.count == 3, let major = UInt64(parts[0], radix: 16), let minor = UInt64(parts[1], radix: 16) else { return nil }
        return String(major, radix: 16) + ":" + String(minor, radix: 16) + ":" + parts[2]
    }
}
