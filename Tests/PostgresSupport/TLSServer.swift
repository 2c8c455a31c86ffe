import Foundation
import Glibc
import ThrowawayPostgres

/// A throwaway cluster on 127.0.0.1 (and ::1 where the machine has IPv6 loopback) at a free
/// port that accepts only TLS, with its certificates made at test time with the `openssl`
/// command in the cluster's folder (removed with it): a CA, a server certificate signed by it
/// for `localhost` only (or the `names` given: `IP:127.0.0.1` for an address only), an
/// unrelated second CA, and a client certificate of the role `certuser`.
///
/// pg_hba.conf: local connections trusted (the tests' psql), `hostssl` with scram-sha-256 for
/// everyone, except `certuser`, who logs in with its certificate (`cert`). The role `app` has
/// the password `password`; the database `worldcup` is `app`'s, `certboard` is `certuser`'s.
///
/// With `tls: false`: the same roles and databases on a server without TLS that trusts
/// connections from 127.0.0.1 (initdb's own pg_hba.conf).
public final class TLSServer: Sendable {
    public let cluster: ThrowawayPostgres
    /// The certificates: ca.crt, other-ca.crt, client.crt and client.key.
    public let certificates: URL
    public static let user = "app"
    public static let password = "pass:word\\"
    public static let certificateUser = "certuser"

    public var port: Int { cluster.port }
    /// The CA that signed the server's certificate.
    public var caFile: String { certificates.appendingPathComponent("ca.crt").path }
    /// A CA that signed nothing of this server's.
    public var otherCAFile: String { certificates.appendingPathComponent("other-ca.crt").path }
    public var clientCertificate: String { certificates.appendingPathComponent("client.crt").path }
    public var clientKey: String { certificates.appendingPathComponent("client.key").path }

    /// Whether the machine has an IPv6 loopback (`::1`) the server also listens on.
    public static let hasIPv6Loopback: Bool = {
        let descriptor = socket(AF_INET6, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var address = sockaddr_in6()
        address.sin6_family = sa_family_t(AF_INET6)
        address.sin6_addr = in6addr_loopback
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) == 0 }
        }
    }()

    /// `names`: the server certificate's subject alternative names (openssl's spelling), and
    /// `commonName` its subject's.
    public init(tls: Bool = true, names: String = "DNS:localhost", commonName: String = "localhost") throws {
        let listen = Self.hasIPv6Loopback ? [("listen_addresses", "'127.0.0.1,::1'")] : []
        cluster = try ThrowawayPostgres.start(maxConnections: 100, tcpPort: Self.freePort(), settings: listen) { folder in
            tls ? try Self.prepareTLS(in: folder, names: names, commonName: commonName) : []
        }
        certificates = cluster.folder
        let password = Self.password.replacingOccurrences(of: "'", with: "''")
        try cluster.psql("CREATE ROLE \(Self.user) LOGIN PASSWORD '\(password)'")
        try cluster.psql("CREATE ROLE \(Self.certificateUser) LOGIN")
        try cluster.psql("CREATE DATABASE worldcup OWNER \(Self.user)")
        try cluster.psql("CREATE DATABASE certboard OWNER \(Self.certificateUser)")
    }

    deinit { stop() }

    /// Stops the cluster and removes its folder, the certificates with it.
    public func stop() {
        cluster.stop()
    }

    /// The certificates and a pg_hba.conf in `folder`, the cluster's, and the settings that use them.
    static func prepareTLS(in folder: URL, names: String, commonName: String) throws -> [(String, String)] {
        try makeCertificates(in: folder, names: names, commonName: commonName)
        let hba = folder.appendingPathComponent("pg_hba.conf")
        try """
            local all all trust
            hostssl all \(certificateUser) 127.0.0.1/32 cert
            hostssl all all 127.0.0.1/32 scram-sha-256
            hostssl all \(certificateUser) ::1/128 cert
            hostssl all all ::1/128 scram-sha-256

            """.write(to: hba, atomically: true, encoding: .utf8)
        // The server runs as postgres (when we are root), and wants its key private to it.
        if getuid() == 0, let postgres = getpwnam("postgres") {
            for name in ["server.crt", "server.key", "ca.crt", "pg_hba.conf"] {
                chown(folder.appendingPathComponent(name).path, postgres.pointee.pw_uid, postgres.pointee.pw_gid)
            }
        }
        return [("ssl", "on"), ("ssl_cert_file", "'\(folder.path)/server.crt'"), ("ssl_key_file", "'\(folder.path)/server.key'"),
                ("ssl_ca_file", "'\(folder.path)/ca.crt'"), ("hba_file", "'\(hba.path)'")]
    }

    /// A postgres:// URL of `database` on this server at `host` (`localhost`, or `127.0.0.1`,
    /// which the certificate does not name) and `port` (another: a relay's) with `query` (`sslmode=verify-full&…`), as `user`
    /// with `password` (none: the URL has none).
    public func url(host: String = "localhost", port: Int? = nil, user: String = TLSServer.user, password: String? = nil,
                    database: String = "worldcup", query: String = "") -> String {
        let login = password.map { "\(user):\($0.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? $0)" } ?? user
        return "postgres://\(login)@\(host):\(port ?? self.port)/\(database)\(query.isEmpty ? "" : "?" + query)"
    }

    /// A port on 127.0.0.1 nobody listens on now.
    static func freePort() throws -> Int {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let found = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0 }
        }
        guard found else { throw TestServerError("No free TCP port could be had for the TLS test server.") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// The CA, the server's and the client's certificates, and the unrelated CA, with openssl.
    static func makeCertificates(in folder: URL, names: String, commonName: String) throws {
        let key = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        try openssl(["req", "-x509"] + key + ["-keyout", "ca.key", "-out", "ca.crt", "-days", "2", "-subj", "/CN=WorldCup test CA"], in: folder)
        try openssl(["req", "-x509"] + key + ["-keyout", "other-ca.key", "-out", "other-ca.crt", "-days", "2", "-subj", "/CN=Unrelated CA"], in: folder)
        try "subjectAltName=\(names)\n".write(to: folder.appendingPathComponent("server.ext"), atomically: true, encoding: .utf8)
        for (name, subject, extensions) in [("server", "/CN=\(commonName)", ["-extfile", "server.ext"]), ("client", "/CN=\(certificateUser)", [])] {
            try openssl(["req"] + key + ["-keyout", "\(name).key", "-out", "\(name).csr", "-subj", subject], in: folder)
            try openssl(["x509", "-req", "-in", "\(name).csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial",
                         "-out", "\(name).crt", "-days", "2"] + extensions, in: folder)
            chmod(folder.appendingPathComponent("\(name).key").path, 0o600)
        }
    }

    /// Runs openssl in `folder`; throws its error output when it fails.
    static func openssl(_ arguments: [String], in folder: URL) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        process.arguments = arguments
        process.currentDirectoryURL = folder
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        do { try process.run() } catch {
            throw TestServerError("openssl did not run (\(error)): run `make test`, which installs it.")
        }
        let output = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw TestServerError("openssl \(arguments.prefix(2).joined(separator: " ")) failed: \(String(decoding: output, as: UTF8.self))")
        }
    }
}
