import Foundation
import Glibc
import TestSupport

/// Headless Chromium, driven over the W3C WebDriver protocol through chromedriver (Debian's
/// chromium and chromium-driver, which `make test` installs).
final class Browser {
    static let chromium = "/usr/bin/chromium"
    static let chromedriver = URL(fileURLWithPath: "/usr/bin/chromedriver")

    private let driver: RunningProgram
    private let session: URL

    /// Starts chromedriver on a free port and a browser with a fresh profile in `profile`.
    init(profile: URL) async throws {
        driver = try await Self.startDriver()
        let port = driver.output.split(separator: "started successfully on port ")[1].prefix { $0.isNumber }
        let endpoint = URL(string: "http://127.0.0.1:\(port)/session")!
        let options: [String: Any] = [
            "binary": Self.chromium,
            // No sandbox: the tests may run as root, where Chromium's own sandbox refuses to start.
            "args": ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--user-data-dir=\(profile.path)"],
        ]
        let answer: Any
        do {
            answer = try await Self.send("POST", endpoint, ["capabilities": ["alwaysMatch": ["browserName": "chrome", "goog:chromeOptions": options]]])
        } catch {
            driver.stop()
            throw error
        }
        guard let id = (answer as? [String: Any])?["sessionId"] as? String else {
            driver.stop()
            throw BrowserFailure(description: "chromedriver started no session: \(answer)")
        }
        session = endpoint.appendingPathComponent(id)
    }

    /// chromedriver on a port it picks. It binds the port it picked for IPv4 and IPv6 apart,
    /// and now and then another program holds one of them ("IPv4 port not available"): it is
    /// started again then, up to three times.
    private static func startDriver() async throws -> RunningProgram {
        var attempt = 0
        while true {
            attempt += 1
            let driver = try RunningProgram(chromedriver, ["--port=0"])
            do {
                try await driver.waitFor(outputContaining: "started successfully on port ")
                return driver
            } catch {
                driver.stop()
                guard attempt < 3, driver.output.contains("port not available") else { throw error }
            }
        }
    }

    /// Opens a page.
    func open(_ url: URL) async throws {
        _ = try await Self.send("POST", session.appendingPathComponent("url"), ["url": url.absoluteString])
    }

    /// Runs a script's body in the page and returns what it returns (JSON's values).
    func run(_ script: String) async throws -> Any {
        try await Self.send("POST", session.appendingPathComponent("execute/sync"), ["script": script, "args": [Any]()])
    }

    /// Closes the browser and stops chromedriver.
    func quit() async {
        _ = try? await Self.send("DELETE", session, nil)
        driver.stop()
    }

    /// One WebDriver command: its answer's `value`, or what went wrong.
    private static func send(_ method: String, _ url: URL, _ body: [String: Any]?) async throws -> Any {
        let payload = try body.map { try JSONSerialization.data(withJSONObject: $0) } ?? Data()
        let (status, _, data) = try exchange(method, url, payload)
        let answer = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]) as? [String: Any]
        guard status == 200, let value = answer?["value"] else {
            throw BrowserFailure(description: "WebDriver \(method) \(url.path) answered \(status): \(String(decoding: data, as: UTF8.self))")
        }
        return value
    }

    /// One HTTP/1.1 request to a server on the loopback (chromedriver, the example's server),
    /// over a socket of its own: its status, head and body, the body read to the Content-Length
    /// or the end of the connection. (Not URLSession: on Linux, its libcurl refuses
    /// chromedriver's answer with "Failed writing header".)
    static func exchange(_ method: String, _ url: URL, _ body: Data) throws -> (status: Int, head: String, body: Data) {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw BrowserFailure(description: "No socket: errno \(errno).") }
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(url.port ?? 80).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw BrowserFailure(description: "\(url) refused the connection: errno \(errno).") }
        var request = Data("\(method) \(url.path) HTTP/1.1\r\nHost: 127.0.0.1:\(url.port ?? 80)\r\nConnection: close\r\n".utf8)
        request += Data("Content-Type: application/json\r\nContent-Length: \(body.count)\r\n\r\n".utf8) + body
        try request.withUnsafeBytes { bytes in
            var sent = 0
            while sent < bytes.count {
                let count = write(socket, bytes.baseAddress! + sent, bytes.count - sent)
                guard count > 0 else { throw BrowserFailure(description: "Writing to \(url) failed: errno \(errno).") }
                sent += count
            }
        }
        // chromedriver keeps the connection open: read up to the end its Content-Length gives, or
        // to the end of the connection (the answer to a HEAD has no body)
        // (a minute at most: a command that never answers fails instead of hanging the tests).
        var timeout = timeval(tv_sec: 60, tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var answer = Data()
        var buffer = [UInt8](repeating: 0, count: 65536)
        func complete() -> Bool {
            guard let end = answer.range(of: Data("\r\n\r\n".utf8)) else { return false }
            let head = String(decoding: answer[..<end.lowerBound], as: UTF8.self).lowercased()
            guard let line = head.split(separator: "\r\n").first(where: { $0.hasPrefix("content-length:") }),
                  let length = Int(line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) else { return false }
            return answer.count - end.upperBound >= length
        }
        while !complete() {
            let count = read(socket, &buffer, buffer.count)
            guard count > 0 else { break }
            answer.append(contentsOf: buffer[0..<count])
        }
        guard let end = answer.range(of: Data("\r\n\r\n".utf8)) else {
            throw BrowserFailure(description: "\(url) answered no HTTP: \(String(decoding: answer, as: UTF8.self))")
        }
        let head = String(decoding: answer[..<end.lowerBound], as: UTF8.self)
        let status = Int(head.split(separator: " ").dropFirst().first ?? "") ?? 0
        var content = Data(answer[end.upperBound...])
        if head.lowercased().contains("transfer-encoding: chunked") { content = dechunked(content) }
        return (status, head, content)
    }

    /// A chunked body's bytes.
    private static func dechunked(_ data: Data) -> Data {
        var result = Data()
        var rest = data[...]
        while let lineEnd = rest.range(of: Data("\r\n".utf8)),
              let size = Int(String(decoding: rest[..<lineEnd.lowerBound], as: UTF8.self), radix: 16), size > 0 {
            let start = lineEnd.upperBound
            result += rest[start..<start + size]
            rest = rest[(start + size + 2)...]
        }
        return result
    }

    struct BrowserFailure: Error, CustomStringConvertible {
        var description: String
    }
}
