import Foundation
@testable import LiveResultsPostgres
import NIOCore
import PostgresNIO
import PostgresSupport
import Testing

/// Asking again about a writer heard steadily: its backend cannot have changed in gaps shorter
/// than `SenderTrust.heardWithin`, so the question checks the role learned before, and the
/// server does not look at its backends (which costs in proportion to them all).
@Suite struct SenderQuestionTests {
    let writer = SenderTrust.Sender(pid: 42, table: "item")

    /// A feed that learned of `writer` (role 10) when it was first heard at `start`.
    func trustAfterAFirstQuestion(at start: NIODeadline) -> SenderTrust {
        var trust = SenderTrust()
        #expect(trust.verdict(of: writer, now: start) == .unknown)
        trust.learned(asked: trust.takeQuestion(), writers: [writer: 10], at: start + .milliseconds(5))
        return trust
    }

    /// Hears `writer` every half second from `from` up to `until` (past the moment this feed
    /// asks again, at most `askAgainAfter` and `askAgainSpread` after the answer).
    func hearSteadily(_ trust: inout SenderTrust, from: NIODeadline, until: NIODeadline) {
        var now = from
        while now <= until {
            #expect(trust.verdict(of: writer, now: now) == .writer)
            now = now + .milliseconds(500)
        }
    }

    @Test func aWriterHeardSteadilyAcrossItsAnswerIsAskedAboutByItsRole() {
        let start = NIODeadline.now()
        var trust = trustAfterAFirstQuestion(at: start)
        let due = start + SenderTrust.askAgainAfter + SenderTrust.askAgainSpread + .seconds(1)
        hearSteadily(&trust, from: start + .milliseconds(10), until: due)
        #expect(trust.takeQuestion() == [writer], "asked again when due")
        #expect(trust.steadyRole(of: writer) == 10)
    }

    @Test func aGapLongerThanHeardWithinMeansItsBackendIsLookedUpAgain() {
        let start = NIODeadline.now()
        var trust = trustAfterAFirstQuestion(at: start)
        let due = start + SenderTrust.askAgainAfter + SenderTrust.askAgainSpread + .seconds(1)
        hearSteadily(&trust, from: start + .milliseconds(10), until: start + .seconds(10))
        // Silent for longer than heardWithin: its backend may have ended and its id been reused.
        hearSteadily(&trust, from: start + .seconds(10) + SenderTrust.heardWithin + .milliseconds(500), until: due)
        #expect(trust.takeQuestion() == [writer])
        #expect(trust.steadyRole(of: writer) == nil)
        // The answer to that question starts a steady run again.
        trust.learned(asked: [writer], writers: [writer: 10], at: due + .milliseconds(5))
        #expect(trust.verdict(of: writer, now: due + .milliseconds(500)) == .writer)
        #expect(trust.steadyRole(of: writer) == 10)
    }

    @Test func aWriterOnlySeenInTheFirstLookIsLookedUpWhenAskedAgain() {
        let start = NIODeadline.now()
        var trust = SenderTrust()
        trust.learned(writers: [writer: 10], at: start)
        // First heard well after the look: nothing ties its backend to the one looked at.
        hearSteadily(&trust, from: start + .seconds(5), until: start + SenderTrust.askAgainAfter + SenderTrust.askAgainSpread + .seconds(1))
        #expect(trust.takeQuestion() == [writer])
        #expect(trust.steadyRole(of: writer) == nil)
    }

    @Test func aNonWriterHasNoRoleToAskBy() {
        let start = NIODeadline.now()
        var trust = SenderTrust()
        _ = trust.verdict(of: writer, now: start)
        trust.learned(asked: trust.takeQuestion(), writers: [:], at: start)
        #expect(trust.verdict(of: writer, now: start + .milliseconds(500)) == .notWriter)
        #expect(trust.steadyRole(of: writer) == nil)
    }

    /// The question on a real server: a sender given with its role is judged by that role alone
    /// (its backend is not looked up: the plan runs the look-up once, for the other sender); a
    /// sender given without one is looked up, and a role that may only read is no writer.
    @Test func theQuestionLooksUpOnlySendersGivenWithoutARole() async throws {
        let database = try await PostgresItems()
        let role = "watcher_" + UUID().uuidString.prefix(8).lowercased()
        do {
            try await database.run("CREATE ROLE \(role) LOGIN", "GRANT SELECT ON ALL TABLES IN SCHEMA public TO \(role)")
            var configuration = database.configuration
            configuration.username = role
            let watcher = try await TestServer.connect(configuration)
            let owner = try await TestServer.connect(database.configuration)
            let watcherPID = try await Self.backendPID(of: watcher)
            let ownerPID = try await Self.backendPID(of: owner)
            let ownerRole = try await Self.int64(owner, "SELECT oid::int8 FROM pg_roles WHERE rolname = current_user")
            let watcherRole = try await Self.int64(owner, "SELECT oid::int8 FROM pg_roles WHERE rolname = '\(role)'")
            let table = PostgresSQL.identifier("item")

            func ask(_ pids: [Int32], roles: [Int64]) async throws -> [Int32: Int64] {
                var binds = PostgresBindings()
                binds.append(pids)
                binds.append(pids.map { _ in table })
                binds.append(roles)
                var writers: [Int32: Int64] = [:]
                for try await (pid, _, role) in try await owner.query(PostgresQuery(unsafeSQL: SenderTrust.questionSQL, binds: binds), logger: TestServer.logger)
                    .decode((Int32, String, Int64).self) { writers[pid] = role }
                return writers
            }
            // Looked up: the owner may write, the watcher may not.
            #expect(try await ask([ownerPID, watcherPID], roles: [0, 0]) == [ownerPID: ownerRole])
            // Given by role: the role decides, whatever backend has the id now.
            #expect(try await ask([watcherPID, ownerPID], roles: [ownerRole, watcherRole]) == [watcherPID: ownerRole])
            // The look-up runs for the sender without a role only.
            var binds = PostgresBindings()
            binds.append([ownerPID, watcherPID, ownerPID])
            binds.append([table, table, table])
            binds.append([ownerRole, 0, ownerRole])
            var plan: [String] = []
            for try await line in try await owner.query(PostgresQuery(unsafeSQL: "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) " + SenderTrust.questionSQL, binds: binds),
                                                        logger: TestServer.logger).decode(String.self) { plan.append(line) }
            let lookUp = try #require(plan.first { $0.contains("pg_stat_get_activity") }, "\(plan)")
            #expect(lookUp.contains("loops=1"), "the look-up ran for senders given with a role:\n\(plan.joined(separator: "\n"))")
            try? await watcher.close()
            try? await owner.close()
            try? await database.run("DROP OWNED BY \(role)", "DROP ROLE \(role)")
        } catch {
            await database.close()
            throw error
        }
        await database.close()
    }

    static func backendPID(of connection: PostgresConnection) async throws -> Int32 {
        try await Int32(int64(connection, "SELECT pg_backend_pid()::int8"))
    }

    static func int64(_ connection: PostgresConnection, _ sql: String) async throws -> Int64 {
        for try await value in try await connection.query(PostgresQuery(unsafeSQL: sql), logger: TestServer.logger).decode(Int64.self) { return value }
        throw TestServerError("no row for \(sql)")
    }
}
