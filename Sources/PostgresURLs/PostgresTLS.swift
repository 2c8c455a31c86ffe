import Foundation

/// TLS for a connection as libpq settles it from `sslmode`, `sslrootcert`, `sslcert` and
/// `sslkey` (or PGSSLMODE, PGSSLROOTCERT, PGSSLCERT and PGSSLKEY), and the files in
/// `~/.postgresql`.
///
/// libpq's rules: `require` verifies the chain (as `verify-ca`) when a root certificate file is
/// given or `~/.postgresql/root.crt` exists, and otherwise verifies nothing; `verify-ca` and
/// `verify-full` need a root certificate file; `sslrootcert=system` is the system's trust store
/// and implies `verify-full`. A client certificate is sent when `sslcert` names one or
/// `~/.postgresql/postgresql.crt` exists, with its key from `sslkey` or
/// `~/.postgresql/postgresql.key`, which must not be readable by group or others.
///
/// Stricter than libpq where it would hide a mistake: a file named outright (by a parameter or a
/// variable) that does not exist is refused, where libpq silently goes on without it.
public struct PostgresTLS: Equatable, Sendable {
    /// What the client checks of the server's certificate.
    public enum Verification: Equatable, Sendable {
        /// Nothing: the connection is encrypted, the server not authenticated.
        case none
        /// The chain leads to the root certificates.
        case chain
        /// The chain, and the certificate names the host.
        case chainAndHostName
    }

    /// Where the root certificates come from.
    public enum Roots: Equatable, Sendable {
        case file(String)
        /// The system's trust store (`sslrootcert=system`).
        case system
    }

    /// The mode asked for (`allow` stays `allow`; it behaves as `prefer`).
    public var mode: SSLMode
    public var verification: Verification
    /// The root certificates, when something is verified.
    public var roots: Roots?
    /// The client certificate, when one is sent.
    public var clientCertificate: ClientCertificate?

    /// A client certificate file (PEM) and its private key file.
    public struct ClientCertificate: Equatable, Sendable {
        public var certificate: String
        public var key: String
    }

    /// No TLS (`sslmode=disable`, and every Unix socket: libpq uses no TLS on them).
    public static let disabled = PostgresTLS(mode: .disable, verification: .none, roots: nil)

    init(mode: SSLMode, verification: Verification, roots: Roots?) {
        self.mode = mode
        self.verification = verification
        self.roots = roots
    }

    typealias Setting = PostgresSettings.Setting

    /// Settles TLS from `setting` (a URL parameter by name, or its variable) and the files in
    /// `home`'s `.postgresql` folder. Throws when a mode is unknown, a file named does not exist
    /// or cannot be read, a mode that verifies has no root certificates, or the client's key is
    /// readable by others.
    init(setting: (_ parameter: String) -> Setting?, home: String?) throws(PostgresSettingsError) {
        let rootSetting = setting("sslrootcert")
        let modeSetting = setting("sslmode")
        var mode = try modeSetting.map { mode throws(PostgresSettingsError) in try SSLMode(parsing: mode.value, from: mode.source) } ?? .prefer
        let system = rootSetting?.value == "system"
        if system {
            // PostgreSQL 16's rule: the system's roots vouch for anyone's certificate, so the name must be checked.
            if let modeSetting, mode != .verifyFull { throw .systemRootsNeedVerifyFull(source: modeSetting.source, mode: mode) }
            mode = .verifyFull
        }
        let folder = home.map { URL(fileURLWithPath: $0).appendingPathComponent(".postgresql").path }
        self.init(mode: mode, verification: .none, roots: nil)
        guard mode != .disable else { return }

        if system {
            roots = .system
        } else if let rootSetting {
            try Self.checkReadable(rootSetting.value, role: .rootCertificate, setting: rootSetting.source)
            roots = .file(rootSetting.value)
        } else if let folder, FileManager.default.fileExists(atPath: folder + "/root.crt") {
            roots = .file(folder + "/root.crt")
        }
        switch mode {
        case .disable, .allow, .prefer:
            // libpq verifies here too when it finds root certificates, and falls back to a
            // connection in clear when that fails; postgres-nio cannot fall back, so nothing is verified.
            roots = nil
        case .require:
            verification = roots == nil ? .none : .chain
        case .verifyCA, .verifyFull:
            guard roots != nil else { throw .verificationWithoutRoots(mode) }
            verification = mode == .verifyFull ? .chainAndHostName : .chain
        }
        try settleClientCertificate(certificate: setting("sslcert"), key: setting("sslkey"), folder: folder)
    }

    /// The client certificate libpq would send: `certificate`'s file, or ~/.postgresql/postgresql.crt
    /// when it exists, with its key.
    private mutating func settleClientCertificate(certificate: Setting?, key: Setting?, folder: String?) throws(PostgresSettingsError) {
        let certificatePath: String
        if let certificate {
            try Self.checkReadable(certificate.value, role: .clientCertificate, setting: certificate.source)
            certificatePath = certificate.value
        } else if let folder, FileManager.default.fileExists(atPath: folder + "/postgresql.crt") {
            certificatePath = folder + "/postgresql.crt"
            try Self.checkReadable(certificatePath, role: .clientCertificate, setting: "sslcert")
        } else {
            return
        }
        let keyPath: String
        if let key {
            keyPath = key.value
            try Self.checkReadable(keyPath, role: .clientKey, setting: key.source)
        } else if let folder {
            keyPath = folder + "/postgresql.key"
            guard FileManager.default.fileExists(atPath: keyPath) else { throw .clientCertificateWithoutKey(certificatePath, keyLookedFor: keyPath) }
            try Self.checkReadable(keyPath, role: .clientKey, setting: "sslkey")
        } else {
            throw .clientCertificateWithoutKey(certificatePath, keyLookedFor: nil)
        }
        try Self.checkPrivate(keyPath)
        clientCertificate = ClientCertificate(certificate: certificatePath, key: keyPath)
    }

    /// Throws when `path` is not a file this process can read.
    static func checkReadable(_ path: String, role: PostgresSettingsError.FileRole, setting: String) throws(PostgresSettingsError) {
        var status = stat()
        guard stat(path, &status) == 0 else {
            throw .unusableFile(path, role: role, setting: setting, problem: errno == ENOENT ? .missing : .inaccessible(errno: errno))
        }
        guard status.st_mode & S_IFMT == S_IFREG else { throw .unusableFile(path, role: role, setting: setting, problem: .notRegular) }
        guard access(path, R_OK) == 0 else { throw .unusableFile(path, role: role, setting: setting, problem: .unreadable(errno: errno)) }
    }

    /// Throws when the private key at `path` is readable by group or others, as
    /// libpq refuses it: at most 0640 when root owns it (a key shared through a group, whoever
    /// runs), at most 0600 otherwise.
    static func checkPrivate(_ path: String) throws(PostgresSettingsError) {
        var status = stat()
        guard stat(path, &status) == 0 else { return }
        let ownedByRoot = status.st_uid == 0
        let loose = status.st_mode & (ownedByRoot ? S_IWGRP | S_IXGRP | S_IRWXO : S_IRWXG | S_IRWXO) != 0
        guard loose else { return }
        throw .clientKeyReadableByOthers(path, permissions: status.st_mode & 0o777)
    }
}
