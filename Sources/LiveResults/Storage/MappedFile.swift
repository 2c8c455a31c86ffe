import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A whole file mapped into memory copy-on-write (`MAP_PRIVATE`): reading it reads the
/// system's cached pages of the file, and a page written is first copied for this process
/// alone, so the file itself never changes. Unmapped when the last `FlatArray` using its
/// pages goes.
///
/// A file mapped this way must not be shortened while it is mapped (reading a page past its
/// new end would stop the process): a section cache is only ever replaced whole, by renaming
/// a new file over it, which leaves the mapped one intact.
final class MappedFile: @unchecked Sendable {
    let base: UnsafeMutableRawPointer
    let size: Int

    /// The file at `path` mapped; nil when it cannot be opened or mapped, is empty or is not a
    /// regular file.
    init?(path: String) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG, status.st_size > 0 else { return nil }
        let size = Int(status.st_size)
        let address = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_PRIVATE, descriptor, 0)
        guard let address, address != MAP_FAILED else { return nil }
        base = address
        self.size = size
    }

    /// The ranges of bytes handed to arrays so far.
    private var claimed: [Range<Int>] = []
    private let lock = NSLock()

    var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: base, count: size) }

    /// Hands `range` of the file to one array; it must be inside the file and overlap no
    /// range handed out before (two arrays on the same pages would see each other's changes).
    func claim(_ range: Range<Int>) {
        lock.lock()
        defer { lock.unlock() }
        precondition(range.lowerBound >= 0 && range.upperBound <= size, "outside the file")
        precondition(!claimed.contains { $0.overlaps(range) }, "bytes \(range) of a mapped file handed to a second array")
        claimed.append(range)
    }

    deinit {
        munmap(base, size)
    }
}
