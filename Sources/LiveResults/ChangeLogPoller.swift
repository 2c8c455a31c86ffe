import Dispatch
import GRDB
import Synchronization

/// Asks a tracker, at a steady interval, to look for commits of other connections.
///
/// Each tick is one `PRAGMA data_version` on the writer's queue when nothing changed, so an
/// idle poller costs next to nothing; a tick is skipped while the previous one waits for a
/// busy writer.
final class ChangeLogPoller {
    private let timer: any DispatchSourceTimer

    init(database: any DatabaseWriter, tracker: ChangeTracker, interval: Duration) {
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue.global(qos: .utility))
        let nanoseconds = Int(interval.components.seconds) * 1_000_000_000 + Int(interval.components.attoseconds / 1_000_000_000)
        timer.schedule(deadline: .now() + .nanoseconds(nanoseconds), repeating: .nanoseconds(nanoseconds), leeway: .nanoseconds(nanoseconds / 10))
        let pending = PollState()
        timer.setEventHandler {
            guard pending.begin() else { return }
            database.asyncWriteWithoutTransaction { db in
                tracker.pollOtherConnections(db)
                pending.end()
            }
        }
        timer.resume()
        self.timer = timer
    }

    /// Stops polling.
    func cancel() {
        timer.cancel()
    }

    deinit {
        timer.cancel()
    }
}

/// Whether a poll is waiting for the writer.
private final class PollState: Sendable {
    private let busy = Atomic<Bool>(false)

    func begin() -> Bool {
        busy.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged
    }

    func end() {
        busy.store(false, ordering: .releasing)
    }
}
