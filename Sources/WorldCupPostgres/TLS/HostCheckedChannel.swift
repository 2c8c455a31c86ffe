import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import NIOSSL
import NIOTLS

/// The TLS channel of a `verify-full` connection, made here rather than by postgres-nio so that
/// the host is checked as libpq checks it (`CertificateNames.match`) after the handshake and
/// before anything else is sent (the password above all): it asks for TLS (PostgreSQL's
/// SSLRequest), shakes hands verifying the chain only, checks the host against the server's
/// certificate, and hands the channel over, encrypted, for postgres-nio to log in on.
struct HostCheckedChannel: Sendable {
    /// The host as written, and the port.
    let host: String
    let port: Int
    /// The chain-only TLS context.
    let context: NIOSSLContext
    /// Where the name that matched goes (for `check`).
    let matched: NIOLockedValueBox<String?>

    /// The certificate names no host as written: its names, for the sentence.
    struct Mismatch: Error {
        var names: [String]
    }

    /// The server answered the SSLRequest with no.
    struct NoTLS: Error {}

    /// Connects on `eventLoop`, within `deadline` (the channel is closed when it runs out).
    func connect(on eventLoop: any EventLoop, deadline: TimeAmount) -> EventLoopFuture<any Channel> {
        let ready = eventLoop.makePromise(of: (any Channel).self)
        let timeout = eventLoop.scheduleTask(in: deadline) { ready.fail(ChannelError.connectTimeout(deadline)) }
        let serverName = CertificateNames.addressBytes(host) == nil ? host : nil
        let (context, host, matched) = (context, host, matched)
        ClientBootstrap(group: eventLoop)
            .connectTimeout(deadline)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(StartTLS(context: context, serverName: serverName, host: host,
                                                                            matched: matched, ready: ready))
                }
            }
            .connect(host: self.host, port: port)
            .whenComplete { result in
                switch result {
                case .failure(let error): ready.fail(error)
                case .success(let channel): ready.futureResult.whenFailure { _ in channel.close(promise: nil) }
                }
            }
        ready.futureResult.whenComplete { _ in timeout.cancel() }
        return ready.futureResult
    }

    /// Asks for TLS, adds the TLS handler, checks the host once the handshake is done, and
    /// leaves the pipeline to postgres-nio.
    private final class StartTLS: ChannelInboundHandler, RemovableChannelHandler {
        typealias InboundIn = ByteBuffer
        let context: NIOSSLContext
        let serverName: String?
        let host: String
        let matched: NIOLockedValueBox<String?>
        let ready: EventLoopPromise<any Channel>
        var tls: NIOSSLClientHandler?

        init(context: NIOSSLContext, serverName: String?, host: String, matched: NIOLockedValueBox<String?>, ready: EventLoopPromise<any Channel>) {
            self.context = context
            self.serverName = serverName
            self.host = host
            self.matched = matched
            self.ready = ready
        }

        func channelActive(context: ChannelHandlerContext) {
            var request = context.channel.allocator.buffer(capacity: 8)
            request.writeMultipleIntegers(UInt32(8), UInt32(80_877_103))
            context.writeAndFlush(NIOAny(request), promise: nil)
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            var answer = unwrapInboundIn(data)
            guard tls == nil else { return }
            guard answer.readInteger(as: UInt8.self) == UInt8(ascii: "S") else { return fail(NoTLS(), context) }
            do {
                let handler = try NIOSSLClientHandler(context: self.context, serverHostname: serverName)
                try context.pipeline.syncOperations.addHandler(handler, position: .first)
                tls = handler
            } catch {
                fail(error, context)
            }
        }

        func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
            guard let event = event as? TLSUserEvent, case .handshakeCompleted = event, let tls else {
                return context.fireUserInboundEventTriggered(event)
            }
            let names = tls.peerCertificate.map(CertificateNames.init(of:)) ?? CertificateNames()
            guard let name = names.match(host: host) else { return fail(Mismatch(names: names.shown), context) }
            matched.withLockedValue { $0 = name }
            context.pipeline.syncOperations.removeHandler(self, promise: nil)
            ready.succeed(context.channel)
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            fail(error, context)
        }

        func channelInactive(context: ChannelHandlerContext) {
            ready.fail(ChannelError.eof)
            context.fireChannelInactive()
        }

        private func fail(_ error: any Error, _ context: ChannelHandlerContext) {
            ready.fail(error)
            context.close(promise: nil)
        }
    }
}
