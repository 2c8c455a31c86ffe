import NIOCore
import PostgresNIO

/// A notification a change feed's connection asks for on a channel of its own, sent from
/// another connection, to learn whether notifications reach it at all. Behind a pooler in
/// transaction mode they do not: LISTEN runs on whichever server session serves that one
/// statement, and a notification for that session is dropped or goes to another client.
/// Another connection sends it (one made for it, `PostgresReader.notify`): the pooler would
/// most likely hand the feed's own next statement the very session that listened, and the
/// probe would come back.
final class NotificationProbe: Sendable {
    /// A channel of this probe alone, so that no other listener is woken by it.
    let channel: String
    /// What the notification carries.
    let payload: String

    /// Succeeds when the feed has its verdict (or gave the probe up with its connection).
    let verdict: EventLoopPromise<Void>

    /// How long the probe may take to come back once the server has sent it, before the feed
    /// counts on its heartbeat.
    static let patience = TimeAmount.seconds(1)

    /// A probe whose verdict is kept on `eventLoop` (the feed's).
    init(on eventLoop: any EventLoop) {
        let token = String(UInt64.random(in: 0...UInt64.max), radix: 16)
        channel = "liveresults_probe_" + token
        payload = token
        verdict = eventLoop.makePromise(of: Void.self)
    }

    /// Whether `error` is a server's refusal of a startup parameter, which PgBouncer sends
    /// for any it does not know (unless listed in its `ignore_startup_parameters`).
    static func refusesStartupParameter(_ error: any Error) -> Bool {
        guard let error = error as? PSQLError, let message = error.serverInfo?[.message] else { return false }
        return message.hasPrefix("unsupported startup parameter")
    }
}
