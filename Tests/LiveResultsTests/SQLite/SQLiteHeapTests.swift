import Testing
import LiveResults

/// The allocator settings an application applies at start (`SQLiteHeap`).
@Suite struct SQLiteHeapTests {
    @Test("glibc takes the raised trim and mapping thresholds and the one arena (mallopt answers 1 for a parameter and value it accepts)")
    func glibcTakesTheSettings() {
        #if canImport(Glibc)
        #expect(SQLiteHeap.keepFreedPages())
        #else
        #expect(!SQLiteHeap.keepFreedPages())
        #endif
    }
}
