import Dispatch
import Glibc
import GRDB
import Synchronization

/// Asks a tracker to look for commits of other connections: just after the database's
/// files change (inotify on their folder), and at a steady interval in case a notification
/// is missed (another file system, a full inotify queue).
///
/// A look reads the log's position beside the writer, and goes to the writer's queue only when
/// the log moved past what the tracker has read, so an idle poller costs next to nothing. Looks never pile up: a request that arrives while one waits
/// for a busy writer is folded into one more look after it.
final class ChangeLogPoller {
    private let timer: any DispatchSourceTimer
    private let watcher: (any DispatchSourceRead)?

    /// - Parameter minimumLookInterval: the shortest time between two looks woken by writes.
    init(database: any DatabaseWriter, tracker: ChangeTracker, interval: Duration, minimumLookInterval: Duration = .zero) {
        let state = PollState()
        let queue = DispatchQueue.global(qos: .utility)
        let look: @Sendable () -> Void = {
            guard state.request() else { return }
            @Sendable func run() {
                // First a cheap read beside the writer: most wake-ups are our own commits,
                // which the tracker has already read; those must not queue behind the writer.
                let position = try? database.read { db in try ChangeLog.position(db) }
                if let position, position <= tracker.readPosition.load(ordering: .acquiring) {
                    if state.finish() { run() }
                    return
                }
                database.asyncWriteWithoutTransaction { db in
                    tracker.pollOtherConnections(db)
                    // Not from here: a look starts with a read, which must not run inside the
                    // writer's block (GRDB's database methods are not reentrant).
                    if state.finish() { queue.async { run() } }
                }
            }
            run()
        }
        watcher = Self.watchFolder(of: database.path, queue: queue, minimumLookInterval: Self.nanoseconds(minimumLookInterval), onChange: look)
        // With file notifications, the timer is only a safety net: 20 times slower.
        let timer = DispatchSource.makeTimerSource(queue: queue)
        let nanoseconds = (watcher == nil ? 1 : 20) * max(1_000_000, Int(interval.components.seconds) * 1_000_000_000 + Int(interval.components.attoseconds / 1_000_000_000))
        timer.schedule(deadline: .now() + .nanoseconds(nanoseconds), repeating: .nanoseconds(nanoseconds), leeway: .nanoseconds(nanoseconds / 10))
        timer.setEventHandler(handler: look)
        timer.resume()
        self.timer = timer
    }

    static func nanoseconds(_ duration: Duration) -> UInt64 {
        UInt64(max(0, duration.components.seconds)) * 1_000_000_000 + UInt64(max(0, duration.components.attoseconds / 1_000_000_000))
    }

    /// Watches the folder of the database file for writes to the file or its WAL; nil for an
    /// in-memory database or when inotify is unavailable.
    private static func watchFolder(of path: String, queue: DispatchQueue, minimumLookInterval: UInt64, onChange: @escaping @Sendable () -> Void) -> (any DispatchSourceRead)? {
        guard path.hasPrefix("/"), let slash = path.lastIndex(of: "/") else { return nil }
        let folder = slash == path.startIndex ? "/" : String(path[..<slash])
        let descriptor = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard descriptor >= 0 else { return nil }
        guard inotify_add_watch(descriptor, folder, UInt32(IN_MODIFY | IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE)) >= 0 else {
            close(descriptor)
            return nil
        }
        let source = DispatchSource.makeReadSource(fileDescriptor: descriptor, queue: queue)
        // Dispatch sources are thread-safe; Swift does not know it. (The cycle through the
        // handler ends when the source is cancelled.)
        nonisolated(unsafe) let resting = source
        // When the last look began (uptime nanoseconds); the handler runs one at a time.
        let lastLook = Atomic<UInt64>(0)
        source.setEventHandler {
            // The events only say "something was written": drain them, and look 1 ms later.
            // A writer appends its frames to the WAL (the events) a moment before it publishes
            // the commit in the shared-memory index (no event), so an immediate look would
            // find nothing. Meanwhile the source rests, so a burst of writes (our own taps)
            // wakes us once, not once per write; writes during the rest raise the source again
            // when it resumes. Looks come at most every `minimumLookInterval`: a lone commit
            // is still seen after 1 ms, but a storm of commits is read in batches.
            var buffer = [UInt8](repeating: 0, count: 4096)
            while read(descriptor, &buffer, buffer.count) > 0 {}
            resting.suspend()
            let now = DispatchTime.now().uptimeNanoseconds
            let earliest = lastLook.load(ordering: .relaxed) &+ minimumLookInterval
            let wait = max(1_000_000, earliest > now ? earliest - now : 0)
            queue.asyncAfter(deadline: .now() + .nanoseconds(Int(wait))) {
                lastLook.store(DispatchTime.now().uptimeNanoseconds, ordering: .relaxed)
                onChange()
                resting.resume()
            }
        }
        source.setCancelHandler { close(descriptor) }
        source.resume()
        return source
    }

    /// Stops looking.
    func cancel() {
        timer.cancel()
        watcher?.cancel()
    }

    deinit {
        cancel()
    }
}

/// Whether a look is running, and whether another was asked for meanwhile.
private final class PollState: Sendable {
    private let state = Mutex((running: false, again: false))

    /// True when the caller should start a look; false when one is running (it will run again).
    func request() -> Bool {
        state.withLock { state in
            if state.running {
                state.again = true
                return false
            }
            state.running = true
            return true
        }
    }

    /// True when another look was asked for while this one ran: the caller runs it.
    func finish() -> Bool {
        state.withLock { state in
            if state.again {
                state.again = false
                return true
            }
            state.running = false
            return false
        }
    }
}
