import NIOSSL
import PostgresNIO
import WorldCup

extension PostgresTeamStore {
    /// Why connecting failed, when TLS (or its absence) is why: one sentence that says what to
    /// do, naming the root certificates used and the host checked; nil for other failures.
    static func tlsFailure(_ error: PSQLError, at location: PostgresLocation) -> WorldCupError? {
        let server = location.server
        let tls = location.tls
        if error.code == .sslUnsupported { return tlsFailure(underlying: HostCheckedChannel.NoTLS(), at: location) }
        if error.serverInfo?[.sqlState] == "28000", let message = error.serverInfo?[.message],
           message.hasPrefix("no pg_hba.conf entry"), message.hasSuffix("no encryption") {
            // pg_hba.conf has only `hostssl` lines for this client: it asked for no TLS.
            let why = tls.mode == .disable ? "sslmode=disable asks for none" : "the connection was made without it"
            return WorldCupError("The PostgreSQL server at \(server) accepts only encrypted connections from here, and \(why): use sslmode=require or higher (verify-full with the server's CA file is best).")
        }
        guard error.code == .connectionError, let underlying = error.underlying else { return nil }
        return tlsFailure(underlying: underlying, at: location)
    }

    /// Why connecting failed, when the TLS handshake or the host check (`HostCheckedChannel`)
    /// is why; nil for other failures.
    static func tlsFailure(underlying: any Error, at location: PostgresLocation) -> WorldCupError? {
        let server = location.server
        let tls = location.tls
        if underlying is HostCheckedChannel.NoTLS {
            return WorldCupError("The PostgreSQL server at \(server) offers no TLS, and sslmode=\(tls.mode.rawValue) requires it: ask its owner to turn ssl on, or use sslmode=prefer to connect in clear.")
        }
        if let mismatch = underlying as? HostCheckedChannel.Mismatch {
            let host = "“\(WorldCupError.quotable(location.url.host))”"
            let names = mismatch.names.isEmpty ? "it names none" : "it names \(mismatch.names.map { "“\(WorldCupError.quotable($0))”" }.joined(separator: ", "))"
            return WorldCupError("The PostgreSQL server's certificate does not name the host \(host) (\(names)): connect with a host name the certificate holds, or use sslmode=verify-ca to check only that \(tls.rootsShown) vouches for it.")
        }
        if let failure = underlying as? NIOSSLError, case .handshakeFailed(let reason) = failure {
            if "\(reason)".contains("CERTIFICATE_VERIFY_FAILED") {
                return WorldCupError("The PostgreSQL server at \(server) has a certificate not vouched for by \(tls.rootsShown): give the server's CA file with sslrootcert, or use sslmode=require to encrypt without verifying.")
            }
            return WorldCupError("The TLS handshake with the PostgreSQL server at \(server) failed (\(WorldCupError.quotable("\(reason)", limit: 200))).")
        }
        return nil
    }
}
