import Foundation
import Synchronization

/// The controller's own thread, on which its async sequences run their steps (a fetch, or
/// processing the pending changes), because a step's store reads block the thread they run on.
///
/// Not Swift's cooperative pool: it has as many threads as cores, so on a server one slow
/// statement there would stall every other task. Not a task executor either: a task
/// preferring it would still run its other work there, and the controller's steps need no
/// more than a thread that may block. The iterating task only awaits a continuation, and the
/// step ends before `next()` returns, so the loop body sees the new result and the
/// controller is used by one thread at a time (the iterating isolation waits meanwhile).
///
/// The thread is made at the first step and ends when the controller goes away or its last
/// sequence ends (a later step makes a new one); stopping never waits for it, so it may
/// happen on the thread itself.
final class StoreThread: Sendable {
    private let worker = Mutex<Worker?>(nil)

    deinit { stop() }

    /// Runs `body` on the thread, the calling task suspended until it ends.
    func run<T: Sendable>(isolation: isolated (any Actor)? = #isolation, _ body: @escaping () throws -> T) async throws -> T {
        let job = Job(body: body)
        let worker = worker.withLock { worker in
            if let running = worker { return running }
            let started = Worker()
            worker = started
            return started
        }
        return try await withCheckedThrowingContinuation(isolation: isolation) { continuation in
            worker.enqueue { continuation.resume(with: Result { try job.body() }) }
        }
    }

    /// Lets the thread end once the steps given to it are done.
    func stop() {
        worker.withLock { $0.take() }?.stop()
    }

    /// A step handed to the thread.
    private struct Job<T>: @unchecked Sendable {
        // Runs on the thread while its caller awaits it, so what it captures (the controller)
        // is never used by two threads at once.
        let body: () throws -> T
    }

    /// The thread and its queue of steps.
    private final class Worker: @unchecked Sendable {
        // `jobs` and `stopped` are read and written only under `condition`'s lock.
        private let condition = NSCondition()
        private var jobs: [@Sendable () -> Void] = []
        private var stopped = false

        init() {
            let thread = Thread { [self] in loop() }
            thread.name = "LiveResults store"
            thread.start()
        }

        func enqueue(_ job: @escaping @Sendable () -> Void) {
            condition.lock()
            jobs.append(job)
            condition.signal()
            condition.unlock()
        }

        func stop() {
            condition.lock()
            stopped = true
            condition.signal()
            condition.unlock()
        }

        private func loop() {
            while true {
                condition.lock()
                while jobs.isEmpty && !stopped { condition.wait() }
                if jobs.isEmpty {
                    condition.unlock()
                    return
                }
                let job = jobs.removeFirst()
                condition.unlock()
                job()
            }
        }
    }
}
