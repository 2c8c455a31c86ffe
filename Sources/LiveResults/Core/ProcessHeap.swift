/// The process's heap, as glibc keeps it.
enum ProcessHeap {
    /// Gives the heap's free pages back to the system (`malloc_trim(0)`), in every arena.
    ///
    /// A filter's column (tens of megabytes at a million rows) is read on one thread and freed
    /// on another. glibc keeps freed memory in the arena of the thread that allocated it, up to
    /// `M_TRIM_THRESHOLD` (64 MB when the app keeps freed pages, `SQLiteHeap`), and the next
    /// column may be read on a thread of another arena: without this, the app held two
    /// columns' worth after a few filters (163 MB instead of 116 at a million teams). It
    /// takes some milliseconds: call it off the main thread. Does nothing on another C library.
    static func returnFreedPages() {
        #if canImport(Glibc)
        _ = glibcMallocTrim(0)
        #endif
    }
}

#if canImport(Glibc)
/// glibc's `int malloc_trim(size_t pad)`, from `<malloc.h>`, which the Glibc module leaves out.
@_silgen_name("malloc_trim")
private func glibcMallocTrim(_ pad: Int) -> Int32
#endif
