import Foundation
import PostgresSupport
import Testing
import TestSupport
import WorldCup
import WorldCupPostgres

/// The built `worldcup` on servers that accept only TLS (`TLSServer`) or offer none: libpq's
/// sslmodes, its variables and files, client certificates, and each refusal in one sentence.
///
/// Every run has a HOME of its own (an empty folder unless a test puts ~/.postgresql or
/// ~/.pgpass in it), so that nothing of the machine's user is read.
@Suite(.serialized) final class TLSCommandLineTests {
    let server: TLSServer
    let home: TemporaryFolder

    /// One server for the suite, started at first use and stopped when the process exits.
    static let shared = Result { try TLSServer() }

    init() throws {
        server = try Self.shared.get()
        home = try TemporaryFolder(prefix: "worldcup-tls-home")
    }

    deinit {
        try? FileManager.default.removeItem(at: home.url)
    }

    /// Runs the built worldcup with HOME set to the test's folder, `environment` added and no
    /// other libpq variable of this process's; on a thread of its own, so that waiting for it
    /// holds none of Swift concurrency's few shared threads (other suites' tasks need them).
    func worldcup(_ arguments: [String], environment: [String: String] = [:]) async throws -> (status: Int32, out: String, err: String) {
        let variables = ["HOME": home.url.path].merging(environment) { $1 }
        let unset = ProcessInfo.processInfo.environment.keys.filter { $0.hasPrefix("PG") && variables[$0] == nil }.flatMap { ["-u", $0] }
        let command = unset + variables.map { "\($0)=\($1)" } + [Executable.worldcup.path] + arguments
        return try await onThreads(1) { _ in try Executable.run(command, executable: URL(fileURLWithPath: "/usr/bin/env")) }[0]
    }

    /// Expects `result` to be a failure with exactly `sentence` on stderr, and no password shown.
    func expectRefused(_ result: (status: Int32, out: String, err: String), _ sentence: String,
                               sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(result.status != 0 && result.out.isEmpty, "\(result)", sourceLocation: sourceLocation)
        #expect(result.err == "Error: \(sentence)\n", sourceLocation: sourceLocation)
        #expect(isOneSentence(result.err.dropFirst("Error: ".count).dropLast()), "\(result.err)", sourceLocation: sourceLocation)
        #expect(!result.err.contains("pass:word"), sourceLocation: sourceLocation)
    }

    var password: String { TLSServer.password }

    @Test func verifyFullWithTheRightCAWorksAndCheckSaysSo() async throws {
        let url = server.url(password: password, query: "sslmode=verify-full&sslrootcert=\(server.caFile)&channel_binding=prefer&application_name=tls-test&connect_timeout=10")
        let list = try await worldcup(["list", "--database", url])
        #expect(list.status == 0, "\(list.err)")
        #expect(list.out.contains("Brazil"))
        let check = try await worldcup(["check", "--database", url])
        #expect(check.status == 0, "\(check.err)")
        let lines = check.out.split(separator: "\n")
        #expect(lines.count == 2, "\(check.out)")
        #expect(lines.last?.hasPrefix("The connection to localhost:\(server.port) is encrypted with TLSv1.") == true, "\(check.out)")
        #expect(lines.last?.hasSuffix("and the server's certificate was verified against “\(server.caFile)”, its name included (“localhost” matched the host; sslmode=verify-full).") == true, "\(check.out)")
    }

    @Test func theWrongCAIsRefused() async throws {
        let result = try await worldcup(["list", "--database", server.url(password: password, query: "sslmode=verify-full&sslrootcert=\(server.otherCAFile)")])
        expectRefused(result, "The PostgreSQL server at localhost:\(server.port) has a certificate not vouched for by “\(server.otherCAFile)”: give the server's CA file with sslrootcert, or use sslmode=require to encrypt without verifying.")
        // The system's trust store (sslrootcert=system implies verify-full) does not know the test CA either.
        let system = try await worldcup(["list", "--database", server.url(password: password, query: "sslrootcert=system")])
        expectRefused(system, "The PostgreSQL server at localhost:\(server.port) has a certificate not vouched for by the system's trusted roots: give the server's CA file with sslrootcert, or use sslmode=require to encrypt without verifying.")
    }

    @Test func anAddressTheCertificateDoesNotNameIsRefused() async throws {
        let url = server.url(host: "127.0.0.1", password: password, query: "sslmode=verify-full&sslrootcert=\(server.caFile)")
        expectRefused(try await worldcup(["list", "--database", url]),
                      "The PostgreSQL server's certificate does not name the host “127.0.0.1” (it names “localhost”): connect with a host name the certificate holds, or use sslmode=verify-ca to check only that “\(server.caFile)” vouches for it.")
        // verify-ca checks the chain only, as libpq.
        let chainOnly = try await worldcup(["check", "--database", server.url(host: "127.0.0.1", password: password, query: "sslmode=verify-ca&sslrootcert=\(server.caFile)")])
        #expect(chainOnly.status == 0, "\(chainOnly.err)")
        #expect(chainOnly.out.contains("verified against “\(server.caFile)”, not its name (sslmode=verify-ca)."), "\(chainOnly.out)")
    }

    @Test func disableAgainstATLSOnlyServerIsRefused() async throws {
        expectRefused(try await worldcup(["list", "--database", server.url(password: password, query: "sslmode=disable")]),
                      "The PostgreSQL server at localhost:\(server.port) accepts only encrypted connections from here, and sslmode=disable asks for none: use sslmode=require or higher (verify-full with the server's CA file is best).")
    }

    @Test func requireWithoutACAEncryptsWithoutVerifying() async throws {
        let check = try await worldcup(["check", "--database", server.url(password: password, query: "sslmode=require")])
        #expect(check.status == 0, "\(check.err)")
        #expect(check.out.contains("but the server's certificate was not verified (sslmode=require)"), "\(check.out)")
        // The default, prefer, takes the TLS the server offers.
        let preferred = try await worldcup(["check", "--database", server.url(password: password)])
        #expect(preferred.out.contains("is encrypted with TLSv1."), "\(preferred)")
    }

    @Test func requireWithARootCertificateInHomeVerifiesTheChainAsLibpqDoes() async throws {
        let folder = home.file(".postgresql")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let root = folder.appendingPathComponent("root.crt").path
        try FileManager.default.copyItem(atPath: server.otherCAFile, toPath: root)
        expectRefused(try await worldcup(["list", "--database", server.url(password: password, query: "sslmode=require")]),
                      "The PostgreSQL server at localhost:\(server.port) has a certificate not vouched for by “\(root)”: give the server's CA file with sslrootcert, or use sslmode=require to encrypt without verifying.")
        try FileManager.default.removeItem(atPath: root)
        try FileManager.default.copyItem(atPath: server.caFile, toPath: root)
        let check = try await worldcup(["check", "--database", server.url(password: password, query: "sslmode=require")])
        #expect(check.out.contains("verified against “\(root)”, not its name (sslmode=require)."), "\(check)")
    }

    @Test func theVariablesAndThePasswordFileAreHonoured() async throws {
        let passwordFile = home.file("pgpass")
        // libpq's escapes: the password holds a colon and a backslash.
        let escaped = password.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: ":", with: "\\:")
        try "# worldcup's test\nelsewhere:*:*:*:wrong\nlocalhost:\(server.port):*:\(TLSServer.user):\(escaped)\n".write(to: passwordFile, atomically: true, encoding: .utf8)
        chmod(passwordFile.path, 0o600)
        let environment = ["PGSSLMODE": "verify-full", "PGSSLROOTCERT": server.caFile, "PGPASSFILE": passwordFile.path]
        let check = try await worldcup(["check", "--database", server.url()], environment: environment)
        #expect(check.status == 0, "\(check.err)")
        #expect(check.out.contains("its name included (“localhost” matched the host; sslmode=verify-full)"), "\(check.out)")
        // PGSSLROOTCERT is used: the other CA is refused.
        let other = try await worldcup(["list", "--database", server.url()], environment: environment.merging(["PGSSLROOTCERT": server.otherCAFile]) { $1 })
        #expect(other.err.contains("not vouched for by “\(server.otherCAFile)”"), "\(other.err)")
        // PGSSLMODE is used: disable is refused by the server.
        let clear = try await worldcup(["list", "--database", server.url()], environment: environment.merging(["PGSSLMODE": "disable"]) { $1 })
        #expect(clear.err.contains("accepts only encrypted connections"), "\(clear.err)")
        // ~/.pgpass by default; readable by others, it is ignored with a warning, as libpq does.
        let pgpass = home.file(".pgpass")
        try FileManager.default.copyItem(at: passwordFile, to: pgpass)
        defer { try? FileManager.default.removeItem(at: pgpass) }
        let byDefault = try await worldcup(["list", "--database", server.url(query: "sslmode=require")])
        #expect(byDefault.status == 0, "\(byDefault.err)")
        chmod(pgpass.path, 0o644)
        let loose = try await worldcup(["list", "--database", server.url(query: "sslmode=require")])
        #expect(loose.status != 0)
        #expect(loose.err == """
            Warning: The password file “\(pgpass.path)” can be read by others, so it was ignored: run chmod 600 \(WorldCupError.shellQuoted(pgpass.path)).
            Error: The PostgreSQL server at localhost:\(server.port) asks the user “app” for a password, and none was given (in the URL, PGPASSWORD or the password file).

            """)
    }

    @Test func aClientCertificateLogsIn() async throws {
        let url = server.url(user: TLSServer.certificateUser, database: "certboard",
                             query: "sslmode=verify-full&sslrootcert=\(server.caFile)&sslcert=\(server.clientCertificate)&sslkey=\(server.clientKey)")
        let list = try await worldcup(["list", "--database", url])
        #expect(list.status == 0, "\(list.err)")
        // Without it, the server refuses the role.
        let without = try await worldcup(["list", "--database", server.url(user: TLSServer.certificateUser, database: "certboard", query: "sslmode=require")])
        #expect(without.status != 0 && without.err.contains("“certuser”"), "\(without.err)")
        // libpq's default files: ~/.postgresql/postgresql.crt and postgresql.key.
        let folder = home.file(".postgresql")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.copyItem(atPath: server.clientCertificate, toPath: folder.appendingPathComponent("postgresql.crt").path)
        let key = folder.appendingPathComponent("postgresql.key").path
        try FileManager.default.copyItem(atPath: server.clientKey, toPath: key)
        chmod(key, 0o600)
        let byDefault = try await worldcup(["list", "--database", server.url(user: TLSServer.certificateUser, database: "certboard", query: "sslmode=require")])
        #expect(byDefault.status == 0, "\(byDefault.err)")
        // A key others may read is refused, as libpq refuses it: 0600 at most, 0640 when root owns it.
        chmod(key, 0o644)
        let rootOwned = getuid() == 0
        expectRefused(try await worldcup(["list", "--database", server.url(user: TLSServer.certificateUser, database: "certboard", query: "sslmode=require")]),
                      "The client key file “\(key)” can be read by others (permissions 0644), so it was not used: run chmod 600 \(WorldCupError.shellQuoted(key)), as libpq also requires.")
        chmod(key, 0o640)
        let groupReadable = try await worldcup(["list", "--database", server.url(user: TLSServer.certificateUser, database: "certboard", query: "sslmode=require")])
        #expect((groupReadable.status == 0) == rootOwned, "\(groupReadable.err)")
    }

    @Test func filesAndParametersThatCannotBeUsedAreOneSentence() async throws {
        let missing = home.file("nowhere.crt").path
        let cases: [(query: String, sentence: String)] = [
            ("channel_binding=require",
             "Channel binding (channel_binding=require) needs SCRAM-SHA-256-PLUS, which worldcup's PostgreSQL driver (postgres-nio) does not have: use channel_binding=prefer with sslmode=verify-full, which makes sure of the server before the password is sent."),
            ("sslmode=verify-full&sslrootcert=\(missing)",
             "The root certificate file “\(missing)” (sslrootcert) does not exist: give the path of an existing file."),
            ("sslmode=verify-ca",
             "The mode sslmode=verify-ca needs the server's root certificate: give its file with sslrootcert (or put it in ~/.postgresql/root.crt), use sslrootcert=system for the system's trusted roots, or use sslmode=require to encrypt without verifying."),
            ("sslmode=require&sslcert=\(missing)",
             "The client certificate file “\(missing)” (sslcert) does not exist: give the path of an existing file."),
            ("sslmode=require&sslcert=\(server.clientCertificate)&sslkey=\(missing)",
             "The client key file “\(missing)” (sslkey) does not exist: give the path of an existing file."),
            ("sslmode=require&sslrootcert=system",
             "The system's trusted roots (sslrootcert=system) need sslmode=verify-full, and sslmode asks for require: they vouch for any public server, so its name must be checked too."),
            ("sslmode=secure", "The sslmode “secure” (sslmode) is not one libpq knows: use disable, allow, prefer, require, verify-ca or verify-full."),
            ("connect_timeout=soon", "The connection timeout “soon” (connect_timeout) is not a whole number of seconds."),
            ("sslcompression=1", "The database URL has a parameter worldcup does not know: “sslcompression”."),
        ]
        for (query, sentence) in cases {
            expectRefused(try await worldcup(["list", "--database", server.url(password: password, query: query)]), sentence)
        }
        let variable = try await worldcup(["list", "--database", server.url(password: password)], environment: ["PGCHANNELBINDING": "require"])
        #expect(variable.err.hasPrefix("Error: Channel binding (PGCHANNELBINDING=require) needs SCRAM-SHA-256-PLUS"), "\(variable.err)")
    }

    /// The board's title says "· TLS" when sslmode=prefer took the TLS a server offers, and
    /// not when it offers none: what the store's first look found (no statement of its own).
    @Test func aBoardsTitleSaysWhetherPreferTookTLS() async throws {
        let plain = try TLSServer(tls: false)
        defer { plain.stop() }
        for (tls, url) in [(true, server.url(password: password)), (false, plain.url(password: password))] {
            let store = try PostgresTeamStore(location: try PostgresLocation(url: url, environment: ["HOME": home.url.path]), seed: Seed.bundled())
            let title = try #require(store.server)
            #expect(title.hasSuffix(" · TLS") == tls, "\(title)")
        }
    }

    @Test func preferAgainstAServerWithoutTLSWorksInClearAndRequireIsRefused() async throws {
        let plain = try TLSServer(tls: false)
        defer { plain.stop() }
        let check = try await worldcup(["check", "--database", plain.url(password: password)])
        #expect(check.status == 0, "\(check.err)")
        #expect(check.out.hasSuffix("The connection to localhost:\(plain.port) is not encrypted (the server offers no TLS, and sslmode=prefer settles for that): use sslmode=verify-full with the server's CA file to make sure of it.\n"), "\(check.out)")
        expectRefused(try await worldcup(["list", "--database", plain.url(password: password, query: "sslmode=require")]),
                      "The PostgreSQL server at localhost:\(plain.port) offers no TLS, and sslmode=require requires it: ask its owner to turn ssl on, or use sslmode=prefer to connect in clear.")
    }
}
