import Foundation
import Synchronization

/// What a live query shares with its subscribers: the steps since the oldest version a
/// subscriber still stands at, the results at the versions subscribers stand at, and each
/// subscriber's place and wake-up. The query's loop publishes; each subscriber takes, on its
/// own task, under one short lock: the loop never waits for a subscriber.
///
/// What it keeps (the memory bound): the steps after the oldest version a subscriber stands at,
/// never more than `maximumLag` of them (a subscriber further behind is moved to "snapshot
/// due" and holds nothing), and the result at each version some subscriber stands at, plus the
/// current one. Those results share their sections copy-on-write: a version costs the
/// sections the steps after it changed.
final class LiveQueryHub<Value: Sendable>: Sendable {
    /// One step of the query: the batch as a subscriber that kept up receives it; nil for a
    /// reset (the result fetched afresh).
    typealias Step = LiveQueryBatch<Value>?

    /// What a subscriber takes next.
    enum Next {
        case element(LiveQueryUpdate<Value>)
        /// Several steps: the subscriber works out the one batch between the two results itself.
        case merge(Merge)
        /// Nothing new yet.
        case wait
        /// The query ended (with the error that ended it, if any), or the subscriber left.
        case end((any Error)?)
    }

    /// The steps a subscriber missed, to be made one batch off the lock.
    struct Merge {
        var from: Int
        var old: LiveQueryLayout<Value>
        var to: Int
        var new: LiveQueryLayout<Value>
        var touched: Set<RecordID>
        var origin: ChangeOrigin
        var sectionsMove: Bool

        var batch: LiveQueryBatch<Value> {
            let changes = old.batch(to: new, touched: touched, sectionsMove: sectionsMove)
            return LiveQueryBatch(previousVersion: from, version: to, changes: changes, origin: origin, values: new.values(placedBy: changes))
        }
    }

    private struct Subscriber {
        /// The version of the result it holds: the last element it took, or the one it
        /// subscribed at. Nil when it fell too far behind: it takes the current result.
        var seen: Int?
        /// Whether its next element is a snapshot.
        var snapshotDue = true
        var waiter: CheckedContinuation<Void, Never>?
        var cancelled = false
    }

    private struct State {
        var version = 0
        /// The steps to `version`: `steps[i]` leads to version `firstStep + i`.
        var steps: [Step] = []
        var firstStep = 1
        /// The result at the current version and at every version a subscriber holds.
        var layouts: [Int: LiveQueryLayout<Value>] = [:]
        /// How many subscribers hold each version.
        var holders: [Int: Int] = [:]
        var subscribers: [Int: Subscriber] = [:]
        var nextID = 0
        var ended = false
        var error: (any Error)?

        mutating func hold(_ version: Int) {
            holders[version, default: 0] += 1
        }

        mutating func release(_ version: Int?) {
            guard let version, let count = holders[version] else { return }
            if count > 1 {
                holders[version] = count - 1
                return
            }
            holders[version] = nil
            if version != self.version { layouts[version] = nil }
        }

        /// Forgets the steps no subscriber needs: those up to the oldest version one holds.
        mutating func trim() {
            let oldest = holders.keys.min() ?? version
            let unneeded = min(steps.count, oldest - (firstStep - 1))
            guard unneeded > 0 else { return }
            steps.removeFirst(unneeded)
            firstStep += unneeded
        }
    }

    private let state: Mutex<State>
    private let maximumLag: Int
    /// Whether sections are through a relationship (they move rather than go and come back).
    let sectionsMove: Bool

    init(layout: LiveQueryLayout<Value>, sectionsMove: Bool, maximumLag: Int) {
        var initial = State()
        initial.layouts[0] = layout
        state = Mutex(initial)
        self.sectionsMove = sectionsMove
        self.maximumLag = max(1, maximumLag)
    }

    // MARK: The query's side

    /// Publishes one step (numbered here) and the result after it, and wakes the subscribers
    /// waiting.
    func publish(_ step: Step, layout: LiveQueryLayout<Value>) {
        var step = step
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            guard !state.ended else { return [] }
            step?.previousVersion = state.version
            state.version += 1
            step?.version = state.version
            state.steps.append(step)
            state.layouts[state.version] = layout
            if state.holders[state.version - 1] == nil { state.layouts[state.version - 1] = nil }
            if let oldest = state.holders.keys.min(), state.version - oldest > maximumLag {
                // Too far behind: these subscribers get the whole result again, and hold nothing meanwhile.
                for (id, subscriber) in state.subscribers where subscriber.seen.map({ state.version - $0 > maximumLag }) == true {
                    state.release(subscriber.seen)
                    state.subscribers[id]!.seen = nil
                    state.subscribers[id]!.snapshotDue = true
                }
            }
            state.trim()
            return Self.takeWaiters(&state)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Ends every subscription: with `error`, or normally. Later steps are ignored.
    func finish(throwing error: (any Error)?) {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            guard !state.ended else { return [] }
            state.ended = true
            state.error = error
            return Self.takeWaiters(&state)
        }
        for waiter in waiters { waiter.resume() }
    }

    private static func takeWaiters(_ state: inout State) -> [CheckedContinuation<Void, Never>] {
        var waiters: [CheckedContinuation<Void, Never>] = []
        for id in state.subscribers.keys {
            if let waiter = state.subscribers[id]!.waiter.take() { waiters.append(waiter) }
        }
        return waiters
    }

    /// The current version.
    var version: Int { state.withLock { $0.version } }

    /// How many subscriptions are alive.
    var subscriberCount: Int { state.withLock { $0.subscribers.count } }

    /// How many results (versions) and steps are kept: the memory the subscribers cost.
    var retained: (layouts: Int, steps: Int) { state.withLock { ($0.layouts.count, $0.steps.count) } }

    // MARK: A subscriber's side

    /// A new subscriber, standing at the current version: its first element is that result.
    func subscribe() -> Int {
        state.withLock { state in
            state.nextID += 1
            state.subscribers[state.nextID] = Subscriber(seen: state.version)
            state.hold(state.version)
            return state.nextID
        }
    }

    /// Forgets a subscriber (its task was cancelled, or its sequence went away).
    func unsubscribe(_ id: Int) {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard var subscriber = state.subscribers.removeValue(forKey: id) else { return nil }
            state.release(subscriber.seen)
            state.trim()
            return subscriber.waiter.take()
        }
        waiter?.resume()
    }

    /// What subscriber `id` takes next; it then stands at the version of what it took.
    func take(_ id: Int) -> Next {
        state.withLock { state in
            guard var subscriber = state.subscribers[id] else { return .end(nil) }
            if state.ended {
                state.subscribers[id] = nil
                state.release(subscriber.seen)
                return .end(state.error)
            }
            let version = state.version
            func moveTo(_ new: Int) {
                if subscriber.seen != new {
                    state.release(subscriber.seen)
                    state.hold(new)
                }
                subscriber.seen = new
                subscriber.snapshotDue = false
                state.subscribers[id] = subscriber
                state.trim()
            }
            func snapshot(at seen: Int) -> Next {
                let layout = state.layouts[seen]!
                moveTo(seen)
                return .element(.snapshot(LiveQuerySnapshot(version: seen, sections: layout.sections)))
            }
            guard let seen = subscriber.seen, !subscriber.snapshotDue else {
                return snapshot(at: subscriber.seen ?? version)
            }
            if seen == version { return .wait }
            let missed = state.steps[(seen + 1 - state.firstStep)...(version - state.firstStep)]
            if missed.contains(where: { $0 == nil }) { return snapshot(at: version) }
            if missed.count == 1 {
                moveTo(version)
                return .element(.batch(missed.first!!))
            }
            var touched = Set<RecordID>()
            var origin = ChangeOrigin.ownWrites
            for step in missed {
                for change in step!.changes.rowChanges { touched.insert(change.id) }
                if step!.origin != .ownWrites { origin = .elsewhere }
            }
            let merge = Merge(from: seen, old: state.layouts[seen]!, to: version, new: state.layouts[version]!,
                              touched: touched, origin: origin, sectionsMove: sectionsMove)
            moveTo(version)
            return .merge(merge)
        }
    }

    /// Returns when subscriber `id` has something to take, or its task is cancelled (at once
    /// if that already happened).
    func wait(_ id: Int, isolation: isolated (any Actor)? = #isolation) async {
        await withTaskCancellationHandler {
            await withCheckedContinuation(isolation: isolation) { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { state in
                    guard let subscriber = state.subscribers[id], !state.ended, !subscriber.cancelled, !Task.isCancelled,
                          !subscriber.snapshotDue, subscriber.seen == state.version else { return true }
                    state.subscribers[id]!.waiter = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            state.withLock { state in
                state.subscribers[id]?.cancelled = true
                return state.subscribers[id]?.waiter.take()
            }?.resume()
        }
    }
}
