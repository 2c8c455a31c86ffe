import CEpoll
import Foundation
import Synchronization

/// The taps of a run, numbered in order: each known by the row and wins it gives the team
/// (`BoardEvents.Placed`), registered with its start time before its write is sent, so that
/// a batch carrying it can never arrive first.
final class TapBook: Sendable {
    private struct Entries {
        var numbers: [BoardEvents.Placed: Int] = [:]
        var starts: [UInt64] = []
    }
    private let entries = Mutex(Entries())

    /// Registers the tap that will give `row.id` `row.wins` wins, starting now; returns its number.
    func register(_ row: BoardEvents.Placed, start: UInt64) -> Int {
        entries.withLock { entries in
            entries.numbers[row] = entries.starts.count
            entries.starts.append(start)
            return entries.starts.count - 1
        }
    }

    /// The number of the tap that gives `row` its wins, if it is one of the run's.
    func number(of row: BoardEvents.Placed) -> Int? {
        entries.withLock { $0.numbers[row] }
    }

    /// Every tap registered so far, by row.
    var all: [BoardEvents.Placed: Int] { entries.withLock { $0.numbers } }

    /// When each tap started (monotonic nanoseconds), in order.
    var starts: [UInt64] { entries.withLock { $0.starts } }
}

/// `count` subscribers to the board's event stream (`GET /events` on 127.0.0.1:`port`), all
/// read by one thread of their own with epoll, as many browsers would be. Each notes when it
/// read the batch carrying each tap of `book` (monotonic nanoseconds, when the read returned).
///
/// At most `maxConnecting` connections wait for their board at once: the server's listen
/// queue is short, and a connection it drops would wait a second for its retry.
final class SSESubscribers: @unchecked Sendable { // `connections`, `seen` and `parsed` are the reader thread's until `stop()` joins it; the rest is behind Mutexes.
    /// What the other threads may ask while the reader runs.
    struct Status: Sendable {
        /// Subscribers that have their board (the first `snapshot` event).
        var ready = 0
        /// (tap, subscriber) pairs seen.
        var seen = 0
        /// Boards received after the first (a subscriber behind, or a reset).
        var laterSnapshots = 0
        /// A batch of a tap read twice by one subscriber.
        var duplicates = 0
        /// The first thing that went wrong, in one sentence.
        var failure: String?
    }

    let count: Int
    let port: Int
    let book: TapBook
    let maxTaps: Int
    static let maxConnecting = 128

    private let status = Mutex(Status())
    private let stopping = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)
    private var connections: [Connection] = []
    /// When subscriber `s` read tap `t`: `seen[t * count + s]` (0: not yet).
    private(set) var seen: [UInt64]
    /// The rows of each `batches` data already read: every subscriber reads the same text.
    private var parsed: [String: [BoardEvents.Placed]] = [:]

    private struct Connection {
        var descriptor: Int32 = -1
        var parser = EventStreamParser()
        var connected = false
        var hasBoard = false
    }

    init(count: Int, port: Int, book: TapBook, maxTaps: Int) {
        self.count = count
        self.port = port
        self.book = book
        self.maxTaps = maxTaps
        seen = Array(repeating: 0, count: maxTaps * count)
        connections = Array(repeating: Connection(), count: count)
    }

    var current: Status { status.withLock { $0 } }

    /// Starts the reader thread, which connects every subscriber and reads until `stop()`.
    func start() {
        let thread = Thread { [self] in
            do { try read() } catch { fail("\(error)") }
            for connection in connections where connection.descriptor >= 0 { Self.closeAbruptly(connection.descriptor) }
            finished.signal()
        }
        thread.stackSize = 1 << 20
        thread.start()
    }

    /// Ends the reader thread, closing every connection; then `seen` is final.
    func stop() {
        guard !stopping.exchange(true, ordering: .acquiringAndReleasing) else { return }
        finished.wait()
    }

    /// Waits until `condition` holds of the status, or `timeout` passes, or a subscriber
    /// fails; returns whether it holds.
    func wait(until condition: (Status) -> Bool, timeout: Duration) throws -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let now = current
            if let failure = now.failure { throw BenchError(failure) }
            if condition(now) { return true }
            Thread.sleep(forTimeInterval: 0.005)
        }
        return condition(current)
    }

    private func fail(_ sentence: String) {
        status.withLock { if $0.failure == nil { $0.failure = sentence } }
    }

    private func read() throws {
        let poll = cepoll_create()
        guard poll >= 0 else { throw BenchError("epoll_create failed (errno \(errno)).") }
        defer { close(poll) }
        var opened = 0
        var connecting = 0
        var ready = [UInt64](repeating: 0, count: 1024)
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while !stopping.load(ordering: .acquiring) {
            while opened < count, connecting < Self.maxConnecting {
                try open(opened, poll: poll)
                opened += 1
                connecting += 1
            }
            let readyCount = cepoll_wait(poll, &ready, Int32(ready.count), 20)
            if readyCount < 0 {
                if errno == EINTR { continue }
                throw BenchError("epoll_wait failed (errno \(errno)).")
            }
            for number in ready.prefix(Int(readyCount)) {
                let index = Int(number)
                if !connections[index].connected {
                    try sendRequest(index, poll: poll)
                    continue
                }
                let got = buffer.withUnsafeMutableBytes { Glibc.read(connections[index].descriptor, $0.baseAddress!, $0.count) }
                let now = Monotonic.now()
                if got < 0, errno == EAGAIN || errno == EINTR { continue }
                guard got > 0 else {
                    throw BenchError("The server closed subscriber \(index)'s event stream (\(got < 0 ? "errno \(errno)" : "end of stream")).")
                }
                let arrived = try buffer.withUnsafeBytes { try connections[index].parser.feed(UnsafeRawBufferPointer(rebasing: $0[..<got])) }
                for item in arrived where handle(item, subscriber: index, at: now) { connecting -= 1 }
            }
        }
    }

    /// Opens subscriber `index`'s connection (non-blocking; `sendRequest` follows when it is made).
    private func open(_ index: Int, poll: Int32) throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else {
            throw BenchError("Subscriber \(index) got no socket (errno \(errno)): raise the open-file limit (ulimit -n).")
        }
        connections[index].descriptor = descriptor
        var noDelay: Int32 = 1
        setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &noDelay, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 || errno == EINPROGRESS else { throw BenchError("Subscriber \(index) could not connect (errno \(errno)).") }
        guard cepoll_watch(poll, descriptor, UInt64(index), 1, 0) == 0 else { throw BenchError("epoll_ctl failed (errno \(errno)).") }
    }

    /// The connection is made: sends the request, then waits for its answer.
    private func sendRequest(_ index: Int, poll: Int32) throws {
        let descriptor = connections[index].descriptor
        var error: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        getsockopt(descriptor, SOL_SOCKET, SO_ERROR, &error, &length)
        guard error == 0 else { throw BenchError("Subscriber \(index) could not connect to the server (errno \(error)).") }
        let request = "GET /events HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nAccept: text/event-stream\r\nCache-Control: no-cache\r\n\r\n"
        let sent = request.utf8CString.withUnsafeBufferPointer { write(descriptor, $0.baseAddress!, $0.count - 1) }
        guard sent == request.utf8.count else { throw BenchError("Subscriber \(index) could not send its request (errno \(errno)).") }
        connections[index].connected = true
        guard cepoll_watch(poll, descriptor, UInt64(index), 0, 1) == 0 else { throw BenchError("epoll_ctl failed (errno \(errno)).") }
    }

    /// Notes what one event tells; returns whether it gave the subscriber its first board.
    private func handle(_ event: EventStreamParser.Event, subscriber: Int, at now: UInt64) -> Bool {
        switch event.name {
        case "snapshot":
            if !connections[subscriber].hasBoard {
                connections[subscriber].hasBoard = true
                status.withLock { $0.ready += 1 }
                return true
            }
            // A board again: the taps it shows count as read now.
            guard let rows = BoardEvents.rows(inSnapshot: event.data) else { fail("A snapshot event's data is not the board's JSON."); return false }
            let wins = Dictionary(rows.map { ($0.id, $0.wins) }, uniquingKeysWith: max)
            let taps = book.all.filter { row, _ in (wins[row.id] ?? -1) >= row.wins }.map(\.value)
            var newlySeen = 0
            for tap in taps where tap < maxTaps && seen[tap * count + subscriber] == 0 {
                seen[tap * count + subscriber] = now
                newlySeen += 1
            }
            status.withLock { $0.laterSnapshots += 1; $0.seen += newlySeen }
        case "batches":
            let rows: [BoardEvents.Placed]
            if let known = parsed[event.data] {
                rows = known
            } else {
                guard let read = BoardEvents.placedRows(inBatches: event.data) else { fail("A batches event's data is not the page's JSON."); return false }
                parsed[event.data] = read
                rows = read
            }
            var newlySeen = 0, duplicates = 0
            for row in rows {
                guard let tap = book.number(of: row), tap < maxTaps else { continue }
                if seen[tap * count + subscriber] == 0 {
                    seen[tap * count + subscriber] = now
                    newlySeen += 1
                } else {
                    duplicates += 1
                }
            }
            if newlySeen + duplicates > 0 { status.withLock { $0.seen += newlySeen; $0.duplicates += duplicates } }
        default:
            break
        }
        return false
    }

    /// Closes with a reset rather than the usual goodbye, so that no port waits a minute in
    /// TIME_WAIT: runs of ten thousand subscribers would otherwise run out of ports.
    private static func closeAbruptly(_ descriptor: Int32) {
        var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
        close(descriptor)
    }
}

/// The open-file limit, raised as far as allowed: ten thousand subscribers are as many sockets
/// here, and as many again in the server, which inherits the limit.
enum FileLimit {
    /// Raises the soft limit to `needed` (or the hard limit, if lower); returns the limit now.
    @discardableResult
    static func raise(to needed: Int) -> Int {
        var limit = rlimit()
        guard getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 0 }
        if limit.rlim_cur < rlim_t(needed) {
            limit.rlim_cur = min(rlim_t(needed), limit.rlim_max)
            _ = setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
        }
        return Int(limit.rlim_cur)
    }
}
