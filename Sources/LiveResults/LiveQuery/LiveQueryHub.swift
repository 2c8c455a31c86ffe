import Foundation
import Synchronization

/// What a live query shares with its subscribers: the steps since the oldest version a
/// subscriber still stands at, the results at the versions subscribers stand at, and each
/// subscriber's place and wake-up. The query's loop publishes; each subscriber takes, on its
/// own task, under one short lock: the loop never waits for a subscriber. A publish wakes the
/// subscribers waiting for it and touches no other: a subscriber busy writing, or stalled,
/// costs it nothing (but one look, once, when it falls `maximumLag` behind).
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
            let between = old.batch(to: new, touched: touched, sectionsMove: sectionsMove)
            // A row changed and changed back on the way holds its value: not reported.
            let (changes, values) = old.withoutUnchangedUpdates(between, values: new.values(placedBy: between))
            return LiveQueryBatch(previousVersion: from, version: to, changes: changes, origin: origin, values: values)
        }
    }

    private struct Subscriber {
        /// The version of the result it holds: the last element it took, or the one it
        /// subscribed at. Nil when it fell too far behind: it takes the current result.
        var seen: Int?
        /// Whether its next element is a snapshot.
        var snapshotDue = true
        var cancelled = false
    }

    /// A version some subscriber stands at: its result, and who stands there.
    private struct Held {
        var layout: LiveQueryLayout<Value>
        var subscribers: Set<Int>
    }

    private struct State {
        var version = 0
        /// The result at `version`.
        var current: LiveQueryLayout<Value>
        /// The step to each version after `oldest`, by the version it leads to.
        var steps: [Int: Step] = [:]
        /// No subscriber stands at a version older than this one (`version` when none stands).
        /// It only grows: a subscriber only ever moves to the current version.
        var oldest = 0
        /// The versions subscribers stand at.
        var held: [Int: Held] = [:]
        var subscribers: [Int: Subscriber] = [:]
        /// The subscribers waiting for the next step: the only ones a publish touches.
        var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
        var nextID = 0
        var ended = false
        var error: (any Error)?

        /// Subscriber `id` stands at `version` from now on (the current one, or the one it held).
        mutating func move(_ id: Int, from old: Int?, to version: Int) {
            guard old != version else { return }
            release(id, from: old)
            if held[version] == nil { held[version] = Held(layout: current, subscribers: []) }
            held[version]?.subscribers.insert(id)
        }

        mutating func release(_ id: Int, from version: Int?) {
            guard let version, var holding = held.removeValue(forKey: version) else { return }
            holding.subscribers.remove(id)
            if !holding.subscribers.isEmpty { held[version] = holding }
        }

        /// Forgets the steps no subscriber needs: those up to the oldest version one stands
        /// at. Amortised O(1) a step: `oldest` passes each version once.
        mutating func trim() {
            while oldest < version, held[oldest] == nil {
                oldest += 1
                steps.removeValue(forKey: oldest)
            }
        }

        /// Moves the subscribers more than `maximumLag` steps behind to "snapshot due", where
        /// they hold nothing: each such subscriber costs one look, once.
        mutating func dropLagging(maximumLag: Int) {
            while version - oldest > maximumLag {
                if let holding = held.removeValue(forKey: oldest) {
                    for id in holding.subscribers {
                        subscribers[id]?.seen = nil
                        subscribers[id]?.snapshotDue = true
                    }
                }
                oldest += 1
                steps.removeValue(forKey: oldest)
            }
        }

        /// The waiting subscribers' wake-ups, taken: O(1) each.
        mutating func takeWaiters() -> [CheckedContinuation<Void, Never>] {
            defer { waiters.removeAll(keepingCapacity: true) }
            return Array(waiters.values)
        }
    }

    private let state: Mutex<State>
    private let maximumLag: Int
    /// Whether sections are through a relationship (they move rather than go and come back).
    let sectionsMove: Bool

    init(layout: LiveQueryLayout<Value>, sectionsMove: Bool, maximumLag: Int) {
        state = Mutex(State(current: layout))
        self.sectionsMove = sectionsMove
        self.maximumLag = max(1, maximumLag)
    }

    // MARK: The query's side

    /// Publishes one step (numbered here) and the result after it, and wakes the subscribers
    /// waiting. Costs O(1) for each waiting subscriber and nothing for the others (beyond one
    /// look, once, at a subscriber that fell `maximumLag` behind).
    func publish(_ step: Step, layout: LiveQueryLayout<Value>) {
        var step = step
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            guard !state.ended else { return [] }
            step?.previousVersion = state.version
            state.version += 1
            step?.version = state.version
            state.steps[state.version] = step
            state.current = layout
            state.dropLagging(maximumLag: maximumLag)
            state.trim()
            return state.takeWaiters()
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Ends every subscription: with `error`, or normally. Later steps are ignored.
    func finish(throwing error: (any Error)?) {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            guard !state.ended else { return [] }
            state.ended = true
            state.error = error
            return state.takeWaiters()
        }
        for waiter in waiters { waiter.resume() }
    }

    /// The current version.
    var version: Int { state.withLock { $0.version } }

    /// How many subscriptions are alive.
    var subscriberCount: Int { state.withLock { $0.subscribers.count } }

    /// How many results (versions) and steps are kept: the memory the subscribers cost.
    var retained: (layouts: Int, steps: Int) {
        state.withLock { ($0.held.count + ($0.held[$0.version] == nil ? 1 : 0), $0.steps.count) }
    }

    // MARK: A subscriber's side

    /// A new subscriber, standing at the current version: its first element is that result.
    func subscribe() -> Int {
        state.withLock { state in
            state.nextID += 1
            state.subscribers[state.nextID] = Subscriber(seen: state.version)
            state.move(state.nextID, from: nil, to: state.version)
            return state.nextID
        }
    }

    /// Forgets a subscriber (its task was cancelled, or its sequence went away).
    func unsubscribe(_ id: Int) {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard let subscriber = state.subscribers.removeValue(forKey: id) else { return nil }
            state.release(id, from: subscriber.seen)
            state.trim()
            return state.waiters.removeValue(forKey: id)
        }
        waiter?.resume()
    }

    /// What subscriber `id` takes next; it then stands at the version of what it took.
    func take(_ id: Int) -> Next {
        state.withLock { state in
            guard let subscriber = state.subscribers[id] else { return .end(nil) }
            if state.ended {
                state.subscribers[id] = nil
                state.release(id, from: subscriber.seen)
                return .end(state.error)
            }
            let version = state.version
            func moveTo(_ new: Int) {
                state.move(id, from: subscriber.seen, to: new)
                state.subscribers[id] = Subscriber(seen: new, snapshotDue: false, cancelled: subscriber.cancelled)
                state.trim()
            }
            func snapshot(at seen: Int) -> Next {
                // The result it stands at, or the current one when it stands nowhere.
                let (at, layout) = state.held[seen].map { (seen, $0.layout) } ?? (version, state.current)
                moveTo(at)
                return .element(.snapshot(LiveQuerySnapshot(version: at, sections: layout.sections)))
            }
            guard let seen = subscriber.seen, !subscriber.snapshotDue, let old = state.held[seen]?.layout else {
                return snapshot(at: subscriber.seen ?? version)
            }
            if seen == version { return .wait }
            var missed: [LiveQueryBatch<Value>] = []
            for v in (seen + 1)...version {
                // A reset (nil), or a step no longer kept: the whole result again.
                guard case let step?? = state.steps[v] else { return snapshot(at: version) }
                missed.append(step)
            }
            if missed.count == 1, let step = missed.first {
                moveTo(version)
                return .element(.batch(step))
            }
            var touched = Set<RecordID>()
            var origin = ChangeOrigin.ownWrites
            for step in missed {
                for change in step.changes.rowChanges { touched.insert(change.id) }
                if step.origin != .ownWrites { origin = .elsewhere }
            }
            let merge = Merge(from: seen, old: old, to: version, new: state.current,
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
                    state.waiters[id] = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            state.withLock { state in
                state.subscribers[id]?.cancelled = true
                return state.waiters.removeValue(forKey: id)
            }?.resume()
        }
    }
}
