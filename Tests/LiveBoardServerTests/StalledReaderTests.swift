import Foundation
import Synchronization
import Testing
import TestSupport
import WorldCup
import WorldCupSQLite

/// A browser that stops reading (a laptop closed, a tab frozen): its connection stays open and
/// its socket full. The server must neither hold the other browsers back for it nor keep for
/// it every event it could not send: what it has not sent is one merged batch, or the board
/// again, when it reads once more.
extension LiveBoardServerTests {
    @Test("A browser that stops reading holds no other back, and what the server keeps for it stays bounded: when it reads again it reaches the same version, megabytes short of what the others were sent")
    func stalledReader() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.server.path),
                     "Examples/LiveBoardServer is not built: run `make example` (make test does).")
        let folder = try TemporaryFolder(prefix: "live-board")
        defer { folder.remove() }
        let database = folder.file("board.sqlite")
        _ = try SQLiteTeamStore(databaseURL: database, seed: Seed.bundled(), author: "test")
        let (server, page) = try await Self.startServer(database.path)
        defer { server.stop() }

        // The stalled one asks for the events and never reads (a small receive buffer, so
        // that its socket is full within a few events); the other reads all the while.
        let stalled = try EventSocket(port: page.port!, receiveBuffer: 4096)
        defer { stalled.close() }
        let reader = try EventSocket(port: page.port!)
        defer { reader.close() }
        reader.readInBackground()
        try await reader.wait(10) { $0.versions.count >= 1 }

        // Each step wins every team a game, in a commit of its own (the sqlite3 shell, another
        // process): an event of every row, a few kilobytes. The steps run until far more than
        // the kernel's socket buffers (up to 4 MB each way here) went to the reader, so that
        // the stalled one's stream really waits on its socket.
        let shell = Process()
        shell.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        shell.arguments = [database.path]
        let input = Pipe()
        shell.standardInput = input
        shell.standardOutput = FileHandle.nullDevice
        try shell.run()
        input.fileHandleForWriting.write(Data(".timeout 5000\n".utf8))
        let steps = 2_500
        var latencies: [Double] = []
        var memory: [Int] = []
        for step in 1...steps {
            let seen = reader.state.withLock { $0.versions.last ?? 0 }
            input.fileHandleForWriting.write(Data("UPDATE team SET wins = wins + 1;\n".utf8))
            // The reader sees each step promptly, whatever the stalled one holds.
            let start = ContinuousClock.now
            try await reader.wait(10) { ($0.versions.last ?? 0) > seen }
            latencies.append((ContinuousClock.now - start) / .milliseconds(1))
            if step % 500 == 0 { memory.append(try Self.residentKilobytes(server.processIdentifier)) }
        }
        try input.fileHandleForWriting.close()
        shell.waitUntilExit()
        let last = try await reader.settled()
        latencies.sort()
        let p99 = latencies[latencies.count * 99 / 100]
        let readerState = reader.state.withLock { $0 }
        print("live-board-server, one browser stalled: \(steps) steps, the reader's p50 \(latencies[latencies.count / 2]) ms, p99 \(p99) ms, \(readerState.bytes) bytes in \(readerState.versions.count) events; server memory at each 500 steps \(memory) kB")
        #expect(p99 < 2_000, "the reader's p99 \(p99) ms")

        // The stalled one reads again: it catches up to the same version, having been sent
        // what its socket buffers held, then one merged batch or the board: fewer events,
        // and megabytes less than the reader.
        stalled.readInBackground()
        try await stalled.wait(30) { ($0.versions.last ?? 0) >= last }
        let stalledState = stalled.state.withLock { $0 }
        print("live-board-server, the stalled browser read again: \(stalledState.bytes) bytes in \(stalledState.versions.count) events (\(stalledState.snapshots) boards)")
        #expect(stalledState.versions.last == last)
        #expect(stalledState.versions.count < readerState.versions.count, "\(stalledState.versions.count) events against \(readerState.versions.count)")
        #expect(stalledState.bytes + 2_000_000 < readerState.bytes, "\(stalledState.bytes) bytes against \(readerState.bytes)")
        // What the server keeps for the stalled one is bounded: its memory does not grow with
        // the steps once the socket is full (a debug build, its allocator's noise allowed).
        #expect(memory.last! - memory[memory.count / 2] < 32 * 1024, "server memory at each 500 steps: \(memory) kB")
        server.interrupt()
        #expect(try await server.exitStatus() == 0)
    }

    /// The resident memory of process `pid`, in kilobytes (Linux's /proc).
    static func residentKilobytes(_ pid: Int32) throws -> Int {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") })
        return try #require(Int(line.split(separator: " ", omittingEmptySubsequences: true)[1]))
    }
}

/// A raw connection to the server's event stream, as a browser's EventSource makes it, whose
/// reading the test starts when it wants (never, for a browser that stopped reading).
final class EventSocket: Sendable {
    struct State: Sendable {
        var bytes = 0
        /// The `id:` of each event (its version), in order.
        var versions: [Int] = []
        var snapshots = 0
        var pending: [UInt8] = []
        var closed = false
        /// The last bytes read, as text (for a failure's message).
        var tail = ""
    }

    let state = Mutex(State())
    private let socket: Int32

    init(port: Int, receiveBuffer: Int32? = nil) throws {
        socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw Browser.BrowserFailure(description: "No socket: errno \(errno).") }
        if var size = receiveBuffer {
            // Before connecting: the window the server may fill is set at the handshake.
            setsockopt(socket, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw Browser.BrowserFailure(description: "The server refused the connection: errno \(errno).") }
        let request = Array("GET /events HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nAccept: text/event-stream\r\n\r\n".utf8)
        guard write(socket, request, request.count) == request.count else {
            throw Browser.BrowserFailure(description: "Writing the request failed: errno \(errno).")
        }
    }

    /// Reads everything the server sends from now on, on a thread of its own.
    func readInBackground() {
        let socket = socket
        Thread { [self] in
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                let count = read(socket, &buffer, buffer.count)
                guard count > 0 else {
                    state.withLock { $0.closed = true }
                    return
                }
                state.withLock { state in
                    state.bytes += count
                    state.tail = String((state.tail + String(decoding: buffer[0..<count], as: UTF8.self)).suffix(400))
                    // Whole lines only, split on bytes (a chunk's "\r\n" is one Character); the
                    // rest waits for its end.
                    state.pending += buffer[0..<count]
                    while let end = state.pending.firstIndex(of: UInt8(ascii: "\n")) {
                        let line = String(decoding: state.pending[..<end], as: UTF8.self)
                        if line.hasPrefix("id: "), let version = Int(line.dropFirst(4)) { state.versions.append(version) }
                        if line == "event: snapshot" { state.snapshots += 1 }
                        state.pending.removeSubrange(...end)
                    }
                }
            }
        }.start()
    }

    /// Waits up to `seconds` until `done` holds of what was read.
    func wait(_ seconds: Int, until done: (State) -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while !state.withLock({ done($0) }) {
            guard ContinuousClock.now < deadline, !state.withLock({ $0.closed }) else {
                throw Browser.BrowserFailure(description: "The event stream did not show what was awaited within \(seconds) s: \(state.withLock { ($0.bytes, $0.versions.suffix(3), $0.tail) }).")
            }
            try await Task.sleep(for: .milliseconds(1))
        }
    }

    /// The last version read once no event came for half a second (60 s at most).
    func settled() async throws -> Int {
        let deadline = ContinuousClock.now + .seconds(60)
        var last = state.withLock { $0.versions.last ?? 0 }
        while ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(500))
            let now = state.withLock { $0.versions.last ?? 0 }
            if now == last { return now }
            last = now
        }
        throw Browser.BrowserFailure(description: "The event stream did not settle within 60 s.")
    }

    func close() {
        shutdown(socket, Int32(SHUT_RDWR))
        Glibc.close(socket)
    }
}
