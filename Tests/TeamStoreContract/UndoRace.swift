import Foundation
import Synchronization

/// Runs undos (or any writes) on threads of their own, released at the same moment, and
/// gathers their outcomes: the number that succeeded and the sentences of those that did not.
public enum UndoRace {
    public static func run(_ bodies: [@Sendable () throws -> Any]) -> (successes: Int, errors: [String]) {
        let outcomes = Mutex<(Int, [String])>((0, []))
        let start = DispatchSemaphore(value: 0)
        let done = DispatchGroup()
        for body in bodies {
            done.enter()
            Thread {
                start.wait()
                do {
                    _ = try body()
                    outcomes.withLock { $0.0 += 1 }
                } catch {
                    outcomes.withLock { $0.1.append("\(error)") }
                }
                done.leave()
            }.start()
        }
        for _ in bodies { start.signal() }
        done.wait()
        return outcomes.withLock { $0 }
    }
}
