import Foundation

/// One live query, any number of subscribers: a results controller's changes shared with every
/// task that subscribes, each at its own pace.
///
/// The query owns the controller (its fetch, its index and its change feed: one connection for
/// all subscribers) and one loop over its ``ResultsController/changes()``, ``run()``. Each step
/// of the loop becomes a version of the result. ``subscribe()`` gives a sequence whose first
/// element is the result at the version it subscribed at, and then batches, each from the
/// version of the element before to a later one: no gap, no overlap.
///
/// ```swift
/// let query = try await LiveQuery(controller) { team in TeamRow(name: team.teamName, wins: team.wins) }
/// let loop = Task { try await query.run() }
/// // In any task, as many as you like:
/// for try await update in query.subscribe() {
///     switch update {
///     case .snapshot(let snapshot): show(snapshot.sections)     // the whole result, at snapshot.version
///     case .batch(let batch): apply(batch.changes, batch.values) // from batch.previousVersion
///     }
/// }
/// ```
///
/// The loop never waits for a subscriber. A subscriber that reads slower than the commits come
/// gets, when it asks, one exact batch from the result it last saw to the result now, as
/// ``ResultsController/changes()`` gives a slow consumer. One that falls more than
/// `maximumLag` steps behind, or was behind at a reset (the controller could not tell what
/// changed), gets a snapshot again.
///
/// Subscribers never touch the controller: each element carries the values of the rows it
/// places, made by `map` once per step for all subscribers, on the query's actor.
///
/// When `Value` is `Equatable`, a row reported updated whose value is the one subscribers hold
/// already is left out (an UPDATE that wrote the values the row had, through any connection or
/// store, or changed only columns `map` does not read), and a step left with nothing makes no
/// version: subscribers hear only of what changes what they hold.
///
/// What it keeps: the steps after the oldest version a subscriber still stands at (at most
/// `maximumLag`), and the result (ids and values) at each version some subscriber stands at;
/// these share their sections copy-on-write, so a version held costs the sections that changed
/// after it. A subscriber up to date costs nothing but its place. Working out a late
/// subscriber's batch costs O(n) for n rows, on that subscriber's task.
///
/// The query ends, and every subscription with it, when the task running ``run()`` is
/// cancelled or the query goes away; when the controller throws, every subscription throws
/// that error. A subscription ends when its task is cancelled, and its state is freed then.
public actor LiveQuery<Record, Value: Sendable> {
    private let controller: ResultsController<Record>
    private let map: @Sendable (Record) throws -> Value
    /// The controller's changes, until `run()` takes them.
    private var changes: ResultsChanges<Record>?
    /// The result now, as subscribers receive it.
    private var layout: LiveQueryLayout<Value>
    nonisolated let hub: LiveQueryHub<Value>
    /// Tests: called on the actor with each step's version and the controller at it, before
    /// subscribers can take the step.
    private var stepObserver: (@Sendable (Int, ResultsController<Record>) -> Void)?
    private var folded: Folded?

    /// Takes `controller`, fetches it (it tracks changes from now on) and reads the result, on
    /// the calling thread: the fetch blocks it. From async code, use the `async` initialiser.
    ///
    /// - Parameters:
    ///   - controller: a controller no one else uses: from now on the query processes its
    ///     changes.
    ///   - maximumLag: how many steps a subscriber may fall behind before it gets a snapshot
    ///     instead of a batch: the bound on the steps kept.
    ///   - map: the value subscribers receive for a record, applied once per row per step that
    ///     places it (and to every row for a snapshot after a reset).
    /// - Throws: what ``ResultsController/performFetch()`` throws, and what `map` throws.
    public init(_ controller: sending ResultsController<Record>, maximumLag: Int = 1_000,
                map: @escaping @Sendable (Record) throws -> Value) throws {
        let changes = controller.changes() // before the fetch: the fetch starts tracking
        let layout = try Self.fetch(controller, map: map)
        self.init(Taken(controller: controller, changes: changes), layout: layout, maximumLag: maximumLag, map: map)
    }

    /// Takes `controller`, fetches it (it tracks changes from now on) and reads the result, on
    /// the controller's store thread, as its steps are: the calling task is suspended, no
    /// thread of Swift's cooperative pool blocks (a server may make one at request time).
    ///
    /// Parameters and errors as the synchronous initialiser's.
    public nonisolated init(_ controller: sending ResultsController<Record>, maximumLag: Int = 1_000,
                            map: @escaping @Sendable (Record) throws -> Value) async throws {
        let changes = controller.changes()
        let fetching = Fetching(controller: controller, map: map)
        let layout = try await controller.storeThread.run(isolation: nil) { try fetching.run() }
        self.init(Taken(controller: controller, changes: changes), layout: layout, maximumLag: maximumLag, map: map)
    }

    /// The controller fetched and its changes, which the query takes together.
    private struct Taken {
        let controller: ResultsController<Record>
        let changes: ResultsChanges<Record>
    }

    private init(_ taken: sending Taken, layout: LiveQueryLayout<Value>, maximumLag: Int, map: @escaping @Sendable (Record) throws -> Value) {
        hub = LiveQueryHub(layout: layout, sectionsMove: taken.controller.result.index.isRelated, maximumLag: maximumLag)
        controller = taken.controller
        self.map = map
        changes = taken.changes
        self.layout = layout
    }

    /// Fetches `controller` and reads its whole result with the values of its rows.
    private static func fetch(_ controller: ResultsController<Record>, map: (Record) throws -> Value) throws -> LiveQueryLayout<Value> {
        try controller.performFetch()
        // Fetched a moment ago: a row deleted since is a rare race; fetching again settles it.
        while true {
            if let layout = try layout(of: controller, map: map) { return layout }
            try controller.performFetch()
        }
    }

    /// The first fetch, handed to the store thread while the initialiser awaits it.
    private struct Fetching: @unchecked Sendable {
        // Used by the store thread only, while the initialiser is suspended.
        let controller: ResultsController<Record>
        let map: @Sendable (Record) throws -> Value

        func run() throws -> LiveQueryLayout<Value> { try LiveQuery.fetch(controller, map: map) }
    }

    deinit {
        hub.finish(throwing: nil)
    }

    /// A new subscription: the result as it is now, then its changes, at the subscriber's pace.
    ///
    /// Iterate it once, from one task. It ends when that task is cancelled, when the query ends,
    /// or (throwing) when the controller throws.
    public nonisolated func subscribe() -> LiveQuerySubscription<Value> {
        LiveQuerySubscription(registration: LiveQuerySubscription.Registration(hub: hub, id: hub.subscribe()))
    }

    /// How many subscriptions are alive.
    public nonisolated var subscriberCount: Int { hub.subscriberCount }

    /// Follows the controller's changes until the task running it is cancelled: each step
    /// becomes a version every subscriber can take. Call it once. When it returns or throws,
    /// every subscription ends (throwing the error it throws).
    public func run() async throws {
        guard let changes else { preconditionFailure("LiveQuery.run() is called once") }
        self.changes = nil
        do {
            for try await change in changes {
                try await publish(change)
            }
            hub.finish(throwing: nil)
        } catch {
            hub.finish(throwing: error)
            throw error
        }
    }

    /// Tests: calls `observer` now with the current version, and then at each step, with the
    /// controller as the step leaves it.
    func observeSteps(_ observer: @escaping @Sendable (Int, ResultsController<Record>) -> Void) {
        stepObserver = observer
        observer(hub.version, controller)
    }

    /// Makes one step of `change`: the values of the rows it places, the result after it.
    ///
    /// Records are read after the controller's step, so a row the step places may already be
    /// deleted by a later commit (whose step is still to come). Such a step is not published:
    /// it is folded into the next ones until every row can be read again, and they are then
    /// published as one step, the batch between the last result published and the new one.
    private func publish(_ change: ResultsChange) async throws {
        switch change {
        case .reset:
            folded = Folded(touched: [], origin: .ownWrites, reset: true)
        case .batch(let batch, let origin):
            if folded == nil, let read = try await values(placedBy: batch) {
                let (changes, values) = layout.withoutUnchangedUpdates(batch, values: read)
                // Nothing a subscriber holds changed: no version to make.
                guard !changes.isEmpty else { return }
                if let next = layout.applying(changes, values: values) {
                    checkAgainstController(next)
                    stepObserver?(hub.version + 1, controller)
                    layout = next
                    // The hub numbers it.
                    hub.publish(LiveQueryBatch(previousVersion: 0, version: 0, changes: changes, origin: origin, values: values), layout: layout)
                    return
                }
            }
            var step = folded ?? Folded(touched: [], origin: origin, reset: false)
            step.touched.formUnion(batch.rowChanges.map(\.id))
            if origin != .ownWrites { step.origin = .elsewhere }
            folded = step
        }
        guard let step = folded else { return }
        let (controller, map) = (controller, map)
        guard let next = try await controller.storeThread.run({ try Self.layout(of: controller, map: map) }) else { return }
        folded = nil
        checkAgainstController(next)
        if step.reset {
            stepObserver?(hub.version + 1, controller)
            layout = next
            hub.publish(nil, layout: layout)
            return
        }
        let between = layout.batch(to: next, touched: step.touched, sectionsMove: hub.sectionsMove)
        let (changes, values) = layout.withoutUnchangedUpdates(between, values: next.values(placedBy: between))
        // The folded steps cancelled out (a row inserted, then deleted) or changed no value:
        // no version to make, as the controller delivers no empty batch.
        guard !changes.isEmpty else { return }
        stepObserver?(hub.version + 1, controller)
        layout = next
        hub.publish(LiveQueryBatch(previousVersion: 0, version: 0, changes: changes, origin: step.origin, values: values), layout: layout)
    }

    /// Steps taken from the controller and not published yet (a row could not be read).
    private struct Folded {
        var touched: Set<RecordID>
        var origin: ChangeOrigin
        /// Whether one of them was a reset: they are then published as a reset.
        var reset: Bool
    }

    /// The values of the rows `batch` places, read in one query; nil when one of them is no
    /// longer in the database.
    /// Read on the controller's store thread, as its steps are: the read blocks.
    private func values(placedBy batch: ChangeBatch) async throws -> [RecordID: Value]? {
        let placed = batch.rowChanges.filter { $0.newIndexPath != nil }.map(\.id)
        let (controller, map) = (controller, map)
        return try await controller.storeThread.run {
            let records = try controller.readRecords(placed)
            guard records.count == placed.count else { return nil }
            return try records.mapValues(map)
        }
    }

    /// The whole result of `controller`, with every row's value; nil when a row is no longer
    /// in the database.
    private static func layout(of controller: ResultsController<Record>, map: (Record) throws -> Value) throws -> LiveQueryLayout<Value>? {
        var sections: [LiveQuerySection<Value>] = []
        for (s, section) in controller.sections.enumerated() {
            let ids = (0..<section.numberOfObjects).map { controller.id(at: IndexPath(row: $0, section: s)) }
            let records = try controller.readRecords(ids)
            var values: [Value] = []
            values.reserveCapacity(ids.count)
            for id in ids {
                guard let record = records[id] else { return nil }
                values.append(try map(record))
            }
            sections.append(LiveQuerySection(identifier: section.identifier, name: section.name, ids: ids, values: values))
        }
        return LiveQueryLayout(sections: sections)
    }

    /// Debug builds check the result kept for subscribers against the controller's at each step.
    private func checkAgainstController(_ layout: LiveQueryLayout<Value>) {
        #if LIVERESULTS_INTERNAL_CHECKS
        precondition(Self.ids(of: layout) == Self.ids(of: controller), "a live query's result differs from its controller's")
        #endif
    }

    #if LIVERESULTS_INTERNAL_CHECKS
    private static func ids(of layout: LiveQueryLayout<Value>) -> [[String]] {
        layout.sections.map { [$0.identifier, $0.name] + $0.ids.map(String.init) }
    }

    private static func ids(of controller: ResultsController<Record>) -> [[String]] {
        controller.sections.enumerated().map { s, section in
            [section.identifier, section.name] + (0..<section.numberOfObjects).map { String(controller.id(at: IndexPath(row: $0, section: s))) }
        }
    }
    #endif
}

extension ResultsController {
    /// The records of `ids` that are still in the database, from memory or in one query,
    /// without keeping those loaded (a live query keeps the values it makes instead).
    func readRecords(_ ids: [RecordID]) throws -> [RecordID: Record] {
        var found: [RecordID: Record] = [:]
        var missing: [RecordID] = []
        for id in ids {
            if let record = records[id] { found[id] = record } else { missing.append(id) }
        }
        if !missing.isEmpty { found.merge(try loadRecords(missing)) { _, loaded in loaded } }
        return found
    }
}
