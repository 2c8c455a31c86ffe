import Foundation
import Glibc
import Synchronization
import Testing
import TestSupport
import PostgresSupport
import ThrowawayPostgres

/// Scoreboards on several "machines" sharing one PostgreSQL server, through the built
/// `worldcup`: taps from one show on the others as moves, and faults (the server restarted
/// as after a crash, connections terminated by the server, a network cut silently or reset)
/// lose nothing, count nothing twice, and leave every terminal intact.
///
/// Each test has a throwaway cluster of its own (a restart must not disturb other suites).
@Suite("A board shared on PostgreSQL", .serialized)
struct SharedBoardTests {
    @Test("Two terminals on one server: a tap in one moves the row in the other, which names its server")
    func twoTerminals() throws {
        let server = try SharedServer()
        let first = try TmuxTerminal(command: server.board(), width: 100, height: 50)
        let second = try TmuxTerminal(command: server.board(), width: 100, height: 50)
        #expect(first.waitFor("32 teams") && second.waitFor("32 teams"))
        #expect(second.screen.contains("World Cup · \(server.shownLocation)"), "the title names the server:\n\(second.screen)")
        // The cursor starts on Algeria; Cameroon is below it. A tap in the first terminal...
        try first.send("Down", "Enter")
        #expect(first.waitFor("Cameroon: 1 win."))
        // ...moves Cameroon above Algeria in the second, with one win.
        let moved = waitUntil(seconds: 2) {
            let rows = BoardRows(second.screen)
            return rows.index(of: "Cameroon").map { $0 < rows.index(of: "Algeria") ?? -1 } == true && rows.wins["Cameroon"] == 1
        }
        #expect(moved, "the tap never moved the row in the other terminal:\n\(second.screen)")
        #expect(second.waitFor(": Cameroon +1 win."), "the other board names the tap:\n\(second.screen)")
    }

    @Test("A board over TLS (verify-full with the server's CA): the title says TLS, and pg_stat_ssl shows every connection of the board encrypted")
    func boardOverTLS() throws {
        let server = try SharedServer(tls: true)
        let board = try TmuxTerminal(command: server.board(), width: 100, height: 50)
        #expect(board.waitFor("32 teams"))
        #expect(board.screen.contains("World Cup · \(server.shownLocation)"), "the title says TLS:\n\(board.screen)")
        try board.send("Down", "Enter")
        #expect(board.waitFor("Cameroon: 1 win."))
        let connections = try server.sql("""
            SELECT count(*) || ' ' || count(*) FILTER (WHERE s.ssl AND s.version LIKE 'TLSv1._') FROM pg_stat_activity a
            JOIN pg_stat_ssl s USING (pid) WHERE a.datname = '\(server.database)' AND a.usename = '\(TLSServer.user)'
            """).trimmingCharacters(in: .whitespacesAndNewlines).split(separator: " ").compactMap { Int($0) }
        // The store's connection and the controller's (its change feed listens on that one).
        #expect(connections.count == 2 && connections[0] >= 2 && connections[0] == connections[1], "connections, encrypted: \(connections)")
        // prefer, the default, asks the server whether it got TLS, and the title says so too.
        let tlsServer = try #require(server.tlsServer)
        let preferred = try TmuxTerminal(command: [Executable.worldcup.path, "--database", tlsServer.url(password: TLSServer.password)], width: 100, height: 50)
        #expect(preferred.waitFor("32 teams"))
        #expect(preferred.screen.contains("World Cup · \(server.shownLocation)"), "the title says TLS:\n\(preferred.screen)")
    }

    @Test("The server restarted as after a crash while 3 processes tap and 2 boards watch: every acknowledged tap counts once, and both boards converge within 2 s")
    func serverRestartedUnderTaps() throws {
        try restartUnderTaps(try SharedServer())
    }

    @Test("The same over TLS: a restart as after a crash under taps and boards on verify-full connections")
    func serverRestartedUnderTapsOverTLS() throws {
        try restartUnderTaps(try SharedServer(tls: true))
    }

    /// The server restarted as after a crash while 3 processes tap and 2 boards watch.
    private func restartUnderTaps(_ server: SharedServer) throws {
        let boards = try (0..<2).map { _ in try TmuxTerminal(command: server.board(), width: 100, height: 50) }
        for board in boards { #expect(board.waitFor("32 teams")) }
        let before = try server.totalWins()
        let tappers = Tappers(server: server, teams: ["Brazil", "Ghana", "Japan"])
        Thread.sleep(forTimeInterval: 1.5)
        try server.cluster.restart(immediate: true)
        let restarted = Date()
        Thread.sleep(forTimeInterval: 1)
        let (acknowledged, failed) = tappers.stop()
        #expect(acknowledged > 0)
        let counted = try server.totalWins() - before
        // A tap whose outcome stayed unknown (the server away for all its retries) may have
        // counted; an acknowledged one counted exactly once.
        #expect(counted >= acknowledged && counted <= acknowledged + failed,
                "\(acknowledged) taps acknowledged, \(failed) failed, \(counted) counted")
        let expected = try server.wins()
        for board in boards {
            let converged = waitUntil(seconds: max(0.1, 2 - Date().timeIntervalSince(restarted))) { BoardRows(board.screen).wins == expected }
            #expect(converged, "the board did not converge within 2 s of the restart:\n\(board.screen)\nexpected: \(expected)")
            #expect(board.inAlternateScreen && board.screen.contains("32 teams"), "the terminal is intact:\n\(board.screen)")
            #expect(!board.screen.contains("reconnecting"), "\(board.screen)")
        }
    }

    @Test("A viewer whose connections the server terminates makes them again and misses nothing")
    func connectionsTerminated() throws {
        let server = try SharedServer()
        let board = try TmuxTerminal(command: server.board(), width: 100, height: 50)
        #expect(board.waitFor("32 teams"))
        for round in 0..<3 {
            try server.tap("Ghana")
            _ = try server.sql("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '\(server.database)' AND pid <> pg_backend_pid()")
            try server.tap("Japan")
            let expected = try server.wins()
            #expect(waitUntil(seconds: 5) { BoardRows(board.screen).wins == expected }, "round \(round):\n\(board.screen)")
        }
        #expect(!board.screen.contains("reconnecting"))
    }

    @Test("A network cut with no FIN and no RST (the relay frozen for 10 s): the viewer says it is reconnecting within 5 s, then converges with nothing missed")
    func frozenNetwork() throws {
        try freezeNetwork(try SharedServer())
    }

    @Test("The same over TLS: the relay frozen under a verify-full board, which reconnects with TLS and misses nothing")
    func frozenNetworkOverTLS() throws {
        try freezeNetwork(try SharedServer(tls: true))
    }

    /// The relay between the board and `server` frozen for 10 s.
    private func freezeNetwork(_ server: SharedServer) throws {
        let relay = try TCPRelay(upstream: server.relayUpstream)
        defer { relay.kill() }
        let board = try TmuxTerminal(command: server.board(port: relay.port), width: 100, height: 50)
        #expect(board.waitFor("32 teams"))
        relay.signal(SIGSTOP)
        let frozen = Date()
        for team in ["Ghana", "Japan", "Ghana"] { try server.tap(team) }
        #expect(board.waitFor("reconnecting to", seconds: 6))
        #expect(Date().timeIntervalSince(frozen) <= 5.5, "noticed after \(Date().timeIntervalSince(frozen)) s")
        // Taps on the cut board are refused at once, with one sentence.
        try board.send("Enter")
        #expect(board.waitFor("The server is away, so nothing was changed"))
        // So are a zone's move, on the status line, and its rename, in its dialog.
        try board.send("Escape")
        #expect(board.waitFor("q quits"))
        try board.send("]")
        #expect(board.waitFor("The server is away, so nothing was changed"))
        try board.send("r")
        #expect(board.waitFor("Rename Zone"))
        try board.send("CAF", literal: true)
        try board.send("Enter")
        #expect(waitUntil(seconds: 5) { board.screen.contains("│ The server is away") }, "\(board.screen)")
        try board.send("Escape")
        Thread.sleep(forTimeInterval: max(0, 10 - Date().timeIntervalSince(frozen)))
        relay.signal(SIGCONT)
        let expected = try server.wins()
        #expect(waitUntil(seconds: 10) { BoardRows(board.screen).wins == expected }, "\(board.screen)\nexpected: \(expected)")
        #expect(!board.screen.contains("reconnecting"))
    }

    @Test("A network cut that resets the connections (the relay killed, then back): the viewer reconnects and misses nothing")
    func resetNetwork() throws {
        let server = try SharedServer()
        var relay = try TCPRelay(upstream: server.cluster.socketPath)
        let board = try TmuxTerminal(command: server.board(port: relay.port), width: 100, height: 50)
        #expect(board.waitFor("32 teams"))
        relay.kill()
        #expect(board.waitFor("reconnecting to", seconds: 5))
        for team in ["Ghana", "Japan", "Brazil"] { try server.tap(team) }
        relay = try TCPRelay(upstream: server.cluster.socketPath, port: relay.port)
        defer { relay.kill() }
        let expected = try server.wins()
        #expect(waitUntil(seconds: 10) { BoardRows(board.screen).wins == expected }, "\(board.screen)\nexpected: \(expected)")
        #expect(!board.screen.contains("reconnecting"))
    }
}

/// Waits until `condition` holds; false when it never did within `seconds`.
func waitUntil(seconds: Double, _ condition: () throws -> Bool) rethrows -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while true {
        if try condition() { return true }
        if Date() > deadline { return false }
        Thread.sleep(forTimeInterval: 0.05)
    }
}

/// A throwaway cluster holding the board's database, and the commands that reach it: on its
/// Unix socket, or with `tls` on a TLS-only server (`TLSServer`) as its role `app`, with
/// sslmode=verify-full and the server's CA.
final class SharedServer: Sendable {
    let cluster: ThrowawayPostgres
    let tlsServer: TLSServer?
    let database = "worldcup"

    init(tls: Bool = false) throws {
        if tls {
            let server = try TLSServer()
            tlsServer = server
            cluster = server.cluster
        } else {
            tlsServer = nil
            cluster = try ThrowawayPostgres.start()
            _ = try sql("CREATE DATABASE \(database)", database: "postgres")
        }
        // The first `worldcup` seeds it; the boards then start together on a ready database.
        _ = try run(["list"])
    }

    deinit { cluster.stop() }

    /// The board's URL: on the server's Unix socket, or over TLS, or through a relay at `port`
    /// on 127.0.0.1 (over TLS: at `localhost`, the name the certificate holds).
    func url(port: Int? = nil) -> String {
        if let tlsServer {
            return tlsServer.url(port: port, password: TLSServer.password, query: "sslmode=verify-full&sslrootcert=\(tlsServer.caFile)")
        }
        return port.map { "postgres://postgres@127.0.0.1:\($0)/\(database)" } ?? "postgres://postgres@/\(database)?host=\(cluster.socketDirectory)"
    }

    /// Where a relay forwards to: the server's Unix socket, or over TLS its TCP port.
    var relayUpstream: String {
        tlsServer.map { "127.0.0.1:\($0.port)" } ?? cluster.socketPath
    }

    /// How the board's title names the server: its socket's folder, or host and port with TLS.
    var shownLocation: String {
        tlsServer.map { "\(database) on localhost:\($0.port) · TLS" } ?? "\(database) on \(cluster.socketDirectory)"
    }

    /// The command of a scoreboard.
    func board(port: Int? = nil) -> [String] {
        [Executable.worldcup.path, "--database", url(port: port)]
    }

    /// Runs `worldcup` with `arguments` on the server's socket; throws its error output when it fails.
    @discardableResult
    func run(_ arguments: [String]) throws -> String {
        let result = try Executable.run(arguments + ["--database", url()])
        guard result.status == 0 else { throw SharedServerError("worldcup \(arguments.joined(separator: " ")): \(result.err)") }
        return result.out
    }

    func tap(_ team: String) throws {
        try run(["tap", team])
    }

    /// Every team's wins, by name, from `worldcup list --json`.
    func wins() throws -> [String: Int] {
        struct Listed: Decodable {
            var teamName: String
            var wins: Int
        }
        let teams = try JSONDecoder().decode([Listed].self, from: Data(run(["list", "--json"]).utf8))
        return Dictionary(uniqueKeysWithValues: teams.map { ($0.teamName, $0.wins) })
    }

    func totalWins() throws -> Int {
        try wins().values.reduce(0, +)
    }

    /// Runs SQL with psql as `user` (the superuser unless named), each text a command of one
    /// session; returns its unaligned output.
    @discardableResult
    func sql(_ texts: String..., database: String? = nil, user: String = "postgres") throws -> String {
        let psql = URL(fileURLWithPath: "\(ThrowawayPostgres.binaries)/psql")
        let commands = texts.flatMap { ["-c", $0] }
        let result = try Executable.run(["-h", cluster.socketDirectory, "-p", "\(cluster.port)", "-U", user, "-d", database ?? self.database, "-tA"] + commands,
                                        executable: psql)
        guard result.status == 0 else { throw SharedServerError("psql: \(result.err)") }
        return result.out
    }

    /// The README's watcher: a role that may connect and read the board, and nothing more.
    func makeWatcher() throws -> String {
        let name = "watcher"
        for statement in [
            "CREATE ROLE \(name) LOGIN PASSWORD 'watching'",
            "GRANT CONNECT ON DATABASE \(database) TO \(name)",
            "GRANT USAGE ON SCHEMA public TO \(name)",
            "GRANT SELECT ON ALL TABLES IN SCHEMA public TO \(name)",
        ] { try sql(statement) }
        return name
    }
}

struct SharedServerError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// The rows a board shows: names in screen order and their wins.
struct BoardRows {
    var names: [String] = []
    var wins: [String: Int] = [:]

    init(_ screen: String) {
        // "▶ ALG Algeria      Wins: 0  Af": the cursor or a blank, a badge ("[ALG]" without
        // colours), the name, the wins.
        for line in screen.split(separator: "\n") {
            guard let winsRange = line.range(of: "Wins: ") else { continue }
            let badgeAndName = line[..<winsRange.lowerBound].dropFirst(2)
            let name = (badgeAndName.hasPrefix("[") ? badgeAndName.drop { $0 != "]" }.dropFirst() : badgeAndName.dropFirst(3))
                .trimmingCharacters(in: .whitespaces)
            let count = line[winsRange.upperBound...].prefix { $0.isNumber }
            guard let wins = Int(count) else { continue }
            names.append(name)
            self.wins[name] = wins
        }
    }

    func index(of name: String) -> Int? { names.firstIndex(of: name) }
}

/// Processes tapping teams through the server, one `worldcup tap` after another, until stopped.
final class Tappers: Sendable {
    private let counts = Mutex((acknowledged: 0, failed: 0, stopping: false))
    private let done = DispatchGroup()

    init(server: SharedServer, teams: [String]) {
        for team in teams {
            done.enter()
            Thread { [self] in
                while !counts.withLock({ $0.stopping }) {
                    let succeeded = (try? server.tap(team)) != nil
                    counts.withLock { if succeeded { $0.acknowledged += 1 } else { $0.failed += 1 } }
                }
                done.leave()
            }.start()
        }
    }

    /// Stops tapping; returns the taps acknowledged and failed.
    func stop() -> (acknowledged: Int, failed: Int) {
        counts.withLock { $0.stopping = true }
        done.wait()
        return counts.withLock { ($0.acknowledged, $0.failed) }
    }
}
