import Foundation
import PostgresSupport
import Testing
import TestSupport
@testable import WorldCupPostgres

/// libpq's host check for `sslmode=verify-full` (`CertificateNames`), on its own and through
/// the built worldcup side by side with psql (libpq) on the same URLs: a certificate for a
/// name only and one for an address only, each reached as `localhost`, `127.0.0.1` and `::1`.
struct CertificateNameRuleTests {
    @Test func namesMatchAsLibpqMatchesThem() {
        let names = CertificateNames(dnsNames: ["db.example.com", "*.pool.example.com"], ipAddresses: [[10, 0, 0, 7]], commonName: "ignored.example.com")
        #expect(names.match(host: "db.example.com") == "db.example.com")
        #expect(names.match(host: "DB.Example.COM") == "db.example.com")
        #expect(names.match(host: "a.pool.example.com") == "*.pool.example.com")
        // The wildcard is one whole label, of at least one character.
        #expect(names.match(host: "a.b.pool.example.com") == nil)
        #expect(names.match(host: "pool.example.com") == nil)
        #expect(names.match(host: ".pool.example.com") == nil)
        // An address written as the host matches an address of the certificate, never a name's address.
        #expect(names.match(host: "10.0.0.7") == "10.0.0.7")
        #expect(names.match(host: "10.0.0.8") == nil)
        // The common name counts only without alternative names of the host's kind.
        #expect(names.match(host: "ignored.example.com") == nil)
        #expect(CertificateNames(ipAddresses: [[127, 0, 0, 1]], commonName: "localhost").match(host: "localhost") == "localhost")
        #expect(CertificateNames(dnsNames: ["localhost"], commonName: "127.0.0.1").match(host: "127.0.0.1") == "127.0.0.1")
        #expect(CertificateNames(ipAddresses: [[127, 0, 0, 1]], commonName: "localhost").match(host: "::1") == nil)
        let loopback6 = [UInt8](repeating: 0, count: 15) + [1]
        #expect(CertificateNames(ipAddresses: [loopback6]).match(host: "::1") == "::1")
        #expect(CertificateNames(ipAddresses: [loopback6]).match(host: "0:0::1") == "::1")
        #expect(CertificateNames(dnsNames: ["*.example.com"]).match(host: "x.example.com.evil") == nil)
    }
}

extension TLSCommandLineTests {
    /// A server whose certificate names only the address 127.0.0.1, started at first use.
    static let addressOnly = Result { try TLSServer(names: "IP:127.0.0.1", commonName: "127.0.0.1") }

    /// Whether psql (libpq) connects to `url` with HOME set to the test's folder.
    private func psqlConnects(_ url: String) async throws -> Bool {
        let unset = ProcessInfo.processInfo.environment.keys.filter { $0.hasPrefix("PG") }.flatMap { ["-u", $0] }
        let command = unset + ["HOME=\(home.url.path)", "psql", "-X", "-At", "-c", "SELECT 1", url]
        let result = try await onThreads(1) { _ in try Executable.run(command, executable: URL(fileURLWithPath: "/usr/bin/env")) }[0]
        return result.status == 0
    }

    @Test func verifyFullChecksTheHostAsWrittenAsPsqlDoes() async throws {
        let byAddress = try Self.addressOnly.get()
        let hosts = ["localhost", "127.0.0.1"] + (TLSServer.hasIPv6Loopback ? ["[::1]"] : [])
        // (server, host as written) → the certificate's name that matched, or nil: refused.
        let cases: [(TLSServer, String, String?)] = hosts.map { (server, $0, $0 == "localhost" ? "localhost" : nil) }
            + hosts.map { (byAddress, $0, $0 == "127.0.0.1" ? "127.0.0.1" : nil) }
        for (target, host, matched) in cases {
            let url = target.url(host: host, password: password, query: "sslmode=verify-full&sslrootcert=\(target.caFile)")
            let check = try await worldcup(["check", "--database", url])
            let psql = try await psqlConnects(url)
            #expect(psql == (matched != nil), "psql on \(host), \(target.caFile)")
            let bare = host.trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
            if let matched {
                #expect(check.status == 0, "\(host): \(check.err)")
                #expect(check.out.contains("its name included (“\(matched)” matched the host; sslmode=verify-full)."), "\(host): \(check.out)")
            } else {
                let names = target === byAddress ? "“127.0.0.1”" : "“localhost”"
                expectRefused(check, "The PostgreSQL server's certificate does not name the host “\(bare)” (it names \(names)): connect with a host name the certificate holds, or use sslmode=verify-ca to check only that “\(target.caFile)” vouches for it.")
            }
        }
        if TLSServer.hasIPv6Loopback {
            // A bracketed IPv6 address, as libpq writes it.
            let v6 = server.url(host: "[::1]", password: password, query: "sslmode=require")
            let list = try await worldcup(["list", "--database", v6])
            #expect(list.status == 0, "\(list.err)")
            #expect(try await psqlConnects(v6))
        }
        // verify-ca checks the chain only, whatever the host, as libpq.
        let chainOnly = byAddress.url(host: "localhost", password: password, query: "sslmode=verify-ca&sslrootcert=\(byAddress.caFile)")
        #expect(try await worldcup(["check", "--database", chainOnly]).status == 0)
        #expect(try await psqlConnects(chainOnly))
    }
}
