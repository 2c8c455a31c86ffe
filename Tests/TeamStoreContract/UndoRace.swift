import Foundation
import Synchronization
import Testing
import WorldCup

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

    /// `rounds` times: a tap of Korea by one of `stores` (two of one author, "a@pc"), then an
    /// undo of its entry by each store at the same moment: exactly one takes it back, and the
    /// other says who did. Korea ends with the wins it started with.
    public static func undoTheSameEntry(_ stores: [any TeamStore], rounds: Int) throws {
        let korea = try #require(try stores[0].team(named: "Korea"))
        for round in 0..<rounds {
            let tap = try stores[round % stores.count].recordedTap(teamID: korea.id!)
            let outcomes = run(stores.map { store in { try store.undo(entryID: tap.entryID!) } })
            #expect(outcomes.successes == 1, "round \(round): \(outcomes.errors)")
            #expect(outcomes.errors == ["Korea +1 win was already taken back by a@pc."], "round \(round)")
        }
        #expect(try stores[0].team(named: "Korea")?.wins == korea.wins, "every tap taken back once")
        #expect(try stores[0].history(limit: 2 * rounds).filter { $0.change.action == .undo }.count == rounds)
    }
}
