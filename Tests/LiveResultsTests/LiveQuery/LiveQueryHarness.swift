import Foundation
@testable import LiveResults
import Synchronization
import TestSupport

// Many subscribers of one live query, at different paces, each checking every element it
// takes against what the result was at that version. Shared by the SQLite and PostgreSQL suites.
//
// The oracle of a version is the controller's result at that step (read by the query's step
// observer before subscribers can take the step); the oracle of the end is a fresh query of
// the database. Each subscriber keeps its own copy (ids, section names and identifiers, values)
// and applies each element to it; a batch is checked with the batch checker (rules 1 to 13,
// applying it as a table view does) from the copy to the oracle, and the values it carries
// must be those of the rows it places, so that the copy's values stay those of the database.

/// The result at each version, as the controller held it.
final class VersionOracle: Sendable {
    struct Result: Equatable, Sendable {
        var layout: [Layout]
        var names: [RecordID: String]
    }

    private let results = Mutex<[Int: Result]>([:])

    func record(_ version: Int, _ result: Result) {
        results.withLock { $0[version] = result }
    }

    func result(at version: Int) -> Result? {
        results.withLock { $0[version] }
    }

    var latest: (version: Int, result: Result)? {
        results.withLock { results in results.keys.max().map { ($0, results[$0]!) } }
    }
}

/// The controller's result, with the value (`name`) of every row.
func oracleResult<Record>(_ controller: ResultsController<Record>, name: (Record) -> String) -> VersionOracle.Result {
    var names: [RecordID: String] = [:]
    let layout = controller.sections.enumerated().map { s, section in
        let ids = (0..<section.numberOfObjects).map { controller.id(at: ip(s, $0)) }
        // By id: a row a later commit deleted is no longer in the database (its name is then
        // unknown here; names are compared at the end only).
        let records = try! controller.readRecords(ids)
        for id in ids { if let record = records[id] { names[id] = name(record) } }
        return Layout(section.name, ids, identifier: section.identifier)
    }
    return VersionOracle.Result(layout: layout, names: names)
}

/// The checker's events of a batch: section moves and updates carry both indices.
func liveQueryEvents(of batch: ChangeBatch, in new: [Layout]) -> [Recorder.Event] {
    var events: [Recorder.Event] = [.willChange]
    for change in batch.sectionChanges {
        if let newIndex = change.newIndex {
            let count = new.indices.contains(newIndex) ? new[newIndex].ids.count : 0
            events.append(.sectionKept(change.kind, from: change.index, to: newIndex, name: change.name, count: count))
        } else {
            let count = change.kind == .insert && new.indices.contains(change.index) ? new[change.index].ids.count : 0
            events.append(.section(change.kind, index: change.index, name: change.name, count: count))
        }
    }
    for change in batch.rowChanges {
        events.append(.row(change.kind, id: change.id, from: change.indexPath, to: change.newIndexPath))
    }
    return events + [.didChange]
}

/// What one subscriber holds: its copy of the result.
struct HeldResult: Equatable, Sendable {
    var version: Int
    var result: VersionOracle.Result
}

/// Applies `update` to `held` after checking it; returns the problems found.
func take(_ update: LiveQueryUpdate<String>, into held: inout HeldResult?, oracle: VersionOracle) -> [String] {
    var problems: [String] = []
    switch update {
    case .snapshot(let snapshot):
        if let held, snapshot.version < held.version { problems.append("a snapshot at \(snapshot.version) after version \(held.version)") }
        var names: [RecordID: String] = [:]
        for section in snapshot.sections {
            if section.ids.count != section.values.count { problems.append("section \(section.name) has \(section.ids.count) ids and \(section.values.count) values") }
            for (id, value) in zip(section.ids, section.values) { names[id] = value }
        }
        held = HeldResult(version: snapshot.version, result: VersionOracle.Result(
            layout: snapshot.sections.map { Layout($0.name, $0.ids, identifier: $0.identifier) }, names: names))
    case .batch(let batch):
        guard let old = held else { return ["a batch came before any snapshot"] }
        if batch.previousVersion != old.version {
            problems.append("a batch from version \(batch.previousVersion) to a subscriber at version \(old.version) (a gap or an overlap)")
        }
        if batch.version <= batch.previousVersion { problems.append("a batch from version \(batch.previousVersion) to \(batch.version)") }
        guard let truth = oracle.result(at: batch.version) else { return problems + ["no result is known at version \(batch.version)"] }
        // Merged steps may cancel out (a row inserted, then deleted): an empty batch that only
        // moves the subscriber to the version now. The controller never delivers one.
        let cancelledOut = batch.changes.isEmpty && batch.version - batch.previousVersion > 1
        let violations = cancelledOut ? (old.result.layout == truth.layout ? [] : ["an empty batch between different results"])
            : batchViolations(old: old.result.layout, new: truth.layout, events: liveQueryEvents(of: batch.changes, in: truth.layout))
        problems += violations.map { "batch \(batch.previousVersion) -> \(batch.version): \($0)" }
        let placed = Set(batch.changes.rowChanges.filter { $0.newIndexPath != nil }.map(\.id))
        if Set(batch.values.keys) != placed {
            problems.append("batch \(batch.previousVersion) -> \(batch.version) carries values of \(batch.values.keys.sorted()), it places \(placed.sorted())")
        }
        // The checker applied the batch to the old result and found the new one: hold it, with
        // the values kept for the rows not placed and those the batch carries for the others.
        let present = Set(truth.layout.flatMap(\.ids))
        var names = old.result.names.filter { present.contains($0.key) }
        names.merge(batch.values) { _, new in new }
        held = HeldResult(version: batch.version, result: VersionOracle.Result(layout: violations.isEmpty ? truth.layout : old.result.layout, names: names))
    }
    // Values are compared at the end only: records are read when a step is made, so a value
    // read at a step may already hold a later commit's change (reported at a later step).
    if let held, let truth = oracle.result(at: held.version), held.result.layout != truth.layout {
        problems.append("at version \(held.version) the subscriber holds \(held.result.layout) \(held.result.names.sorted { $0.key < $1.key }), the controller held \(truth.layout) \(truth.names.sorted { $0.key < $1.key })")
    }
    return problems
}

/// How a subscriber reads.
enum Pace: CaseIterable {
    /// Takes every element as soon as it can.
    case eager
    /// Sleeps a few milliseconds after each element.
    case sleepy
    /// Subscribes while the writes are under way.
    case late
    /// Is cancelled while the writes are under way.
    case cancelled
    /// Subscribes at the start and reads nothing until the writes are done.
    case idle
}

/// Runs `subscribers` subscribers of `query` at every pace while `write` makes `writes` random
/// transactions, then waits for them all to reach the end; returns the problems found, each
/// naming the seed.
func exerciseSubscribers<Record>(
    _ query: LiveQuery<Record, String>, name: @escaping @Sendable (Record) -> String, seed: UInt64, subscribers: Int = 50, writes: Int,
    write: (inout SplitMix64) async throws -> Void, fresh: () async throws -> VersionOracle.Result
) async throws -> [String] {
    let oracle = VersionOracle()
    await query.observeSteps { version, controller in oracle.record(version, oracleResult(controller, name: name)) }
    let loop = Task { try await query.run() }
    let shared = SubscribersReport()
    var random = SplitMix64(seed: seed)

    func subscriber(_ number: Int, pace: Pace, subscription given: LiveQuerySubscription<String>?, delay: Duration) -> Task<Void, Never> {
        Task {
            do {
                if pace == .late { try await Task.sleep(for: delay) }
                if pace == .idle { while !shared.writesDone.load(ordering: .acquiring) { try await Task.sleep(for: .milliseconds(5)) } }
                var held: HeldResult?
                for try await update in given ?? query.subscribe() {
                    if case .batch(let batch) = update, batch.version - batch.previousVersion > 1 { shared.merged.add(1, ordering: .relaxed) }
                    let found = take(update, into: &held, oracle: oracle)
                    if !found.isEmpty { shared.problems.withLock { $0 += found.map { "subscriber \(number) (\(pace)): \($0)" } } }
                    shared.progress.withLock { $0[number] = held }
                    if pace == .sleepy { try await Task.sleep(for: delay) }
                }
            } catch is CancellationError {
            } catch {
                shared.problems.withLock { $0.append("subscriber \(number) (\(pace)) threw \(error)") }
            }
        }
    }
    var tasks: [(pace: Pace, task: Task<Void, Never>)] = []
    for number in 0..<subscribers {
        let pace = Pace.allCases[number % Pace.allCases.count]
        // Subscribed here, at version 0, unless late.
        let subscription = pace == .late ? nil : query.subscribe()
        let delay: Duration = pace == .sleepy ? .milliseconds(random.int(1...20)) : .milliseconds(random.int(0...300))
        tasks.append((pace, subscriber(number, pace: pace, subscription: subscription, delay: delay)))
    }
    var dormant: LiveQuerySubscription<String>? = query.subscribe() // never iterated
    let cancellations = tasks.filter { $0.pace == .cancelled }.map { entry in
        let after = Duration.milliseconds(random.int(0...400))
        return Task { try? await Task.sleep(for: after); entry.task.cancel() }
    }

    for _ in 0..<writes {
        try await write(&random)
        if random.chance(0.5) { try await Task.sleep(for: .milliseconds(random.int(0...3))) }
    }
    let written = ContinuousClock.now
    shared.writesDone.store(true, ordering: .releasing)
    for cancellation in cancellations { await cancellation.value }

    var found: [String] = []
    let expected = try await fresh()
    let deadline = written + .seconds(60)
    while oracle.latest?.result.layout != expected.layout && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
    // Then no step for a while: the last commit's step may come after its result showed.
    var version = query.hub.version
    while ContinuousClock.now < deadline {
        try await Task.sleep(for: .milliseconds(300))
        if query.hub.version == version { break }
        version = query.hub.version
    }
    guard let final = oracle.latest, final.result.layout == expected.layout, final.version == query.hub.version else {
        loop.cancel()
        for entry in tasks { entry.task.cancel() }
        var ended = "the loop was running"
        do { try await loop.value } catch { ended = "the loop threw \(error)" }
        return ["seed \(seed): \(ended); first problems: \(shared.problems.withLock { $0.prefix(3) })", "seed \(seed): the controller never showed the database's result \(expected.layout); it shows \(oracle.latest.map { "\($0.result.layout) at version \($0.version)" } ?? "nothing")"]
    }
    // The eager readers reach the end in bounded time, whatever the idle and dormant
    // subscribers hold back; then every reader does.
    func behind(_ paces: Set<Pace>) -> [Int] {
        shared.progress.withLock { progress in tasks.indices.filter { paces.contains(tasks[$0].pace) && progress[$0]?.version != final.version } }
    }
    // Sized for the whole suite beside it on two cores; alone they take well under a second.
    let eagerDeadline = written + .seconds(20)
    while !behind([.eager]).isEmpty && ContinuousClock.now < eagerDeadline { try await Task.sleep(for: .milliseconds(10)) }
    if !behind([.eager]).isEmpty {
        found.append("eager subscribers \(behind([.eager])) did not reach version \(final.version) within 20 s of the last write")
    }
    let readers: Set<Pace> = [.eager, .sleepy, .late, .idle]
    while !behind(readers).isEmpty && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
    if !behind(readers).isEmpty {
        found.append("subscribers \(behind(readers)) did not reach version \(final.version) within 60 s of the last write")
    }
    let wrong = shared.progress.withLock { progress in
        tasks.indices.filter { readers.contains(tasks[$0].pace) && progress[$0].map { $0.result != expected } == true }
    }
    if let first = wrong.first, let held = shared.progress.withLock({ $0[first] }) {
        let differing = held.result.names.filter { expected.names[$0.key] != $0.value }.map { "\($0.key): \($0.value) (database: \(expected.names[$0.key] ?? "none"))" }
        found.append("subscribers \(wrong) end with values other than the database's; \(first) (\(tasks[first].pace)) holds \(differing.sorted())\(held.result.names.count != expected.names.count ? ", \(held.result.names.count) values for \(expected.names.count) rows" : "")")
    }
    let retained = query.hub.retained
    if retained.steps > final.version { found.append("\(retained.steps) steps kept after \(final.version) versions") }

    for entry in tasks { entry.task.cancel() }
    for entry in tasks { await entry.task.value }
    if query.subscriberCount != 1 { found.append("\(query.subscriberCount) subscriptions alive after every task ended, one (never iterated) expected") }
    dormant = nil
    _ = dormant
    let freed = query.hub.retained
    if query.subscriberCount != 0 || freed.steps != 0 || freed.layouts != 1 {
        found.append("without subscribers the query keeps \(query.subscriberCount) subscriptions, \(freed.steps) steps, \(freed.layouts) results")
    }
    loop.cancel()
    try await loop.value
    found += shared.problems.withLock { $0 }
    // The test must have merged steps to mean anything.
    if shared.merged.load(ordering: .relaxed) < subscribers / 5 { found.append("only \(shared.merged.load(ordering: .relaxed)) batches covered several steps") }
    return found.map { "seed \(seed): \($0)" }
}

/// What the subscribers of `exerciseSubscribers` report, and whether the writes are done.
final class SubscribersReport: Sendable {
    let problems = Mutex<[String]>([])
    /// What each subscriber holds, by its number.
    let progress = Mutex<[Int: HeldResult]>([:])
    let writesDone = Atomic<Bool>(false)
    /// How many batches covered several steps.
    let merged = Atomic<Int>(0)
}
