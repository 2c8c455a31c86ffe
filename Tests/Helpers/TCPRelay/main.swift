// tcp-relay [--die-with-parent] [--delay-ms MS] PORT UPSTREAM
//
// A helper of the shared-board fault tests: a TCP relay on 127.0.0.1:PORT (0: any free port)
// to UPSTREAM, a Unix socket's path or HOST:PORT. It prints the port it listens on, on a line
// of its own, then copies bytes both ways for every connection, until it is killed.
//
// The tests cut the network with it: SIGSTOP freezes every connection (no FIN, no RST:
// packets just stop), SIGCONT resumes them, SIGKILL resets them.
//
// With --delay-ms, each chunk is delivered MS milliseconds after it was read, each way, as a
// distant server's link does: a request and its answer take 2 × MS more, while chunks sent
// back to back (a pipeline) still travel together, so round trips are what the delay counts.
import Foundation
import Glibc

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("tcp-relay: \(message): \(String(cString: strerror(errno)))\n".utf8))
    exit(1)
}

/// The arguments: the delay each way in seconds, the port, the upstream.
func parseArguments() -> (delay: Double, port: UInt16, upstream: String) {
    var arguments = Array(CommandLine.arguments.dropFirst())
    var delay: Double = 0
    if arguments.first == "--die-with-parent" {
        // A benchmark that starts relays may be killed before it can stop them.
        let parent = getppid()
        Thread {
            while getppid() == parent { sleep(1) }
            exit(0)
        }.start()
        arguments.removeFirst()
    }
    if arguments.first == "--delay-ms" {
        guard arguments.count > 1, let milliseconds = Double(arguments[1]), milliseconds >= 0 else {
            FileHandle.standardError.write(Data("tcp-relay: --delay-ms takes a number of milliseconds\n".utf8))
            exit(2)
        }
        delay = milliseconds / 1000
        arguments.removeFirst(2)
    }
    guard arguments.count == 2, let port = UInt16(arguments[0]) else {
        FileHandle.standardError.write(Data("usage: tcp-relay [--die-with-parent] [--delay-ms MS] PORT UPSTREAM (a Unix socket's path, or HOST:PORT)\n".utf8))
        exit(2)
    }
    return (delay, port, arguments[1])
}
let (delay, requestedPort, upstream) = parseArguments()
signal(SIGPIPE, SIG_IGN)

/// A connection to the upstream server, or -1.
func connectUpstream() -> Int32 {
    if upstream.hasPrefix("/") {
        let socket = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { path in
            for (index, byte) in upstream.utf8.prefix(path.count - 1).enumerated() { path[index] = byte }
        }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        if connected != 0 { close(socket); return -1 }
        return socket
    }
    let parts = upstream.split(separator: ":")
    guard parts.count == 2, let port = UInt16(parts[1]) else { return -1 }
    let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = port.bigEndian
    inet_pton(AF_INET, String(parts[0]), &address.sin_addr)
    let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    if connected != 0 { close(socket); return -1 }
    return socket
}

/// Writes all of `bytes`; false when the socket refused them.
func writeAll(_ bytes: ArraySlice<UInt8>, to destination: Int32) -> Bool {
    var written = 0
    while written < bytes.count {
        let done = bytes.dropFirst(written).withUnsafeBytes { write(destination, $0.baseAddress, $0.count) }
        if done <= 0 { return false }
        written += done
    }
    return true
}

/// Copies bytes from one socket to the other until either end closes, then closes both
/// directions (the other copier then ends too). With a delay, a second thread delivers each
/// chunk once its time has come, so reading never waits for the delay.
@Sendable func pump(from source: Int32, to destination: Int32) {
    let queue = delay > 0 ? DelayedChunks(from: source, to: destination) : nil
    var buffer = [UInt8](repeating: 0, count: 65_536)
    while true {
        let count = read(source, &buffer, buffer.count)
        if count <= 0 { break }
        if let queue {
            queue.add(Array(buffer[..<count]))
        } else if !writeAll(buffer[..<count], to: destination) {
            break
        }
    }
    if let queue {
        // The end travels as late as the bytes read before it; the descriptors stay open
        // until it has.
        queue.finish()
        queue.waitUntilDelivered()
    } else {
        shutdown(source, Int32(SHUT_RDWR))
        shutdown(destination, Int32(SHUT_RDWR))
    }
}

/// Chunks waiting for their time, delivered in order by a thread of their own; nil marks the end.
final class DelayedChunks: @unchecked Sendable { // `condition` guards `waiting`.
    private let condition = NSCondition()
    private var waiting: [(due: Date, bytes: [UInt8]?)] = []
    private let delivered = DispatchSemaphore(value: 0)

    init(from source: Int32, to destination: Int32) {
        Thread { [self] in deliver(from: source, to: destination) }.start()
    }

    func add(_ bytes: [UInt8]) { enqueue(bytes) }
    func finish() { enqueue(nil) }
    func waitUntilDelivered() { delivered.wait() }

    private func enqueue(_ bytes: [UInt8]?) {
        condition.lock()
        waiting.append((Date().addingTimeInterval(delay), bytes))
        condition.signal()
        condition.unlock()
    }

    /// Delivers chunks until the end or a refused write, then closes both directions.
    private func deliver(from source: Int32, to destination: Int32) {
        while true {
            condition.lock()
            while waiting.isEmpty { condition.wait() }
            let (due, bytes) = waiting.removeFirst()
            condition.unlock()
            let wait = due.timeIntervalSinceNow
            if wait > 0 { usleep(useconds_t(wait * 1_000_000)) }
            guard let bytes, writeAll(bytes[...], to: destination) else { break }
        }
        shutdown(source, Int32(SHUT_RDWR))
        shutdown(destination, Int32(SHUT_RDWR))
        delivered.signal()
    }
}

let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
var yes: Int32 = 1
setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
var address = sockaddr_in()
address.sin_family = sa_family_t(AF_INET)
address.sin_port = requestedPort.bigEndian
address.sin_addr.s_addr = inet_addr("127.0.0.1")
let bound = withUnsafePointer(to: &address) {
    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
}
guard bound == 0, listen(listener, 128) == 0 else { fail("cannot listen on 127.0.0.1:\(requestedPort)") }
var length = socklen_t(MemoryLayout<sockaddr_in>.size)
withUnsafeMutablePointer(to: &address) {
    _ = $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
}
let line = Array("\(UInt16(bigEndian: address.sin_port))\n".utf8)
_ = write(STDOUT_FILENO, line, line.count)

while true {
    let client = accept(listener, nil, nil)
    if client < 0 { continue }
    let server = connectUpstream()
    if server < 0 {
        close(client)
        continue
    }
    // Both descriptors close once both directions ended, so neither is reused while in use.
    let bothDone = DispatchGroup()
    for (source, destination) in [(client, server), (server, client)] {
        bothDone.enter()
        Thread { pump(from: source, to: destination); bothDone.leave() }.start()
    }
    bothDone.notify(queue: .global()) {
        close(client)
        close(server)
    }
}
