import Foundation
import PostgresNIO
import PostgresSupport
import Testing
import WorldCup
import WorldCupPostgres

/// Spectators on PostgreSQL: what a user may do is asked of the server when the board opens
/// (privileges, a read-only session), never found by a write that fails; a read-only store
/// refuses every change at once and writes nothing, not even to set a database up.
@Suite(.serialized) struct SpectatorStoreTests {
    /// A role of the test server that logs in without a password (the cluster trusts it),
    /// named for this test alone (roles belong to the whole cluster).
    private func role(_ database: FreshDatabase, grants: [String], settings: String = "") async throws -> PostgresLocation {
        let name = "watcher_" + UUID().uuidString.prefix(8).lowercased()
        try await database.execute("CREATE ROLE \(name) LOGIN \(settings)")
        for grant in grants { try await database.execute(grant.replacingOccurrences(of: "{role}", with: name)) }
        var url = database.location.url
        url.user = name
        return PostgresLocation(url)
    }

    /// The README's grants of a watcher.
    private let watcherGrants = [
        "GRANT USAGE ON SCHEMA public TO {role}",
        "GRANT SELECT ON ALL TABLES IN SCHEMA public TO {role}",
    ]

    @Test func aRoleGrantedSelectOnlyGetsAReadOnlyBoardThatRefusesEveryChange() async throws {
        let database = try await FreshDatabase.make()
        defer { Task { await database.drop() } }
        _ = try PostgresTeamStore(location: database.location, seed: Seed.bundled())
        let watcher = try await role(database, grants: watcherGrants)
        let store = try PostgresTeamStore(location: watcher, seed: Seed.bundled())
        #expect(store.readOnly == .role(user: watcher.url.user))
        #expect(try store.teamCount() == 32, "it reads like anyone")
        let refusal = WorldCupError("The user “\(watcher.url.user)” may only watch this board, so nothing was changed.")
        let ghana = try #require(try store.team(named: "Ghana"))
        #expect(throws: refusal) { try store.tap(teamID: ghana.id!) }
        #expect(throws: refusal) { try store.tap(named: "Ghana") }
        #expect(throws: refusal) { try store.add(name: "Atlantis", zone: "Ocean") }
        #expect(throws: refusal) { try store.delete(named: "Ghana") }
        #expect(throws: refusal) { try store.edit(named: "Ghana", newName: "Gahna", zone: nil, wins: nil) }
        #expect(throws: refusal) { try store.undoLast() }
        #expect(throws: refusal) { try PostgresTeamStore.reset(location: watcher, seed: Seed.bundled()) }
        #expect(try await database.integer("SELECT sum(wins) FROM team") == 0)
        #expect(try await database.integer("SELECT count(*) FROM team") == 32)
        #expect(try await database.integer("SELECT count(*) FROM history WHERE action = 'tap'") == 0, "not even the history was pruned")
    }

    @Test func aWatcherGrantedBeforeTheBoardsFirstOpeningIsToldWhatToGrant() async throws {
        let database = try await FreshDatabase.make()
        defer { Task { await database.drop() } }
        // The README's grants, made before there is any table: they cover none of the board's.
        let watcher = try await role(database, grants: watcherGrants)
        _ = try PostgresTeamStore(location: database.location, seed: Seed.bundled())
        let user = watcher.url.user
        let refusal = #expect(throws: WorldCupError.self) { try PostgresTeamStore(location: watcher, seed: Seed.bundled()) }
        let sentence = refusal?.description ?? ""
        #expect(sentence.hasPrefix("The user “\(user)” may not read the board's tables history, liveresults_change, "), "\(sentence)")
        #expect(sentence.hasSuffix(" in \(watcher.databaseAndServer): as the board's owner, run GRANT SELECT ON ALL TABLES IN SCHEMA public TO \(user) (a grant covers only the tables there when it was made)."), "\(sentence)")
        try await database.execute("GRANT SELECT ON ALL TABLES IN SCHEMA public TO \(user)")
        #expect(try PostgresTeamStore(location: watcher, seed: Seed.bundled()).readOnly == .role(user: user))
    }

    @Test func theOwnerMayWrite() async throws {
        let database = try await FreshDatabase.make()
        defer { Task { await database.drop() } }
        let store = try PostgresTeamStore(location: database.location, seed: Seed.bundled())
        #expect(store.readOnly == nil)
        #expect(try PostgresTeamStore.access(location: database.location) == nil)
    }

    @Test func aRoleThatMayTapButNotDeleteIsReadOnly() async throws {
        let database = try await FreshDatabase.make()
        defer { Task { await database.drop() } }
        _ = try PostgresTeamStore(location: database.location, seed: Seed.bundled())
        let tapper = try await role(database, grants: watcherGrants + ["GRANT INSERT, UPDATE ON team, history, liveresults_change TO {role}"])
        #expect(try PostgresTeamStore(location: tapper, seed: nil).readOnly == .role(user: tapper.url.user))
    }

    @Test func aSessionThatMayOnlyReadIsReadOnly() async throws {
        let database = try await FreshDatabase.make()
        defer { Task { await database.drop() } }
        _ = try PostgresTeamStore(location: database.location, seed: Seed.bundled())
        // Every privilege, but sessions that only read (as on a standby).
        let reader = try await role(database, grants: ["GRANT ALL ON ALL TABLES IN SCHEMA public TO {role}",
                                                       "GRANT ALL ON ALL SEQUENCES IN SCHEMA public TO {role}",
                                                       "ALTER ROLE {role} SET default_transaction_read_only = on"])
        let store = try PostgresTeamStore(location: reader, seed: nil)
        #expect(store.readOnly == .server)
        #expect(throws: ReadOnlyBoard.server.refusal) { try store.tap(named: "Ghana") }
    }

    @Test func readOnlyAskedWritesNothingForAUserWhoMayWrite() async throws {
        let database = try await FreshDatabase.make()
        defer { Task { await database.drop() } }
        _ = try PostgresTeamStore(location: database.location, seed: Seed.bundled())
        let store = try PostgresTeamStore(location: database.location, seed: Seed.bundled(), readOnly: true)
        #expect(store.readOnly == .asked)
        #expect(throws: ReadOnlyBoard.asked.refusal) { try store.tap(named: "Ghana") }
        #expect(throws: ReadOnlyBoard.asked.refusal) { try store.add(name: "Atlantis", zone: "Ocean") }
        #expect(throws: ReadOnlyBoard.asked.refusal) { try store.delete(named: "Ghana") }
        #expect(try await database.integer("SELECT sum(wins) FROM team") == 0)
        #expect(try await database.integer("SELECT count(*) FROM team") == 32)
    }

    @Test func aBoardNotSetUpYetIsRefusedToReadOnlySessionsAndLeftEmpty() async throws {
        let database = try await FreshDatabase.make()
        defer { Task { await database.drop() } }
        let shown = database.location.databaseAndServer
        #expect(throws: WorldCupError("The database \(shown) has no worldcup scoreboard yet, and a read-only board cannot set it up: open it once without --read-only.")) {
            try PostgresTeamStore(location: database.location, seed: Seed.bundled(), readOnly: true)
        }
        // PostgreSQL 15: only the database's owner may create in its public schema.
        let watcher = try await role(database, grants: ["GRANT USAGE ON SCHEMA public TO {role}"])
        #expect(throws: WorldCupError("The database \(watcher.databaseAndServer) has no worldcup scoreboard yet, and the user “\(watcher.url.user)” may not set it up: open it once as its owner.")) {
            try PostgresTeamStore(location: watcher, seed: Seed.bundled())
        }
        #expect(try await database.tables() == [])
    }
}
