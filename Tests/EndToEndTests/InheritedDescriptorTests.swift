import Foundation
import Glibc
import Testing
import ThrowawayPostgres

/// The programs the tests start that outlive the call (a PostgreSQL server and its watchdog,
/// a tmux server and the programs in its panes) keep no descriptor of the test process. A pipe
/// another test's thread had open at that moment would otherwise never reach its end while
/// they live, and `Executable.run`, which reads its child's output to the end, would wait for
/// ever (Foundation's `Pipe` is not close-on-exec).
@Suite("Descriptors the tests' long-lived programs must not inherit")
struct InheritedDescriptorTests {
    @Test("A pipe open while a throwaway PostgreSQL server starts reaches its end once we close it")
    func aServerKeepsNoPipeOfOurs() throws {
        let pipe = Pipe()
        let cluster = try ThrowawayPostgres.start()
        defer { cluster.stop() }
        try pipe.fileHandleForWriting.close()
        #expect(reachesItsEnd(pipe.fileHandleForReading.fileDescriptor), "the server or its watchdog holds the pipe")
    }

    @Test("A pipe open while a tmux server starts reaches its end once we close it")
    func aTerminalKeepsNoPipeOfOurs() throws {
        let pipe = Pipe()
        let terminal = try TmuxTerminal(command: ["sleep", "30"])
        _ = terminal
        try pipe.fileHandleForWriting.close()
        #expect(reachesItsEnd(pipe.fileHandleForReading.fileDescriptor), "the tmux server or its pane holds the pipe")
    }

    /// Whether reading `descriptor` gives end-of-file within 3 s (no writer is left).
    private func reachesItsEnd(_ descriptor: Int32) -> Bool {
        var request = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        guard poll(&request, 1, 3_000) == 1 else { return false }
        var byte: UInt8 = 0
        return read(descriptor, &byte, 1) == 0
    }
}
