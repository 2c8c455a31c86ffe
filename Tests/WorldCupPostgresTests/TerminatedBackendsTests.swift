import Foundation
import NIOPosix
import PostgresNIO
import PostgresSupport
import Synchronization
import Testing
import TestSupport
import WorldCup
import WorldCupPostgres

/// Four processes of every command of the built worldcup (tap, add, edit, delete, undo) while
/// the database's backends are terminated at random a few times a second, as a failover or an
/// idle-session reaper does: every command ends within its deadlines and one retry, in one
/// sentence when it fails, and every acknowledged tap is in the table exactly once.
@Suite(.serialized) struct TerminatedBackendsTests {
    /// The teams the workers tap (nobody renames or deletes them).
    static let tapped = ["Brazil", "Argentina", "France", "Germany"]
    /// How long the storm lasts.
    static let storm = Duration.seconds(30)
    /// The longest a command may take: opening (connecting and its statements, once more when
    /// the connection is lost) and its change (sent again within the 5 s deadline), each
    /// within the 5 s deadline; a command that hangs is killed at `Executable.run`'s limit.
    static let longestCommand = Duration.seconds(30)

    /// What one run of a command gave.
    struct Outcome: Sendable {
        var command: [String]
        var status: Int32
        var err: String
        var took: Duration
    }

    @Test func everyCommandEndsAndEveryAcknowledgedTapCountsOnce() async throws {
        let database = try await FreshDatabase.make()
        defer { Task { await database.drop() } }
        _ = try PostgresTeamStore(location: database.location, seed: Seed.bundled())
        let before = try await wins(database)
        let stop = StopFlag()
        // On a thread of its own: tests that block the shared pool's threads must not starve it.
        let killer = OnThread { try terminateBackends(of: database, until: { stop.isSet }) }
        let outcomes = try await onThreads(4) { worker in
            var outcomes: [Outcome] = []
            var random = SystemRandomNumberGenerator()
            var added: [String] = []
            let end = ContinuousClock.now + Self.storm
            var count = 0
            while ContinuousClock.now < end {
                count += 1
                let author = ["--author", "worker-\(worker)"]
                var command: [String]
                switch count % 6 {
                case 0, 3: command = ["tap", "--author", "tapper-\(worker)", Self.tapped.randomElement(using: &random)!]
                case 1:
                    let name = "W\(worker)-\(count)"
                    added.append(name)
                    command = ["add", name, "--zone", "UEFA"] + author
                case 2: command = ["edit", added.last ?? "Japan", "--wins", String(Int.random(in: 0...9, using: &random))] + author
                case 4: command = ["delete", added.popLast() ?? "Nowhere"] + author
                default: command = ["undo"] + author
                }
                let start = ContinuousClock.now
                let result = try Executable.run(command + ["--database", database.urlString], limit: .seconds(90))
                outcomes.append(Outcome(command: command, status: result.status, err: result.err, took: ContinuousClock.now - start))
            }
            return outcomes
        }.flatMap { $0 }
        stop.set()
        let terminated = try killer.value()
        #expect(terminated > 20, "only \(terminated) backends were terminated")

        for outcome in outcomes {
            #expect(outcome.took < Self.longestCommand, "\(outcome.command) took \(outcome.took): \(outcome.err)")
            if outcome.status != 0 {
                let sentence = outcome.err.hasPrefix("Error: ") ? String(outcome.err.dropFirst("Error: ".count).dropLast()) : outcome.err
                #expect(isOneSentence(sentence), "\(outcome.command): \(outcome.err)")
            }
        }
        // Each team's new wins are its acknowledged taps, plus some of those whose outcome was
        // unknown ("may or may not have counted"), and each is in the history once.
        let after = try await wins(database)
        for team in Self.tapped {
            let taps = outcomes.filter { $0.command.first == "tap" && $0.command.last == team }
            let acknowledged = taps.filter { $0.status == 0 }.count
            let unknown = taps.filter { $0.status != 0 && $0.err.contains("may or may not") }.count
            let gained = after[team, default: 0] - before[team, default: 0]
            #expect(gained >= acknowledged && gained <= acknowledged + unknown, "\(team): \(gained) wins for \(acknowledged) acknowledged taps and \(unknown) unknown")
            let recorded = try await database.integer("SELECT count(*) FROM history WHERE action = 'tap' AND \"teamName\" = '\(team)'") ?? -1
            #expect(recorded == Int64(gained), "\(team): \(recorded) taps in the history for \(gained) wins")
        }
        let slowest = outcomes.map(\.took).max() ?? .zero
        let failed = outcomes.filter { $0.status != 0 }.count
        print("TerminatedBackendsTests: \(outcomes.count) commands, \(failed) failed in one sentence, slowest \(slowest), \(terminated) backends terminated")
    }

    /// The wins of the tapped teams.
    private func wins(_ database: FreshDatabase) async throws -> [String: Int] {
        var wins: [String: Int] = [:]
        for team in Self.tapped {
            wins[team] = Int(try await database.integer("SELECT wins FROM team WHERE \"teamName\" = '\(team)'") ?? 0)
        }
        return wins
    }
}
