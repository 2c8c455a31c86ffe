import Foundation
import PostgresSupport
import Testing
import TestSupport

/// The server on a PostgreSQL board (the test server's), changed by `worldcup tap` on the same
/// postgres:// URL.
extension LiveBoardServerTests {
    /// A URL with a password, which the test server (trust authentication) never asks for: it
    /// must show nowhere.
    static let password = "s3cret-never-shown"

    @Test("On PostgreSQL: each worldcup tap --database postgres://… moves its row in the page at once, and the page ends as worldcup list --json lists; the password shows nowhere")
    func followsPostgres() async throws {
        try Self.requireTools()
        let (configuration, drop) = try await TestServer.freshDatabase()
        var url = TestServer.url(of: configuration)
        url.password = Self.password
        let database = url.connectionString
        let folder = try TemporaryFolder(prefix: "live-board")
        defer { folder.remove() }
        let (server, page) = try await Self.startServer(database)
        let browser: Browser
        do {
            browser = try await Browser(profile: folder.file("profile"))
        } catch {
            server.stop()
            await drop()
            throw error
        }
        do {
            try await browser.open(page)
            try await Self.waitUntilShowsList(browser, database, "At first")
            let names = try Self.listed(database).rows.map { $0[1] }
            var random = SplitMix64(seed: 45)
            for _ in 0..<20 {
                let name = random.pick(names)
                let (status, out, err) = try Executable.run(["tap", name, "--database", database])
                try #require(status == 0, "\(err)")
                // `Brazil: 3 wins`: the page must show the row with those wins, whatever its place.
                let wins = try #require(out.split(separator: ": ").last?.split(separator: " ").first.map(String.init))
                let deadline = ContinuousClock.now + .seconds(20)
                while true {
                    let shown = try await browser.run("""
                        return Array.from(document.querySelectorAll("#board tbody tr")).some(r => r.cells.length > 1 && r.cells[0].textContent === \(Self.javaScriptString(name)) && r.cells[1].textContent === "\(wins)");
                        """) as? Bool
                    if shown == true { break }
                    guard ContinuousClock.now < deadline else {
                        Issue.record("The tap on \(name) (\(wins) wins) did not show within 20 s.")
                        throw CancellationError()
                    }
                    try await Task.sleep(for: .milliseconds(5))
                }
            }
            try await Self.waitUntilShowsList(browser, database, "After 20 taps")
        } catch {
            await browser.quit()
            server.stop()
            await drop()
            throw error
        }
        await browser.quit()
        server.interrupt()
        #expect(try await server.exitStatus() == 0)
        #expect(!server.output.contains(Self.password), "\(server.output)")
        await drop()
    }

    @Test("live-board-server on a PostgreSQL server that cannot be reached, or a bad URL: one sentence, exit 1, no password")
    func unreachablePostgres() throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.server.path),
                     "Examples/LiveBoardServer is not built: run `make example` (make test does).")
        // Port 1 of the loopback: nothing listens there, so the connection is refused at once.
        for database in ["postgres://app:\(Self.password)@127.0.0.1:1/cup", "postgres://app:\(Self.password)@db:port/cup", "postgress://app:\(Self.password)@db/cup"] {
            let (status, out, err) = try Executable.run(["--database", database, "--port", "0"], executable: Self.server, limit: .seconds(30))
            #expect(status == 1, "\(database): \(err)")
            #expect(out.isEmpty)
            #expect(err.hasPrefix("live-board-server: ") && isOneSentence(err.dropFirst("live-board-server: ".count).dropLast()), "\(err)")
            #expect(!err.contains(Self.password), "\(err)")
        }
    }

    /// `text` as a JavaScript string literal.
    static func javaScriptString(_ text: String) -> String {
        String(decoding: try! JSONSerialization.data(withJSONObject: text, options: [.fragmentsAllowed]), as: UTF8.self)
    }
}
