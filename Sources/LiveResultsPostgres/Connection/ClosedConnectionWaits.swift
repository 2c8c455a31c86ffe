import Dispatch
import NIOConcurrencyHelpers
import NIOCore
import PostgresNIO

/// Ends the waits for a connection's answers as soon as the connection closes.
///
/// postgres-nio can leave a statement sent just as the server ends the connection (a server
/// restarted, a backend terminated) unanswered for good; a wait then lasted to its deadline,
/// holding the reader's connection (`ReadGate`) all that time, so that a feed could not listen
/// on the next connection and a board showed nothing for seconds. Once the connection has
/// closed, no answer can come: its waits end then, and the read is made again on a new
/// connection.
final class ClosedConnectionWaits: Sendable {
    private struct State {
        var closed = false
        var waiting: [DispatchSemaphore] = []
    }

    private let state = NIOLockedValueBox(State())
    /// What a wait ended this way fails with.
    let error: LiveResultsPostgresError

    /// Ends the waits on `connection` when it closes, failing them with `error`.
    init(of connection: PostgresConnection, error: LiveResultsPostgresError) {
        self.error = error
        connection.closeFuture.whenComplete { [weak self, eventLoop = connection.eventLoop] _ in
            // After what the event loop has queued already: an answer that came just before
            // the connection closed still reaches its wait.
            eventLoop.execute { self?.end() }
        }
    }

    /// Whether the connection has closed.
    var hasClosed: Bool { state.withLockedValue { $0.closed } }

    /// Signals `semaphore` when the connection closes (at once if it has); until `stop`.
    func signal(_ semaphore: DispatchSemaphore) {
        let closed = state.withLockedValue { state in
            if !state.closed { state.waiting.append(semaphore) }
            return state.closed
        }
        if closed { semaphore.signal() }
    }

    /// No longer signals `semaphore`.
    func stop(_ semaphore: DispatchSemaphore) {
        state.withLockedValue { $0.waiting.removeAll { $0 === semaphore } }
    }

    private func end() {
        let waiting = state.withLockedValue { state in
            state.closed = true
            defer { state.waiting = [] }
            return state.waiting
        }
        for semaphore in waiting { semaphore.signal() }
    }
}
