import Foundation

/// The async sequence of ``LiveQuery/subscribe()``: the result, then its changes, at the pace
/// of the task that iterates it.
///
/// `Sendable`: subscribe anywhere, iterate once, from one task. Its first element is a
/// ``LiveQueryUpdate/snapshot(_:)``; see ``LiveQueryUpdate`` for the rest. It ends (returns
/// nil) when the iterating task is cancelled or the query ends, and throws the error that
/// ended the query. Its place in the query is freed when it ends or when the sequence and its
/// iterator go away.
public struct LiveQuerySubscription<Value: Sendable>: AsyncSequence, Sendable {
    public typealias Element = LiveQueryUpdate<Value>
    /// What the query's controller threw.
    public typealias Failure = any Error

    let registration: Registration

    /// Makes the iterator. The sequence is meant to be iterated once.
    public func makeAsyncIterator() -> Iterator {
        Iterator(registration: registration)
    }

    /// Ends the subscription from any task: its iteration returns nil (at once if it is
    /// waiting) and its place in the query is freed. For a task that cannot be cancelled
    /// itself, such as a response that must end when its server shuts down.
    public func cancel() {
        registration.hub.unsubscribe(registration.id)
    }

    /// A subscriber's place in the query, for as long as its sequence or iterator lives.
    final class Registration: Sendable {
        let hub: LiveQueryHub<Value>
        let id: Int

        init(hub: LiveQueryHub<Value>, id: Int) {
            self.hub = hub
            self.id = id
        }

        deinit {
            hub.unsubscribe(id)
        }
    }

    /// The iterator of ``LiveQuerySubscription``.
    public struct Iterator: AsyncIteratorProtocol {
        let registration: Registration

        /// The next element, on the caller's isolation; nil once the task is cancelled or the
        /// query ended.
        public mutating func next(isolation actor: isolated (any Actor)? = #isolation) async throws -> LiveQueryUpdate<Value>? {
            let hub = registration.hub
            while true {
                if Task.isCancelled {
                    hub.unsubscribe(registration.id)
                    return nil
                }
                switch hub.take(registration.id) {
                case .element(let element):
                    return element
                case .merge(let merge):
                    return .batch(merge.batch)
                case .wait:
                    await hub.wait(registration.id)
                case .end(let error):
                    if let error { throw error }
                    return nil
                }
            }
        }

        /// The next element, off any actor.
        public mutating func next() async throws -> LiveQueryUpdate<Value>? {
            try await next(isolation: nil)
        }
    }
}
