import Foundation

/// A task executor of a fixed number of threads: the stand-in for a server's cooperative pool
/// on a machine of that many cores (the global executor cannot be made that small in a test).
/// Tasks started with it as their preference run their nonisolated code on its threads only.
final class ThreadPoolExecutor: TaskExecutor, @unchecked Sendable {
    // `jobs` and `stopped` are read and written only under `condition`'s lock.
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var stopped = false

    init(threads: Int) {
        for index in 0..<threads {
            let thread = Thread { [self] in loop() }
            thread.name = "test pool \(index)"
            thread.start()
        }
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    /// Lets the threads end once the jobs given to them are done.
    func shutdown() {
        condition.lock()
        stopped = true
        condition.broadcast()
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
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}
