import Foundation
import PostgresURLs
import WorldCup

extension WorldCupError {
    /// The sentence for what the reading of libpq's settings found wrong: the one place that
    /// words them, quoting what came from outside (a path, a value).
    init(_ error: PostgresSettingsError) {
        self.init(Self.sentence(for: error))
    }

    private static func sentence(for error: PostgresSettingsError) -> String {
        switch error {
        case .malformedURL:
            return "The database URL is not a valid PostgreSQL URL (postgres://user:password@host:port/database)."
        case .unknownParameter(let name):
            return "The database URL has a parameter worldcup does not know: “\(quotable(name))”."
        case .undefinedService(let service, let files):
            let shown = files.map { "“\(quotable($0, limit: 300))”" }.joined(separator: " or ")
            return "The service “\(quotable(service))” is not defined in \(shown): add a [\(quotable(service))] section, or check PGSERVICE."
        case .serviceLineWithoutValue(let file, let line):
            return "Line \(line) of the service file “\(quotable(file, limit: 300))” is not a keyword=value setting."
        case .unknownServiceKeyword(let file, let line, let keyword):
            return "Line \(line) of the service file “\(quotable(file, limit: 300))” sets “\(quotable(keyword, limit: 60))”, which is not a setting worldcup knows."
        case .notAPort(let value, let fromService):
            return "\(fromService ? "The service's port" : "PGPORT") is not a port number: “\(quotable(value))”."
        case .unknownSSLMode(let value, let source):
            let modes = SSLMode.allCases.dropLast().map(\.rawValue).joined(separator: ", ") + " or " + SSLMode.verifyFull.rawValue
            return "The sslmode “\(quotable(value))” (\(source)) is not one libpq knows: use \(modes)."
        case .unfollowedTargetSession(let value, let source, let isStandby):
            let standby = isStandby ? ": a board writes, so it follows a primary" : ""
            return "The target_session_attrs “\(quotable(value))” (\(source)) is not one worldcup follows\(standby); use any, read-write or primary."
        case .channelBindingRequired(let source):
            return "Channel binding (\(source)=require) needs SCRAM-SHA-256-PLUS, which worldcup's PostgreSQL driver (postgres-nio) does not have: use channel_binding=prefer with sslmode=verify-full, which makes sure of the server before the password is sent."
        case .unknownChannelBinding(let value, let source):
            return "The channel binding “\(quotable(value))” (\(source)) is not one libpq knows: use disable, prefer or require."
        case .directNegotiation(let source):
            return "Direct TLS (\(source)=direct) is not something worldcup's PostgreSQL driver (postgres-nio) can do: leave it out, and the connection asks the server for TLS first, as sslnegotiation=postgres does."
        case .unknownNegotiation(let value, let source):
            return "The TLS negotiation “\(quotable(value))” (\(source)) is not one libpq knows: use postgres or direct."
        case .notSeconds(let value, let source):
            return "The connection timeout “\(quotable(value))” (\(source)) is not a whole number of seconds."
        case .systemRootsNeedVerifyFull(let source, let mode):
            return "The system's trusted roots (sslrootcert=system) need sslmode=verify-full, and \(source) asks for \(mode.rawValue): they vouch for any public server, so its name must be checked too."
        case .verificationWithoutRoots(let mode):
            return "The mode sslmode=\(mode.rawValue) needs the server's root certificate: give its file with sslrootcert (or put it in ~/.postgresql/root.crt), use sslrootcert=system for the system's trusted roots, or use sslmode=require to encrypt without verifying."
        case .unusableFile(let path, let role, let setting, let problem):
            return "The \(Self.name(of: role)) “\(quotable(path, limit: 300))” (\(setting)) \(Self.phrase(for: problem))."
        case .clientCertificateWithoutKey(let certificate, let key):
            let named = key.map { " “\(quotable($0, limit: 300))”" } ?? ""
            return "The client certificate “\(quotable(certificate, limit: 300))” has no key file\(named): give the key's path with sslkey."
        case .clientKeyReadableByOthers(let path, let permissions):
            return "The client key file “\(quotable(path, limit: 300))” can be read by others (permissions 0\(String(permissions, radix: 8))), so it was not used: run \(shellCommand("chmod 600", path)), as libpq also requires."
        }
    }

    private static func name(of role: PostgresSettingsError.FileRole) -> String {
        switch role {
        case .rootCertificate: "root certificate file"
        case .clientCertificate: "client certificate file"
        case .clientKey: "client key file"
        }
    }

    /// What is wrong with a file, and what to do, as the end of a sentence.
    private static func phrase(for problem: PostgresSettingsError.FileProblem) -> String {
        switch problem {
        case .missing: "does not exist: give the path of an existing file"
        case .inaccessible(let code): "cannot be read (\(String(cString: strerror(code)))): give the path of an existing file"
        case .notRegular: "is not a regular file: give the path of a file"
        case .unreadable(let code): "cannot be read (\(String(cString: strerror(code)))): let this user read it"
        }
    }

    /// The sentence for what the reading found worth a warning (printed after "Warning: ").
    static func sentence(for warning: PostgresSettingsWarning) -> String {
        switch warning {
        case .passwordFileNotPlain(let path):
            return "The password file “\(quotable(path, limit: 300))” is not a plain file, so it was ignored."
        case .passwordFileReadableByOthers(let path):
            return "The password file “\(quotable(path, limit: 300))” can be read by others, so it was ignored: run \(shellCommand("chmod 600", path))."
        }
    }
}
