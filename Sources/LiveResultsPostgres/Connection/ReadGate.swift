import NIOConcurrencyHelpers
import NIOCore

/// Who may use a reader's one connection now: the controller's synchronous reads (a fetch's
/// transaction among them) or its feeds' statements, never both at once.
///
/// A feed's log read sent while a fetch's transaction runs would run inside it, and fail
/// with it; and a feed that timed its ping behind a long fetch would take the wait for a
/// dead network. So feeds send only while no synchronous read runs (`whenOpen`), and a
/// synchronous read waits while a feed's probe is out (`holdReads(until:)`): behind a
/// pooler, a statement of this connection could collect the probe late and pass for a
/// server that delivers notifications.
final class ReadGate: Sendable {
    private struct State {
        /// Synchronous reads running.
        var readers = 0
        /// Feeds waiting for the running reads to end.
        var waiting: [EventLoopPromise<Void>] = []
        /// Ends when the probe out ends (nil: none is out).
        var probe: EventLoopFuture<Void>?
    }

    private let state = NIOLockedValueBox(State())

    /// Succeeds on `eventLoop` once no synchronous read runs (at once when none does).
    func whenOpen(on eventLoop: any EventLoop) -> EventLoopFuture<Void> {
        let promise = eventLoop.makePromise(of: Void.self)
        let open = state.withLockedValue { state in
            guard state.readers > 0 else { return true }
            state.waiting.append(promise)
            return false
        }
        if open { promise.succeed() }
        return promise.futureResult
    }

    /// Runs `body` (a synchronous read) once no probe is out (or `deadline` passed), keeping
    /// feeds from sending meanwhile.
    func read<T>(within deadline: StatementDeadline, _ body: () throws -> T) rethrows -> T {
        if let probe = state.withLockedValue({ $0.probe }) { try? probe.waitWithin(deadline) }
        state.withLockedValue { $0.readers += 1 }
        defer {
            let released = state.withLockedValue { state in
                state.readers -= 1
                guard state.readers == 0 else { return [EventLoopPromise<Void>]() }
                defer { state.waiting = [] }
                return state.waiting
            }
            for promise in released { promise.succeed() }
        }
        return try body()
    }

    /// Holds synchronous reads back until `probe` ends (a feed's probe, which ends within
    /// its patience).
    func holdReads(until probe: EventLoopFuture<Void>) {
        state.withLockedValue { $0.probe = probe }
        probe.whenComplete { [state] _ in
            state.withLockedValue { if $0.probe === probe { $0.probe = nil } }
        }
    }
}
