import CNCursesW
import Glibc
import Testing

/// Recurses until the stack runs out; each frame holds a kilobyte, so it cannot become a loop.
@inline(never)
func exhaustTheStack(_ depth: Int) -> Int {
    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 1024) { frame in
        frame[depth % 1024] = UInt8(truncatingIfNeeded: depth)
        return Int(frame[depth % 1024]) + exhaustTheStack(depth + 1)
    }
}

@Suite("Crash handlers")
struct CrashHandlerTests {
    @Test("A stack overflow still restores the terminal: the handlers run on an alternate signal stack")
    func stackOverflowRestoresTheTerminal() async throws {
        let result = await #expect(processExitsWith: .signal(SIGSEGV), observing: [\.standardOutputContent]) {
            // Without a terminal description, what a crash writes is the mouse-off sequence.
            cn_install_crash_handlers()
            guard cn_crash_handlers_have_stack() != 0 else { exit(3) }
            print(exhaustTheStack(0))
        }
        let output = String(decoding: result?.standardOutputContent ?? [], as: UTF8.self)
        #expect(output.contains("\u{1B}[?1006l\u{1B}[?1003l"), "the crash handler did not run: \(output.debugDescription)")
    }

    @Test("Removing the handlers gives the thread back the signal stack it had")
    func removingRestoresTheStack() {
        var before = stack_t()
        sigaltstack(nil, &before)
        cn_install_crash_handlers()
        #expect(cn_crash_handlers_have_stack() != 0)
        cn_remove_crash_handlers()
        var after = stack_t()
        sigaltstack(nil, &after)
        #expect(after.ss_sp == before.ss_sp)
        #expect(after.ss_size == before.ss_size)
        #expect(after.ss_flags & Int32(SS_DISABLE) == before.ss_flags & Int32(SS_DISABLE))
    }
}
