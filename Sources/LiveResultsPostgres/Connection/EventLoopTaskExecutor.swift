import NIOCore
import NIOPosix

/// Runs tasks on an event loop's thread instead of Swift's shared pool, where a caller that
/// blocks a thread of the pool (a synchronous `refresh()` called from async code, as the
/// tests do) could leave the feed's read no thread to run on.
package final class EventLoopTaskExecutor: TaskExecutor {
    package let eventLoop: any EventLoop

    package init(_ eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
    }

    package func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        eventLoop.execute { job.runSynchronously(on: executor) }
    }

    /// Runs async work on an event loop and waits for it on the calling thread, which must
    /// be neither an event loop's nor needed by the work: the way for synchronous code (a
    /// benchmark, a test's set-up) to use postgres-nio's async API without blocking a thread
    /// of Swift's shared pool while the work waits for one.
    /// Given up after `limit` (a benchmark's build of millions of rows takes minutes).
    package static func wait<T: Sendable>(on eventLoop: any EventLoop = MultiThreadedEventLoopGroup.singleton.next(), within limit: TimeAmount = .minutes(30),
                                          _ body: @escaping @Sendable () async throws -> T) throws -> T {
        let promise = eventLoop.makePromise(of: T.self)
        Task(executorPreference: EventLoopTaskExecutor(eventLoop)) {
            do { promise.succeed(try await body()) } catch { promise.fail(error) }
        }
        return try promise.futureResult.waitWithin(.long(limit))
    }
}
