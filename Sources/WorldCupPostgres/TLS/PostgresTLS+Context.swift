import NIOSSL
import PostgresNIO
import PostgresURLs
import WorldCup

extension PostgresTLS {
    /// postgres-nio's TLS for these settings: a swift-nio-ssl context that verifies what the
    /// mode asks (TLS 1.2 at least, as libpq), with the client certificate when there is one.
    /// Throws one sentence when a certificate or key file is not PEM.
    func connectionTLS() throws -> PostgresConnection.Configuration.TLS {
        guard mode != .disable else { return .disable }
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.minimumTLSVersion = .tlsv12
        // Closing sends close_notify and closes at once, as libpq does: swift-nio-ssl would wait
        // up to 5 s for the server's, and a connection closed because the network is dead would
        // then hold up reconnecting for as long.
        configuration.shutdownTimeout = .zero
        switch verification {
        case .none: configuration.certificateVerification = .none
        // swift-nio-ssl checks the chain only; for verify-full, `HostCheckedChannel` then checks
        // the host as libpq does (swift-nio-ssl's own check accepts the address connected to).
        case .chain, .chainAndHostName: configuration.certificateVerification = .noHostnameVerification
        }
        switch roots {
        case .file(let path): configuration.trustRoots = .file(path)
        case .system, nil: configuration.trustRoots = .default
        }
        if let client = clientCertificate {
            do {
                configuration.certificateChain = try NIOSSLCertificate.fromPEMFile(client.certificate).map { .certificate($0) }
            } catch {
                throw WorldCupError("The client certificate file “\(WorldCupError.quotable(client.certificate, limit: 300))” is not a PEM certificate: give the certificate as PEM text (-----BEGIN CERTIFICATE-----).")
            }
            do {
                configuration.privateKey = .privateKey(try NIOSSLPrivateKey(file: client.key, format: .pem))
            } catch {
                throw WorldCupError("The client key file “\(WorldCupError.quotable(client.key, limit: 300))” is not a PEM private key without a passphrase: give the key as PEM text (openssl pkey -in it -out key.pem also takes a passphrase off).")
            }
        }
        let context: NIOSSLContext
        do {
            context = try NIOSSLContext(configuration: configuration)
        } catch {
            if case .file(let path) = roots {
                throw WorldCupError("The root certificate file “\(WorldCupError.quotable(path, limit: 300))” holds no PEM certificate: give the server's CA file as PEM text (-----BEGIN CERTIFICATE-----), as providers give it.")
            }
            throw WorldCupError("TLS could not be set up: \(WorldCupError.quotable("\(error)", limit: 200)).")
        }
        return mode.demandsTLS ? .require(context) : .prefer(context)
    }

    /// The root certificates as sentences name them: the file, or the system's trust store.
    var rootsShown: String {
        switch roots {
        case .file(let path): "“\(WorldCupError.quotable(path, limit: 300))”"
        case .system: "the system's trusted roots"
        case nil: "no root certificate"
        }
    }
}
