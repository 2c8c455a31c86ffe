import Foundation
import PostgresNIO
import PostgresSupport
import Testing
import WorldCup
import WorldCupPostgres
import WorldCupSQLite

/// Many clients starting at once on one database, and taps that count exactly once.
@Suite(.serialized) struct ConcurrencyTests {
    /// Opens `clients` stores at once, on threads of their own, each with `seed`.
    private func openAtOnce(_ clients: Int, _ database: FreshDatabase, seed: [SeedTeam]?) async throws {
        _ = try await onThreads(clients) { _ in try PostgresTeamStore(location: database.location, seed: seed) }
    }

    @Test func eightClientsStartingOnAnEmptyDatabaseSeedItOnce() async throws {
        let database = try await FreshDatabase.make()
        defer { Task { await database.drop() } }
        try await openAtOnce(8, database, seed: Seed.bundled())
        #expect(try await database.integer("SELECT count(*) FROM team") == 32)
        #expect(try await database.integer("SELECT count(*) FROM \"seedImport\"") == 1)
    }

    @Test func concurrentMigrationsWithoutASeed() async throws {
        let database = try await FreshDatabase.make()
        defer { Task { await database.drop() } }
        try await openAtOnce(8, database, seed: nil)
        #expect(try await database.integer("SELECT version FROM worldcup_schema") == Int64(PostgresSchema.version))
        #expect(try await database.integer("SELECT count(*) FROM team") == 0)
        // The seed comes with a later client, once.
        try await openAtOnce(4, database, seed: Seed.bundled())
        #expect(try await database.integer("SELECT count(*) FROM team") == 32)
    }

    @Test func aTapSentTwiceWithTheSameIDCountsOnce() async throws {
        let database = try await FreshDatabase.make()
        defer { Task { await database.drop() } }
        let store = try PostgresTeamStore(location: database.location, seed: Seed.bundled())
        let brazil = try #require(try store.team(named: "Brazil"))
        let tapID = UUID()
        #expect(try store.tap(teamID: brazil.id!, tapID: tapID).wins == brazil.wins + 1)
        // As a retry after a lost answer: the id is recorded, so the tap already counted.
        #expect(try store.tap(teamID: brazil.id!, tapID: tapID).wins == brazil.wins + 1)
        #expect(try store.tap(teamID: brazil.id!).wins == brazil.wins + 2)
        #expect(try await database.integer("SELECT count(*) FROM history WHERE action = 'tap'") == 2)
    }

    @Test func aTapWhoseConnectionIsKilledMidStatementIsRetriedAndCountsOnce() async throws {
        let database = try await FreshDatabase.make()
        defer { Task { await database.drop() } }
        // A deadline far beyond what the test waits for, even on a loaded machine.
        let store = try PostgresTeamStore(location: database.location, seed: Seed.bundled(), deadline: .seconds(60))
        let brazil = try #require(try store.team(named: "Brazil"))
        // Another transaction holds Brazil's row, so the tap's statement waits on it; once it
        // waits, its backend is killed: the statement's outcome is unknown to the store.
        let tapped = try await cutMidStatement(database, teamID: brazil.id!) { try store.tap(teamID: brazil.id!) }
        #expect(tapped.wins == brazil.wins + 1)
        #expect(try store.team(named: "Brazil")?.wins == brazil.wins + 1)
        #expect(try await database.integer("SELECT count(*) FROM history WHERE action = 'tap'") == 1)
    }

    @Test func aStatementThatOutlivesTheDeadlineFailsInOneSentence() async throws {
        let database = try await FreshDatabase.make()
        defer { Task { await database.drop() } }
        // Set up and read with the usual deadline (a loaded machine may take over a second to
        // open a board); the store that meets the lock has a deadline of one second.
        let reader = try PostgresTeamStore(location: database.location, seed: Seed.bundled())
        let store = try PostgresTeamStore(location: database.location, seed: nil, deadline: .seconds(1))
        let brazil = try #require(try reader.team(named: "Brazil"))
        let locker = try await TestServer.connect(database.configuration)
        try await locker.query("BEGIN", logger: TestServer.logger)
        try await locker.query("LOCK TABLE team IN ACCESS EXCLUSIVE MODE", logger: TestServer.logger)
        let start = ContinuousClock.now
        let server = database.location.server
        #expect(throws: WorldCupError("The PostgreSQL server at \(server) is not answering, so the tap may or may not have counted.")) {
            try store.tap(teamID: brazil.id!)
        }
        #expect(throws: WorldCupError("The PostgreSQL server at \(server) is not answering, so the change may or may not have been saved.")) {
            try store.add(name: "Late", zone: "UEFA")
        }
        #expect(throws: WorldCupError("The PostgreSQL server at \(server) is not answering.")) { try store.teamCount() }
        #expect(ContinuousClock.now - start < .seconds(8))
        try await locker.query("ROLLBACK", logger: TestServer.logger)
        try? await locker.close()
        // The server answers again. The backend of a dropped connection never learns that the
        // client went away while it waits for a lock: once the lock is gone it runs what it was
        // sent, so the tap counts after all ("may or may not"), and once.
        var wins = 0
        for _ in 0..<100 {
            wins = try reader.team(named: "Brazil")?.wins ?? 0
            if wins > brazil.wins { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        try await Task.sleep(for: .milliseconds(300))
        #expect(try reader.team(named: "Brazil")?.wins == brazil.wins + 1)
        #expect(try await database.integer("SELECT count(*) FROM history WHERE action = 'tap'") == 1)
    }
}
