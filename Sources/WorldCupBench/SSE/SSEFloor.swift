import Foundation
import Synchronization

/// `worldcup-bench sse --floor`: what delivering one small event to N open event streams costs
/// on this machine without LiveResults, a database or an HTTP framework. The same subscribers
/// (`SSESubscribers`, read by one epoll thread) connect to `SSEFloorServer`, and each tap is
/// the event a tap gives in live-board-server (a `batches` event of one row, as large), written
/// by one thread to every socket in turn. Its p99 at N is the least the server's can be.
struct SSEFloor {
    var subscribers: Int
    var taps: Int
    var warmUpTaps = 2
    var interval: Duration

    /// Whether `subscribers` streams fit under the open-file `limit`: two sockets each here.
    static func fits(_ subscribers: Int, limit: Int) -> Bool {
        2 * subscribers + 1_000 <= limit
    }

    func run() throws -> SSERunResult {
        let label = "[floor, \(subscribers) subscribers]"
        let server = try SSEFloorServer()
        defer { server.stop() }
        let book = TapBook()
        let readers = SSESubscribers(count: subscribers, port: server.port, book: book, maxTaps: warmUpTaps + taps)
        let connectStart = Monotonic.now()
        readers.start()
        defer { readers.stop() }
        let timeout = SSEBenchmark.deliveryTimeout(subscribers: subscribers)
        guard try readers.wait(until: { $0.ready == subscribers }, timeout: timeout) else {
            throw BenchError("Only \(readers.current.ready) of \(subscribers) subscribers connected to the floor server within \(timeout).")
        }
        var result = SSERunResult(subscribers: subscribers, taps: taps)
        result.connectSeconds = Monotonic.milliseconds(from: connectStart, to: Monotonic.now()) / 1000
        Progress.say("\(label) every subscriber is connected; writing \(warmUpTaps) + \(taps) events, one every \(interval)")

        var writing = 0.0
        var next = ContinuousClock.now
        for tap in 0..<(warmUpTaps + taps) {
            // A row of the board, and wins no earlier tap gave it.
            let placed = BoardEvents.Placed(id: Int64(tap % 32 + 1), wins: 100 + tap)
            let start = Monotonic.now()
            _ = book.register(placed, start: start)
            let cpu = Self.threadCPUSeconds()
            try server.send(Self.event(placed, version: tap + 1))
            if tap >= warmUpTaps { writing += Self.threadCPUSeconds() - cpu }
            next += interval
            Thread.sleep(forTimeInterval: max(0, (next - ContinuousClock.now) / .seconds(1)))
        }
        _ = try readers.wait(until: { $0.seen == (warmUpTaps + taps) * subscribers }, timeout: timeout)
        result.cpuMsPerTap = writing * 1000 / Double(taps)
        readers.stop()
        let status = readers.current
        result.laterSnapshots = status.laterSnapshots
        result.duplicates = status.duplicates
        result.tally(seen: readers.seen, starts: book.starts, warmUpTaps: warmUpTaps, subscribers: subscribers)
        Progress.say("\(label) \(result.summary)")
        return result
    }

    /// A tap's event as live-board-server writes it: one row moved, with its team's values.
    static func event(_ placed: BoardEvents.Placed, version: Int) -> String {
        let team = #"{"id":\#(placed.id),"name":"Bosnia and Herzegovina","wins":\#(placed.wins)}"#
        return #"id: \#(version)\#nevent: batches\#ndata: [{"version":\#(version),"sections":[],"rows":[{"kind":"move","id":\#(placed.id),"from":[3,2],"to":[3,0],"team":\#(team)}]}]\#n\#n"#
    }

    /// The CPU time of the calling thread, in seconds.
    static func threadCPUSeconds() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}

/// The least an event-stream server can be: plain blocking sockets on the loopback. A thread
/// accepts each connection, reads its request and answers with the head and an empty board;
/// `send` writes an event, as one HTTP chunk (live-board-server's framing), to every stream.
final class SSEFloorServer: Sendable {
    let port: Int
    private let listener: Int32
    private let streams = Mutex<[Int32]>([])
    private let accepted = DispatchSemaphore(value: 0)

    init() throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw BenchError("The floor server got no socket (errno \(errno)).") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(descriptor, pointer, length) == 0 && listen(descriptor, 1024) == 0 && getsockname(descriptor, pointer, &length) == 0
            }
        }
        guard bound else {
            close(descriptor)
            throw BenchError("The floor server cannot listen on the loopback (errno \(errno)).")
        }
        listener = descriptor
        port = Int(UInt16(bigEndian: address.sin_port))
        let thread = Thread { [self] in acceptAll() }
        thread.stackSize = 1 << 20
        thread.start()
    }

    /// Accepts streams until `stop()` shuts the listener down.
    private func acceptAll() {
        let head = Array(("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\nTransfer-Encoding: chunked\r\n\r\n"
            + Self.chunk(#"event: snapshot\#ndata: {"version":0,"sections":[]}\#n\#n"#)).utf8)
        var request = [UInt8](repeating: 0, count: 4096)
        while true {
            let stream = accept(listener, nil, nil)
            guard stream >= 0 else {
                if errno == EINTR || errno == ECONNABORTED { continue }
                break
            }
            var noDelay: Int32 = 1
            setsockopt(stream, Int32(IPPROTO_TCP), TCP_NODELAY, &noDelay, socklen_t(MemoryLayout<Int32>.size))
            // The subscribers send their request in one write; its end is all that matters here.
            var read = 0
            while read < 4 || !request[read - 4..<read].elementsEqual([13, 10, 13, 10]) {
                let got = request.withUnsafeMutableBytes { Glibc.read(stream, $0.baseAddress! + read, $0.count - read) }
                guard got > 0, read + got < request.count else { break }
                read += got
            }
            if Self.writeAll(stream, head) { streams.withLock { $0.append(stream) } } else { close(stream) }
        }
        accepted.signal()
    }

    /// Writes `event` to every stream, in the order they connected.
    func send(_ event: String) throws {
        let bytes = Array(Self.chunk(event).utf8)
        for stream in streams.withLock({ $0 }) where !Self.writeAll(stream, bytes) {
            throw BenchError("The floor server could not write to a subscriber (errno \(errno)).")
        }
    }

    /// Stops accepting and closes every stream.
    func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
        accepted.wait()
        close(listener)
        for stream in streams.withLock({ $0 }) { close(stream) }
    }

    private static func chunk(_ text: String) -> String {
        String(text.utf8.count, radix: 16) + "\r\n" + text + "\r\n"
    }

    private static func writeAll(_ stream: Int32, _ bytes: [UInt8]) -> Bool {
        var sent = 0
        while sent < bytes.count {
            let wrote = bytes.withUnsafeBytes { write(stream, $0.baseAddress! + sent, $0.count - sent) }
            if wrote < 0, errno == EINTR { continue }
            guard wrote > 0 else { return false }
            sent += wrote
        }
        return true
    }
}
