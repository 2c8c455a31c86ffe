import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import NIOSSL

/// The names a PostgreSQL server's certificate holds (its subject alternative names), fetched
/// with a handshake of its own: for the sentence of a host the certificate does not name,
/// which postgres-nio's error leaves out.
enum CertificateNames {
    /// The names, or nil when they could not be had within a few seconds.
    static func fetch(location: PostgresLocation) -> [String]? {
        let eventLoop = MultiThreadedEventLoopGroup.singleton.next()
        let names = eventLoop.makePromise(of: [String].self)
        let connecting = ClientBootstrap(group: eventLoop)
            .connectTimeout(.seconds(3))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(SSLRequest(names: names)) }
            }
            .connect(host: location.url.host, port: location.url.port)
        connecting.whenFailure { names.fail($0) }
        let timeout = eventLoop.scheduleTask(in: .seconds(3)) { names.fail(ChannelError.connectTimeout(.seconds(3))) }
        defer {
            timeout.cancel()
            connecting.whenSuccess { $0.close(promise: nil) }
        }
        return try? names.futureResult.wait()
    }

    /// Asks the server for TLS (PostgreSQL's SSLRequest), then shakes hands, reading the
    /// certificate's names and verifying nothing.
    private final class SSLRequest: ChannelInboundHandler, RemovableChannelHandler {
        typealias InboundIn = ByteBuffer
        let names: EventLoopPromise<[String]>

        init(names: EventLoopPromise<[String]>) {
            self.names = names
        }

        func channelActive(context: ChannelHandlerContext) {
            var request = context.channel.allocator.buffer(capacity: 8)
            request.writeMultipleIntegers(UInt32(8), UInt32(80_877_103))
            context.writeAndFlush(NIOAny(request), promise: nil)
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            var answer = unwrapInboundIn(data)
            guard answer.readInteger(as: UInt8.self) == UInt8(ascii: "S"),
                  let tls = try? NIOSSLContext(configuration: .makeClientConfiguration()) else {
                names.fail(ChannelError.inappropriateOperationForState)
                return
            }
            let names = self.names
            do {
                let verify: NIOSSLCustomVerificationCallback = { certificates, verified in
                    names.succeed(certificates.first.map(Self.names(of:)) ?? [])
                    verified.succeed(NIOSSLVerificationResult.failed)
                }
                let handler = try NIOSSLClientHandler(context: tls, serverHostname: nil, customVerificationCallback: verify)
                try context.pipeline.syncOperations.addHandler(handler, position: .first)
                context.pipeline.syncOperations.removeHandler(self, promise: nil)
            } catch {
                names.fail(error)
            }
        }

        /// The DNS names and IP addresses of the certificate's subject alternative names.
        static func names(of certificate: NIOSSLCertificate) -> [String] {
            certificate._subjectAlternativeNames().compactMap { name in
                let bytes = Array(name.contents)
                switch name.nameType {
                case .dnsName: return String(decoding: bytes, as: UTF8.self)
                case .ipAddress where bytes.count == 4 || bytes.count == 16:
                    var text = [CChar](repeating: 0, count: 64)
                    _ = inet_ntop(bytes.count == 4 ? AF_INET : AF_INET6, bytes, &text, 64)
                    return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                default: return nil
                }
            }
        }
    }
}
