import Foundation
import PostgresSupport
import Testing
import TestSupport

/// Every sentence worldcup prints for a connection it cannot make (bad URLs, service and
/// password files, TLS failures, refusals) with a password in play: none holds the password,
/// as given or percent-encoded.
extension TLSCommandLineTests {
    @Test func noSentenceHoldsAPassword() async throws {
        let secret = "Sekr3t-Pw"
        let service = home.file(".pg_service.conf")
        try """
            [typo]
            host=localhost
            pasword=\(secret)
            [bare]
            \(secret)
            [wrong]
            host=localhost
            port=\(server.port)
            user=app
            password=\(secret)
            sslmode=require

            """.write(to: service, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: service) }
        let looseFile = home.file("loose.pgpass")
        try "localhost:*:*:app:\(secret)\n".write(to: looseFile, atomically: true, encoding: .utf8)
        chmod(looseFile.path, 0o644)
        let ca = "sslrootcert=\(server.caFile)"
        let runs: [(arguments: [String], environment: [String: String])] = [
            (["list", "--database", "postgres://app:\(secret)@localhost:notaport/worldcup"], [:]),
            (["list", "--database", "postgres://app:\(secret)@[localhost/worldcup"], [:]),
            (["list", "--database", server.url(password: secret, query: "pasword=\(secret)")], [:]),
            (["list", "--database", server.url(password: secret, query: "sslmode=require")], [:]),
            (["tap", "Brazil", "--database", server.url(password: secret, query: "sslmode=require")], [:]),
            (["list", "--database", server.url(port: 1, password: secret)], [:]),
            (["list", "--database", server.url(host: "127.0.0.1", password: password, query: "sslmode=verify-full&\(ca)")], [:]),
            (["list", "--database", server.url(password: password, query: "sslmode=verify-full&sslrootcert=\(server.otherCAFile)")], [:]),
            (["list", "--database", server.url(password: password, database: "nowhere", query: "sslmode=require")], [:]),
            (["list", "--database", server.url(password: password, database: "postgres", query: "sslmode=require")], [:]),
            (["check", "--database", server.url(password: password, database: "postgres", query: "sslmode=require")], [:]),
            (["list", "--database", server.url(password: password, query: "channel_binding=require")], [:]),
            (["list", "--database", server.url(password: password, query: "sslmode=disable")], [:]),
            (["list", "--database", "postgres://?service=typo"], [:]),
            (["list", "--database", "postgres://?service=bare"], [:]),
            (["list", "--database", "postgres://?service=wrong"], [:]),
            (["list", "--database", server.url(query: "sslmode=require")], ["PGPASSFILE": looseFile.path]),
            (["list", "--database", server.url(query: "sslmode=require")], ["PGPASSWORD": secret]),
            (["list", "--database", server.url(query: "sslmode=require&sslcert=\(server.clientCertificate)&sslkey=\(home.file("none.key").path)")],
             ["PGPASSWORD": secret]),
        ]
        var sentences = 0
        for (arguments, environment) in runs {
            let result = try await worldcup(arguments, environment: environment)
            let printed = result.out + result.err
            for hidden in [secret, password, password.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? password, "pass%3Aword"] {
                #expect(!printed.contains(hidden), "\(arguments): \(printed)")
            }
            #expect(result.status != 0 || arguments[0] == "check", "\(arguments): \(printed)")
            sentences += printed.split(separator: "\n").count
        }
        #expect(sentences >= runs.count)
    }
}
