// tcp-relay PORT UPSTREAM
//
// A helper of the shared-board fault tests: a TCP relay on 127.0.0.1:PORT (0: any free port)
// to UPSTREAM, a Unix socket's path or HOST:PORT. It prints the port it listens on, on a line
// of its own, then copies bytes both ways for every connection, until it is killed.
//
// The tests cut the network with it: SIGSTOP freezes every connection (no FIN, no RST:
// packets just stop), SIGCONT resumes them, SIGKILL resets them.
import Foundation
import Glibc

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("tcp-relay: \(message): \(String(cString: strerror(errno)))\n".utf8))
    exit(1)
}

let arguments = CommandLine.arguments
guard arguments.count == 3, let requestedPort = UInt16(arguments[1]) else {
    FileHandle.standardError.write(Data("usage: tcp-relay PORT UPSTREAM (a Unix socket's path, or HOST:PORT)\n".utf8))
    exit(2)
}
let upstream = arguments[2]
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

/// Copies bytes from one socket to the other until either end closes, then closes both
/// directions (the other copier then ends too).
@Sendable func pump(from source: Int32, to destination: Int32) {
    var buffer = [UInt8](repeating: 0, count: 65_536)
    while true {
        let count = read(source, &buffer, buffer.count)
        if count <= 0 { break }
        var written = 0
        while written < count {
            let done = buffer[written..<count].withUnsafeBytes { write(destination, $0.baseAddress, count - written) }
            if done <= 0 { break }
            written += done
        }
        if written < count { break }
    }
    shutdown(source, Int32(SHUT_RDWR))
    shutdown(destination, Int32(SHUT_RDWR))
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
