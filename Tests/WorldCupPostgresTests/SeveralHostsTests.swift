import Foundation
import PostgresSupport
import Testing
import TestSupport

/// A URL that names several hosts, as libpq reads it: the first that accepts the connection
/// is kept, and with target_session_attrs=read-write the first whose sessions may write, so
/// the board follows the primary of a pair; psql agrees on the same URLs.
extension TLSCommandLineTests {
    /// Whether psql (libpq) runs `sql` on `url`, and what it printed.
    private func psql(_ url: String, _ sql: String) async throws -> (status: Int32, out: String) {
        let unset = ProcessInfo.processInfo.environment.keys.filter { $0.hasPrefix("PG") }.flatMap { ["-u", $0] }
        let command = unset + ["HOME=\(home.url.path)", "psql", "-X", "-At", "-c", sql, url]
        let result = try await onThreads(1) { _ in try Executable.run(command, executable: URL(fileURLWithPath: "/usr/bin/env")) }[0]
        return (result.status, result.out)
    }

    @Test func severalHostsKeepTheFirstThatAcceptsAndReadWriteFollowsThePrimary() async throws {
        let primary = try TLSServer(tls: false)
        defer { primary.stop() }
        let standby = try TLSServer(tls: false)
        defer { standby.stop() }
        try standby.cluster.psql("ALTER DATABASE worldcup SET default_transaction_read_only = on")
        let down = try SilentListener.freePort()
        let login = "app:\(password.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? password)"

        // The first host is down: the second is used, by worldcup as by psql.
        let pastDown = "postgres://\(login)@127.0.0.1:\(down),localhost:\(primary.port)/worldcup"
        let tap = try await worldcup(["tap", "Brazil", "--database", pastDown])
        #expect(tap.status == 0, "\(tap.err)")
        #expect(try await psql(pastDown, "SELECT wins FROM team WHERE \"teamName\" = 'Brazil'").out == "1\n")

        // The first host only reads: kept by default (the board is read-only), passed over
        // with read-write, as psql does.
        let pair = "postgres://\(login)@localhost:\(standby.port),localhost:\(primary.port)/worldcup"
        #expect(try await psql(pair, "SHOW port").out == "\(standby.port)\n")
        #expect(try await psql(pair + "?target_session_attrs=read-write", "SHOW port").out == "\(primary.port)\n")
        let toStandby = try await worldcup(["tap", "Brazil", "--database", pair])
        #expect(toStandby.status != 0 && toStandby.err.contains("localhost:\(standby.port)"), "\(toStandby.err)")
        let toPrimary = try await worldcup(["tap", "Brazil", "--database", pair + "?target_session_attrs=read-write"])
        #expect(toPrimary.status == 0, "\(toPrimary.err)")
        #expect(try await psql(pastDown, "SELECT wins FROM team WHERE \"teamName\" = 'Brazil'").out == "2\n")

        // No host may write: one sentence, naming the last one tried.
        let none = "postgres://\(login)@localhost:\(standby.port),127.0.0.1:\(down)/worldcup?target_session_attrs=primary"
        let refused = try await worldcup(["list", "--database", none])
        #expect(refused.status != 0 && isOneSentence(refused.err.dropFirst("Error: ".count).dropLast()), "\(refused.err)")
    }
}
