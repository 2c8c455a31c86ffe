import Foundation

// The async forms of the delegate: sequences that process the controller's pending changes
// themselves when the consumer asks for the next element, on the controller's store thread
// (`StoreThread`) while the consumer's isolation awaits them.

extension ResultsController {
    /// The changes of the result as an async sequence: one ``ResultsChange`` per step, a whole
    /// ``ChangeBatch`` or a reset.
    ///
    /// ```swift
    /// let changes = controller.changes()
    /// try controller.performFetch()
    /// for try await change in changes {
    ///     // controller.sections and controller.id(at:) are already the new result here.
    /// }
    /// ```
    ///
    /// Nothing needs pumping: the sequence waits for the controller's change feed and calls
    /// ``processPendingChanges()`` itself. The store's reads block the thread they run on, so
    /// that step runs on a thread of the controller's own, never on Swift's cooperative pool:
    /// the loop's isolation (an actor, the main actor, or none) awaits it without holding a
    /// thread, and a slow statement stalls only this sequence, not a server's other tasks.
    /// The step ends before the element comes, so the controller's state read inside the loop
    /// body is the result right after the element just received, and the controller is never
    /// used by the loop and the step at once. The thread is made at the first step and ends
    /// when the controller, or its last sequence, goes away.
    ///
    /// Elements start after ``performFetch()``. Make the sequence before the fetch (or set a
    /// ``delegate``) so that the fetch starts tracking; a sequence that finds the controller
    /// not tracking (not fetched yet, or fetched without a delegate or a sequence) fetches
    /// it when the loop starts, and its first element is a `.reset`.
    ///
    /// A consumer slower than the commits misses nothing: the commits wait in the change
    /// feed until it asks for the next element, and then come as one batch, from the result
    /// it last saw to the result now (the rows of all of them, merged before they are applied).
    ///
    /// The sequence ends (returns nil) when the iterating task is cancelled, or when the
    /// controller goes away: it holds the controller weakly. When the last sequence ends by
    /// cancellation and there is no delegate, the controller stops tracking and closes the
    /// connections its feed held. It throws what ``processPendingChanges()`` throws.
    ///
    /// Iterate it once, from the isolation that owns the controller, and do not call
    /// ``processPendingChanges()`` or ``refresh()`` yourself meanwhile: batches processed
    /// elsewhere reach the loop as a reset. The sequence is not `Sendable` (the controller is
    /// not); its elements are. While a sequence is alive, the delegate receives the same
    /// merged batches, on the controller's thread while the loop awaits them: a delegate bound
    /// to an actor does not mix with a sequence.
    public func changes() -> ResultsChanges<Record> {
        ResultsChanges(controller: self, subscription: streams.subscribe())
    }

    /// The result as an async sequence of snapshots: after each step of ``changes()``, the
    /// whole result as section names and row ids, plus the rows to reload (moved or updated;
    /// every row after a reset).
    ///
    /// For consumers that diff, such as a diffable data source. It behaves as ``changes()``
    /// (where it runs, when it starts and ends, how a slow consumer's commits merge); each
    /// element costs O(n) for a result of n rows.
    public func snapshots() -> ResultsSnapshots<Record> {
        ResultsSnapshots(changes: changes())
    }

    /// One step of a sequence: fetches when the controller is not tracking, otherwise
    /// processes the pending changes; returns what was delivered, if anything.
    func nextChange(for subscription: ChangeSubscription) throws -> ResultsChange? {
        subscription.clearWakeUp()
        if !isTracking {
            try performFetch()
            _ = subscription.takeDelivered() // a prepared filter's reset, superseded by this one
            return .reset
        }
        try processPendingChanges()
        return subscription.takeDelivered()
    }

    /// Whether the controller follows commits: it was fetched with a delegate or a sequence.
    var isTracking: Bool { fetchedRequest != nil && feed != nil }

    /// Stops tracking (closing the feed's connections) when an ending sequence leaves no
    /// other sequence and no delegate to deliver to.
    func stopTrackingUnlessWanted(leaving subscription: ChangeSubscription) {
        streams.unsubscribe(subscription)
        if !streams.hasSubscribers { storeThread.stop() }
        if delegate == nil && !streams.hasSubscribers { stopTracking() }
    }
}

/// The async sequence of ``ResultsController/changes()``.
///
/// Not `Sendable`: iterate it where the controller lives. Its elements are `Sendable`.
public struct ResultsChanges<Record>: AsyncSequence {
    /// A batch or a reset.
    public typealias Element = ResultsChange
    /// What ``ResultsController/processPendingChanges()`` throws.
    public typealias Failure = any Error

    weak var controller: ResultsController<Record>?
    let subscription: ChangeSubscription

    init(controller: ResultsController<Record>, subscription: ChangeSubscription) {
        self.controller = controller
        self.subscription = subscription
    }

    /// Makes the iterator. The sequence is meant to be iterated once.
    public func makeAsyncIterator() -> Iterator {
        Iterator(controller: controller, subscription: subscription)
    }

    /// The iterator of ``ResultsChanges``.
    public struct Iterator: AsyncIteratorProtocol {
        weak var controller: ResultsController<Record>?
        let subscription: ChangeSubscription
        var ended = false

        /// The next change, the controller already at it; nil once the task is cancelled or
        /// the controller is gone. The caller's isolation awaits the step run on the
        /// controller's thread, without blocking a thread of its own.
        public mutating func next(isolation actor: isolated (any Actor)? = #isolation) async throws -> ResultsChange? {
            while !ended {
                if Task.isCancelled || subscription.isFinished {
                    end()
                    return nil
                }
                // The controller is held only for this step, so it can go away while we wait.
                guard let change = try await step(isolation: actor) else {
                    if ended { return nil }
                    await subscription.wait()
                    continue
                }
                return change
            }
            return nil
        }

        /// The next change, off any actor.
        public mutating func next() async throws -> ResultsChange? {
            try await next(isolation: nil)
        }

        /// One step, run on the controller's store thread while this isolation awaits it: the
        /// step's store reads block, and must not block a thread of the cooperative pool.
        private mutating func step(isolation actor: isolated (any Actor)?) async throws -> ResultsChange? {
            guard let controller else {
                ended = true
                return nil
            }
            let subscription = subscription
            return try await controller.storeThread.run { try controller.nextChange(for: subscription) }
        }

        /// Ends the iteration; the controller stops tracking when nothing else wants it.
        private mutating func end() {
            ended = true
            guard let controller else { return }
            controller.stopTrackingUnlessWanted(leaving: subscription)
        }
    }
}

/// The async sequence of ``ResultsController/snapshots()``.
///
/// Not `Sendable`: iterate it where the controller lives. Its elements are `Sendable`.
public struct ResultsSnapshots<Record>: AsyncSequence {
    /// The whole result, with the rows to reload.
    public typealias Element = ResultsSnapshot
    /// What ``ResultsController/processPendingChanges()`` throws.
    public typealias Failure = any Error

    let changes: ResultsChanges<Record>

    /// Makes the iterator. The sequence is meant to be iterated once.
    public func makeAsyncIterator() -> Iterator {
        Iterator(changes: changes.makeAsyncIterator())
    }

    /// The iterator of ``ResultsSnapshots``.
    public struct Iterator: AsyncIteratorProtocol {
        var changes: ResultsChanges<Record>.Iterator

        /// The next snapshot, on the caller's isolation; nil once the task is cancelled or the
        /// controller is gone.
        public mutating func next(isolation actor: isolated (any Actor)? = #isolation) async throws -> ResultsSnapshot? {
            guard let change = try await changes.next(isolation: actor), let controller = changes.controller else { return nil }
            switch change {
            case .reset:
                var snapshot = controller.snapshot()
                snapshot.reloadedItemIdentifiers = Set(snapshot.itemIdentifiers.joined())
                snapshot.reloadedSectionIdentifiers = Set(snapshot.sectionIdentifiers)
                return snapshot
            case .batch(let batch, _):
                return controller.snapshot(after: batch)
            }
        }

        /// The next snapshot, off any actor.
        public mutating func next() async throws -> ResultsSnapshot? {
            try await next(isolation: nil)
        }
    }
}
