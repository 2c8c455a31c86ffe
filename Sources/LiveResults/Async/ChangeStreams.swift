import Foundation
import Synchronization

/// The async sequences iterating one controller: the controller owns it, its change feed wakes
/// it from any thread, and each iterator waits on a subscription of its own.
///
/// The controller's deliveries (on the controller's isolation) go into every subscription's
/// mailbox; an iterator takes them after it asked the controller to process its pending
/// changes. When the controller goes away, so does this hub, and every iterator's sequence ends.
final class ChangeStreams: Sendable {
    private let subscriptions = Mutex<[WeakSubscription]>([])

    deinit {
        for subscription in live() { subscription.finish() }
    }

    /// Whether an iterator is alive: the controller then tracks changes and merges pending
    /// commits into one batch, as if it had a delegate.
    var hasSubscribers: Bool { !live().isEmpty }

    /// A new subscription, registered until its iterator goes away.
    func subscribe() -> ChangeSubscription {
        let subscription = ChangeSubscription()
        subscriptions.withLock { $0.append(WeakSubscription(subscription)) }
        return subscription
    }

    /// Forgets a subscription whose iteration ended.
    func unsubscribe(_ subscription: ChangeSubscription) {
        subscriptions.withLock { list in list.removeAll { $0.subscription == nil || $0.subscription === subscription } }
    }

    /// Wakes every iterator: changes wait to be processed. Called on any thread.
    func wake() {
        for subscription in live() { subscription.wake() }
    }

    /// Hands a delivered batch or reset to every iterator. Called on the controller's isolation.
    func deliver(_ change: ResultsChange) {
        for subscription in live() { subscription.post(change) }
    }

    /// The subscriptions whose iterators are alive, forgetting the others.
    private func live() -> [ChangeSubscription] {
        subscriptions.withLock { list in
            list.removeAll { $0.subscription == nil }
            return list.compactMap(\.subscription)
        }
    }

    private struct WeakSubscription: @unchecked Sendable {
        // Read and written only under the hub's lock.
        weak var subscription: ChangeSubscription?
        init(_ subscription: ChangeSubscription) { self.subscription = subscription }
    }
}

/// One iterator's side of `ChangeStreams`: whether it was woken, what was delivered since it
/// last looked, and the continuation it waits on.
final class ChangeSubscription: Sendable {
    private struct State {
        var woken = false
        var finished = false
        var cancelled = false
        var mailbox: [ResultsChange] = []
        var waiter: CheckedContinuation<Void, Never>?
    }

    private let state = Mutex(State())

    /// Whether the controller went away.
    var isFinished: Bool { state.withLock { $0.finished } }

    func wake() {
        state.withLock { state in
            state.woken = true
            return state.waiter.take()
        }?.resume()
    }

    func finish() {
        state.withLock { state in
            state.finished = true
            return state.waiter.take()
        }?.resume()
    }

    func post(_ change: ResultsChange) {
        state.withLock { $0.mailbox.append(change) }
    }

    /// Forgets earlier wake-ups: the iterator is about to process what they announced.
    func clearWakeUp() {
        state.withLock { $0.woken = false }
    }

    /// What was delivered since the last call, as one change: the one batch, or, when a reset
    /// or several batches came (someone else processed the controller's changes, or a
    /// recovery delivered twice), a reset: exact batches of two steps cannot be added up
    /// without the result between them, but a reload of the result as it is now is always right.
    func takeDelivered() -> ResultsChange? {
        let delivered = state.withLock { state in
            defer { state.mailbox.removeAll() }
            return state.mailbox
        }
        switch delivered.count {
        case 0: return nil
        case 1: return delivered[0]
        default: return .reset
        }
    }

    /// Returns when woken, finished or cancelled (at once if that already happened).
    func wait(isolation: isolated (any Actor)? = #isolation) async {
        await withTaskCancellationHandler {
            await withCheckedContinuation(isolation: isolation) { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { state in
                    if state.woken || state.finished || state.cancelled || Task.isCancelled {
                        state.woken = false
                        return true
                    }
                    state.waiter = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            state.withLock { state in
                state.cancelled = true
                return state.waiter.take()
            }?.resume()
        }
    }
}
