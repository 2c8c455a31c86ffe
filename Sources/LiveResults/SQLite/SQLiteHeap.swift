/// Process-wide allocator settings that suit an application whose results controllers read a
/// SQLite database. LiveResults never applies them itself (a library does not change its
/// host's allocator); the application calls `keepFreedPages()` once at start.
public enum SQLiteHeap {
    /// Keeps freed memory in glibc's heap for reuse instead of giving it back to the system
    /// at once: blocks under 32 MB come from the heap (`M_MMAP_THRESHOLD`) and up to 64 MB
    /// free at its top stays (`M_TRIM_THRESHOLD`; the defaults are 128 KB, raised by glibc
    /// only after a large block has been freed).
    ///
    /// SQLite drops a connection's whole page cache when it finds that another connection
    /// committed. With a small database nothing large had been freed yet, so glibc gave those
    /// pages back at every commit and took them again, a page fault each, at the next read:
    /// with a small table that was most of a tap's time (a few `brk` calls a tap; the README's
    /// benchmark section has the figures). The mapping threshold is raised with
    /// the trim threshold because setting one stops glibc from raising the other: large
    /// arrays (a million rows' keys) would then be mapped afresh, and fault, at every fetch.
    ///
    /// Every thread allocates from one arena (`M_ARENA_MAX` 1), so that memory one thread
    /// freed is what the next allocation of another reuses: a filter's column is read on one
    /// worker thread and freed on another, and with an arena a thread the app kept two
    /// columns' worth of freed memory instead of one.
    /// Does nothing on another C library. Returns whether glibc took the three settings.
    @discardableResult
    public static func keepFreedPages() -> Bool {
        #if canImport(Glibc)
        let mapped = glibcMallopt(glibcMmapThreshold, 32 << 20)
        let trimmed = glibcMallopt(glibcTrimThreshold, 64 << 20)
        let oneArena = glibcMallopt(glibcArenaMax, 1)
        return mapped == 1 && trimmed == 1 && oneArena == 1
        #else
        return false
        #endif
    }
}

#if canImport(Glibc)
/// glibc's `int mallopt(int param, int value)`, from `<malloc.h>`, which the Glibc module
/// leaves out.
@_silgen_name("mallopt")
private func glibcMallopt(_ parameter: Int32, _ value: Int32) -> Int32
/// `M_TRIM_THRESHOLD`, `M_MMAP_THRESHOLD` and `M_ARENA_MAX` in `<malloc.h>`.
private let glibcTrimThreshold: Int32 = -1
private let glibcMmapThreshold: Int32 = -3
private let glibcArenaMax: Int32 = -8
#endif
