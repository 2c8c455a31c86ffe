import Foundation

/// A body run on a thread of its own, started at once: not a task of the shared pool, which
/// tests that block its threads may hold for a long while.
public final class OnThread<T: Sendable>: @unchecked Sendable { // `result` is written before `done` is signalled, read after.
    private let done = DispatchSemaphore(value: 0)
    private var result: Result<T, any Error>?

    public init(_ body: @escaping @Sendable () throws -> T) {
        Thread { [self] in
            result = Result { try body() }
            done.signal()
        }.start()
    }

    /// Waits for the body to end (blocking the caller's thread); what it returned.
    public func value() throws -> T {
        done.wait()
        done.signal()
        return try result!.get()
    }
}
