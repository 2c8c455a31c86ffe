import Testing
import LiveResults

/// The allocator setting an application applies at start (`SQLiteHeap`).
@Suite struct SQLiteHeapTests {
    @Test("glibc takes the raised trim threshold (mallopt answers 1 for a parameter it knows)")
    func glibcTakesTheTrimThreshold() {
        #if canImport(Glibc)
        #expect(SQLiteHeap.keepFreedPages())
        #else
        #expect(!SQLiteHeap.keepFreedPages())
        #endif
    }
}
