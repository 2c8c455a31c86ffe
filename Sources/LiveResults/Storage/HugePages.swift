#if canImport(Glibc)
import Glibc
#endif

/// Arrays of many megabytes that are filled as soon as they are made (`FlatArray(count:
/// initializingWith:)`: the sections' slots and the id table at a cache load or a fetch, 4
/// bytes a row each): their memory is first advised to the system as worth backing with
/// huge pages, so that filling it takes a page fault every 2 MB instead of every 4 KB.
///
/// Only the whole 2 MB pages inside an array are advised; the rest of the process's memory
/// is left as it is. Where the system does not use huge pages, nothing changes. Arrays that
/// grow are not advised: a huge page that is partly used is resident whole.
///
/// The system zeroes fresh memory at its first write; so the pages of such an array are first
/// written on several threads at once (`faultIn`), and a fill that runs on one thread then
/// finds them ready.
enum HugePages {
    /// The size of a huge page on x86-64 and of the usual one on arm64.
    static let size = 2 << 20
    /// From how many bytes an array is advised.
    static let threshold = 4 << 20

    /// Advises the whole huge pages inside `buffer` (`MADV_HUGEPAGE`), before it is written.
    static func advise(_ buffer: UnsafeMutableRawBufferPointer) {
        #if canImport(Glibc)
        guard buffer.count >= threshold, let base = buffer.baseAddress else { return }
        let start = (Int(bitPattern: base) + size - 1) & ~(size - 1)
        let end = (Int(bitPattern: base) + buffer.count) & ~(size - 1)
        guard end > start else { return }
        _ = madvise(UnsafeMutableRawPointer(bitPattern: start), end - start, MADV_HUGEPAGE)
        #endif
    }

    /// Writes a zero in every 4 KB page of `buffer` (not yet initialized), on several threads
    /// when there are several processors, so that the system's faults and zeroing of fresh
    /// memory run side by side.
    static func faultIn(_ buffer: UnsafeMutableRawBufferPointer) {
        guard buffer.count >= threshold, ParallelChunks.processors > 1, let base = buffer.baseAddress else { return }
        let page = 4096
        nonisolated(unsafe) let pages = base
        ParallelChunks.forEach((buffer.count + page - 1) / page, parallel: true) { chunk in
            for index in chunk { pages.storeBytes(of: 0, toByteOffset: index * page, as: UInt8.self) }
        }
    }
}
