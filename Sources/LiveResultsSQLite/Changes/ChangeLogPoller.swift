import Dispatch
import GRDB
import Glibc
import LiveResults
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
    private let watcher: FolderWatch?

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
    private static func watchFolder(of path: String, queue: DispatchQueue, minimumLookInterval: UInt64, onChange: @escaping @Sendable () -> Void) -> FolderWatch? {
        guard path.hasPrefix("/"), let slash = path.lastIndex(of: "/") else { return nil }
        let folder = slash == path.startIndex ? "/" : String(path[..<slash])
        return FolderWatch(folder: folder, queue: queue, minimumInterval: minimumLookInterval, onChange: onChange)
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

/// An inotify watch on a folder that calls `onChange` about 1 ms after a file in it is written,
/// and not again for each write that follows: after an event it takes its watch off, so the
/// writes in between (our own commits write the WAL several times each) cost the kernel
/// nothing, and it puts the watch back just before `onChange`. A write made while the watch
/// is off is seen by that call, which comes after it; a write after it raises a new event.
private final class FolderWatch {
    private let source: any DispatchSourceRead

    init?(folder: String, queue: DispatchQueue, minimumInterval: UInt64, onChange: @escaping @Sendable () -> Void) {
        guard let inotify = Inotify(folder: folder) else { return nil }
        source = DispatchSource.makeReadSource(fileDescriptor: inotify.descriptor, queue: queue)
        // When the last look began (uptime nanoseconds).
        let lastLook = Atomic<UInt64>(0)
        source.setEventHandler {
            // The events only say "something was written". A writer appends its frames to the
            // WAL (the events) a moment before it publishes the commit in the shared-memory
            // index (no event), so the look comes 1 ms later; and at most every
            // `minimumInterval`, so a storm of commits is read in batches.
            guard inotify.drainSaysWritten(), inotify.unwatch() else { return }
            let now = DispatchTime.now().uptimeNanoseconds
            let earliest = lastLook.load(ordering: .relaxed) &+ minimumInterval
            let wait = max(1_000_000, earliest > now ? earliest - now : 0)
            queue.asyncAfter(deadline: .now() + .nanoseconds(Int(wait))) {
                guard inotify.watch() else { return }
                lastLook.store(DispatchTime.now().uptimeNanoseconds, ordering: .relaxed)
                onChange()
            }
        }
        source.setCancelHandler { inotify.close() }
        source.resume()
    }

    func cancel() {
        source.cancel()
    }
}

/// An inotify instance with at most one watch, on a folder, for writes to its files.
private final class Inotify: Sendable {
    let descriptor: Int32
    private let folder: String
    /// The watch's descriptor, nil while it is off; `closed` once the instance is closed.
    private let state = Mutex<(watch: Int32?, closed: Bool)>((nil, false))
    private static let events = UInt32(IN_MODIFY | IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE)

    /// A new instance, watching; nil when inotify refuses.
    init?(folder: String) {
        descriptor = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard descriptor >= 0 else { return nil }
        self.folder = folder
        guard watch() else {
            close()
            return nil
        }
    }

    /// Puts the watch on (if it is off); false when inotify refuses or the instance is closed.
    func watch() -> Bool {
        state.withLock { state in
            guard !state.closed else { return false }
            guard state.watch == nil else { return true }
            let added = inotify_add_watch(descriptor, folder, Self.events)
            guard added >= 0 else { return false }
            state.watch = added
            return true
        }
    }

    /// Takes the watch off; false when it was off already.
    func unwatch() -> Bool {
        state.withLock { state in
            guard !state.closed, let watch = state.watch else { return false }
            inotify_rm_watch(descriptor, watch)
            state.watch = nil
            return true
        }
    }

    /// Reads every pending event; true when one says a file was written (rather than only
    /// that a watch was taken off).
    func drainSaysWritten() -> Bool {
        var written = false
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = read(descriptor, &buffer, buffer.count)
            guard count > 0 else { return written }
            buffer.withUnsafeBytes { bytes in
                var offset = 0
                while offset + MemoryLayout<inotify_event>.size <= count {
                    let event = bytes.loadUnaligned(fromByteOffset: offset, as: inotify_event.self)
                    if event.mask & Self.events != 0 { written = true }
                    offset += MemoryLayout<inotify_event>.size + Int(event.len)
                }
            }
        }
    }

    func close() {
        state.withLock { state in
            guard !state.closed else { return }
            state.closed = true
            Glibc.close(descriptor)
        }
    }
}
