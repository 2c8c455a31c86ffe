/// How the scoreboard's process sets glibc's allocator, once at start, before any database is
/// opened (`worldcup` and `worldcup-bench`, whose controllers run as the app's do). The
/// settings are the process's, not LiveResults': a library does not change its host's
/// allocator.
public enum HeapTuning {
    /// Keeps freed memory in glibc's heap for reuse instead of giving it back to the system
    /// at once: it raises the threshold under which blocks come from the heap
    /// (`M_MMAP_THRESHOLD`) and the free space kept at the heap's top (`M_TRIM_THRESHOLD`),
    /// whose small defaults glibc raises only after a large block has been freed, and keeps
    /// one arena (`M_ARENA_MAX`).
    ///
    /// Why: SQLite drops a connection's whole page cache when it finds that another
    /// connection committed. With a small database nothing large had been freed yet, so glibc
    /// gave those pages back at every commit and took them again, a page fault each, at the
    /// next read: with a small table that was most of a tap's time (the README's benchmark
    /// section has the figures). The mapping threshold is raised with the trim threshold
    /// because setting one stops glibc from raising the other: large arrays (a million rows'
    /// keys) would then be mapped afresh, and fault, at every fetch.
    ///
    /// One arena, so that memory one thread freed is what the next allocation of another
    /// reuses: a filter's column is read on one worker thread and freed on another, and with
    /// an arena a thread the app kept two columns' worth of freed memory instead of one.
    ///
    /// Does nothing on another C library. Returns whether glibc took the three settings.
    @discardableResult
    public static func keepFreedPages() -> Bool {
        #if canImport(Glibc)
        let mapped = glibcMallopt(mmapThreshold, 32 << 20)
        let trimmed = glibcMallopt(trimThreshold, 64 << 20)
        let oneArena = glibcMallopt(arenaMax, 1)
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
private let trimThreshold: Int32 = -1
private let mmapThreshold: Int32 = -3
private let arenaMax: Int32 = -8
#endif
