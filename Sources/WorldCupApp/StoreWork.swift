import Foundation
import Synchronization

/// Where the board's store work runs: its writes, and the reads of who made others' changes.
///
/// In the app, on a thread of its own, one job at a time in the order asked: the loop asks
/// and goes on (a write may wait for a lock, or for a server that is slow or away, and
/// PostgreSQL's retries sleep between tries), and each job's outcome waits in a mailbox
/// until the loop takes it (`takeFinished`), woken by `wake` (Bubble Tea's commands, Elm's
/// `Cmd`). One job at a time keeps the outcomes in the order the writes were asked for,
/// which the undo stack relies on. In tests, a job runs at once on the caller's thread.
///
/// A job may use the store (which is `Sendable`) and the values it was made with, nothing of
/// the loop's: not the model, not the results controller, not the terminal. The rows a write
/// commits reach the controller by the store's own way (`OwnWrites`, from any thread); the
/// loop picks them up with `processChanges()` when the outcome arrives.
final class StoreWork: Sendable {
    /// A job's outcome, for the loop.
    enum Outcome {
        /// A write the board asked for: the event of what it saved, or its error.
        case written(BoardEffect, Result<BoardEvent, any Error>)
        /// Who made the changes other programs committed, as the event that says so (nil:
        /// they were this board's own).
        case named(BoardEvent?)
    }

    /// The thread's queue (serial); nil runs every job at once, on the caller's thread.
    private let queue: DispatchQueue?
    private let wake: @Sendable () -> Void
    private let finished = Mutex<[Handed<Outcome>]>([])

    /// Work done at once on the caller's thread (tests, and code that wants its outcome now).
    static func inline() -> StoreWork {
        StoreWork(queue: nil, wake: {})
    }

    /// Work done on a thread of its own; `wake` is called from that thread after each job.
    static func onThread(wake: @escaping @Sendable () -> Void) -> StoreWork {
        StoreWork(queue: DispatchQueue(label: "worldcup.store-work", qos: .userInitiated), wake: wake)
    }

    private init(queue: DispatchQueue?, wake: @escaping @Sendable () -> Void) {
        self.queue = queue
        self.wake = wake
    }

    /// Whether jobs run at once, on the caller's thread.
    var isInline: Bool { queue == nil }

    /// Runs `job` where the work runs, after every job asked before it; its outcome waits for
    /// `takeFinished()`.
    func run(_ job: @escaping () -> Outcome) {
        let handed = Handed(job)
        guard let queue else { return finish(handed.value()) }
        queue.async { [self] in
            finish(handed.value())
            wake()
        }
    }

    /// Runs `job` where the work runs, after every job asked before it, with no outcome for
    /// the loop: what later jobs need done first (a read the loop must not wait for).
    func prepare(_ job: @escaping () -> Void) {
        let handed = Handed(job)
        guard let queue else { return handed.value() }
        queue.async { handed.value() }
    }

    private func finish(_ outcome: Outcome) {
        finished.withLock { $0.append(Handed(outcome)) }
    }

    /// The outcomes of the jobs finished since the last call, in the order they were asked for.
    func takeFinished() -> [Outcome] {
        finished.withLock { outcomes in
            defer { outcomes.removeAll() }
            return outcomes.map(\.value)
        }
    }

    /// Waits until every job asked for so far has finished (for tests).
    func waitUntilDone() {
        queue?.sync {}
    }
}

/// A value handed from one thread to another and never used by both: a job, with what it
/// captured, to the work's thread; its outcome back to the loop, under the mailbox's lock.
struct Handed<Value>: @unchecked Sendable {
    let value: Value

    init(_ value: Value) {
        self.value = value
    }
}
