/// Process-wide allocator settings that suit an application whose results controllers read a
/// SQLite database. LiveResults never applies them itself (a library does not change its
/// host's allocator); the application calls `keepFreedPages()` once at start.
public enum SQLiteHeap {
    /// Keeps up to 64 MB of freed memory at the top of glibc's heap instead of giving it back
    /// to the system at once (`M_TRIM_THRESHOLD`; the default is 128 KB).
    ///
    /// SQLite drops a connection's whole page cache when it finds that another connection
    /// committed. With a small database every cached page sits at the top of the heap, so
    /// glibc gave the pages back at each commit and took them again, a page fault each, at
    /// the next read: at 1,000 rows that doubled a tap's time (about 14,000 `brk` calls in
    /// 5,000 taps; tap→batch p50 106–136 µs, 62–66 µs with this). Does nothing on another C
    /// library. Returns whether the setting was taken.
    @discardableResult
    public static func keepFreedPages() -> Bool {
        #if canImport(Glibc)
        return glibcMallopt(glibcTrimThreshold, 64 << 20) == 1
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
/// `M_TRIM_THRESHOLD` in `<malloc.h>`.
private let glibcTrimThreshold: Int32 = -1
#endif
