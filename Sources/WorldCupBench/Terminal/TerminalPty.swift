import Foundation
import Glibc
import SpawnActions

/// A pseudo-terminal whose master side this process holds, with one child program running on
/// its slave side as standard input, output and error, in a session of its own (so the
/// terminal is the child's controlling terminal, as in a real terminal window).
///
/// The child is started with `posix_spawn` and reaped with `waitpid` (Foundation's `Process`
/// can hang with some children). `close()`, and `deinit` as a last resort, never leave the
/// child behind: it is asked to quit, then terminated, then killed, and always reaped.
final class PseudoTerminal {
    /// The master side: what the child writes arrives here, and what is written here is typed.
    private(set) var master: Int32
    /// The child's process id.
    let pid: pid_t
    /// The child's wait status, once it has been reaped.
    private(set) var waitStatus: Int32?

    /// Starts `executable` with `arguments` and exactly `environment`, on a new terminal of
    /// `width` × `height` cells. Returns once the child exists (not once it has drawn).
    init(executable: String, arguments: [String], environment: [String: String], width: Int, height: Int) throws {
        let functions = try PtyFunctions.load()
        let master = functions.openpt(O_RDWR | O_NOCTTY)
        guard master >= 0 else { throw BenchError("Cannot open a pseudo-terminal: \(String(cString: strerror(errno))).") }
        var slavePath = [CChar](repeating: 0, count: 128)
        guard fcntl(master, F_SETFD, FD_CLOEXEC) == 0,
              functions.grantpt(master) == 0, functions.unlockpt(master) == 0,
              functions.ptsname_r(master, &slavePath, slavePath.count) == 0
        else {
            let reason = String(cString: strerror(errno))
            Glibc.close(master)
            throw BenchError("Cannot prepare the pseudo-terminal: \(reason).")
        }
        var size = winsize(ws_row: UInt16(height), ws_col: UInt16(width), ws_xpixel: 0, ws_ypixel: 0)
        guard ioctl(master, UInt(TIOCSWINSZ), &size) == 0 else {
            Glibc.close(master)
            throw BenchError("Cannot set the pseudo-terminal's size.")
        }
        do {
            pid = try Self.spawn(executable: executable, arguments: arguments, environment: environment, slavePath: String(decoding: slavePath.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        } catch {
            Glibc.close(master)
            throw error
        }
        _ = fcntl(master, F_SETFL, fcntl(master, F_GETFL) | O_NONBLOCK)
        self.master = master
    }

    deinit { close() }

    /// glibc's `POSIX_SPAWN_SETSID` (spawn.h, only under `_GNU_SOURCE`, so Swift's Glibc
    /// module does not import it): the child calls `setsid()` before its file actions, so
    /// opening the slave makes it the child's controlling terminal.
    private static let spawnSetSID: Int16 = 0x80

    /// Spawns the child in a new session with the slave on descriptors 0, 1 and 2, default
    /// signal dispositions and an empty signal mask.
    private static func spawn(executable: String, arguments: [String], environment: [String: String], slavePath: String) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, slavePath, O_RDWR, 0)
        posix_spawn_file_actions_adddup2(&actions, 0, 1)
        posix_spawn_file_actions_adddup2(&actions, 0, 2)
        // Nothing else of the benchmark's: not the master side, nor another child's pipe.
        spawn_actions_close_from(&actions, 3)

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGPIPE, SIGINT, SIGQUIT, SIGTERM, SIGHUP, SIGCHLD, SIGWINCH] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        spawn_attributes_unblock_signals(&attributes, Self.spawnSetSID | Int16(POSIX_SPAWN_SETSIGDEF))

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        guard result == 0 else {
            throw BenchError("Cannot start \(executable): \(String(cString: strerror(result))).")
        }
        return pid
    }

    // MARK: - Typing and reading

    /// Types `bytes`, as a terminal does for one key: in a single write.
    func type(_ bytes: [UInt8]) throws {
        let written = bytes.withUnsafeBytes { write(master, $0.baseAddress, $0.count) }
        guard written == bytes.count else { throw BenchError("Cannot type into the pseudo-terminal.") }
    }

    /// What one `read` of the master side gave.
    enum ReadResult {
        /// Bytes the child wrote, with the monotonic time (ns) they were read.
        case bytes([UInt8], at: UInt64)
        /// Nothing arrived before the timeout.
        case timeout
        /// The slave side is closed: the child has gone.
        case closed
    }

    /// Waits up to `timeoutNanoseconds` for output and reads what is there (at most 64 KiB).
    func read(timeoutNanoseconds: UInt64) -> ReadResult {
        var descriptor = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
        let milliseconds = Int32(min((timeoutNanoseconds + 999_999) / 1_000_000, 3_600_000))
        let ready = poll(&descriptor, 1, milliseconds)
        if ready == 0 || (ready < 0 && errno == EINTR) { return .timeout }
        var buffer = [UInt8](repeating: 0, count: 65_536)
        let count = buffer.withUnsafeMutableBytes { Glibc.read(master, $0.baseAddress, $0.count) }
        let now = Monotonic.now()
        if count > 0 { return .bytes(Array(buffer[0..<count]), at: now) }
        if count < 0, errno == EAGAIN || errno == EINTR { return .timeout }
        // EIO (or end of file) on a master: no process holds the slave any more.
        return .closed
    }

    // MARK: - Ending

    /// Whether the child has exited (reaping it if so).
    func reapIfExited() -> Bool {
        if waitStatus != nil { return true }
        var status: Int32 = 0
        let result = waitpid(pid, &status, WNOHANG)
        if result == pid || (result < 0 && errno == ECHILD) {
            waitStatus = status
            return true
        }
        return false
    }

    /// Waits up to `seconds` for the child to exit, draining its output meanwhile so that it
    /// never blocks on a full terminal. Returns whether it exited.
    @discardableResult
    func waitForExit(seconds: Double) -> Bool {
        let deadline = Monotonic.now() + UInt64(seconds * 1e9)
        while !reapIfExited() {
            let now = Monotonic.now()
            guard now < deadline else { return false }
            if case .closed = read(timeoutNanoseconds: min(10_000_000, deadline - now)) {
                // Output is over; the exit itself may be a moment behind.
                usleep(1_000)
            }
        }
        return true
    }

    /// Ends the child if it still runs (SIGTERM, then SIGKILL), reaps it, and closes the
    /// master side. Safe to call more than once.
    func close() {
        if master >= 0 {
            if !reapIfExited() {
                kill(pid, SIGTERM)
                if !waitForExit(seconds: 2) {
                    kill(pid, SIGKILL)
                    var status: Int32 = 0
                    while waitpid(pid, &status, 0) < 0, errno == EINTR {}
                    waitStatus = status
                }
            }
            Glibc.close(master)
            master = -1
        }
    }

    /// The child's exit code, if it exited normally.
    var exitCode: Int32? {
        guard let status = waitStatus, status & 0x7f == 0 else { return nil }
        return (status >> 8) & 0xff
    }
}

/// The POSIX pseudo-terminal functions, looked up in the C library at run time: glibc declares
/// them only under `_XOPEN_SOURCE`, so Swift's Glibc module does not import them.
private struct PtyFunctions {
    var openpt: @convention(c) (Int32) -> Int32
    var grantpt: @convention(c) (Int32) -> Int32
    var unlockpt: @convention(c) (Int32) -> Int32
    var ptsname_r: @convention(c) (Int32, UnsafeMutablePointer<CChar>?, Int) -> Int32

    static func load() throws -> PtyFunctions {
        func symbol<T>(_ name: String, as type: T.Type) throws -> T {
            // A nil handle is RTLD_DEFAULT: the libraries this process already loaded.
            guard let address = dlsym(nil, name) else { throw BenchError("The C library has no \(name).") }
            return unsafeBitCast(address, to: type)
        }
        return PtyFunctions(
            openpt: try symbol("posix_openpt", as: (@convention(c) (Int32) -> Int32).self),
            grantpt: try symbol("grantpt", as: (@convention(c) (Int32) -> Int32).self),
            unlockpt: try symbol("unlockpt", as: (@convention(c) (Int32) -> Int32).self),
            ptsname_r: try symbol("ptsname_r", as: (@convention(c) (Int32, UnsafeMutablePointer<CChar>?, Int) -> Int32).self)
        )
    }
}
