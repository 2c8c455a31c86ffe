import Foundation
import LiveResultsPostgres
import PostgresNIO
import PostgresSupport
import TestSupport
import Testing
import ThrowawayPostgres
import WorldCup
import WorldCupPostgres
import WorldCupSQLite

/// Databases worldcup must refuse, in one sentence, creating and changing nothing.
@Suite(.serialized) struct BadInputTests {
    @Test func aDatabaseOfAnotherProgramIsLeftAlone() async throws {
        let database = try await FreshDatabase.make()
        defer { Task { await database.drop() } }
        try await database.execute("CREATE TABLE invoices (id int PRIMARY KEY)")
        #expect(throws: WorldCupError("The database \(database.location.databaseAndServer) holds other tables and no worldcup scoreboard, so it was left alone.")) {
            try PostgresTeamStore(location: database.location, seed: Seed.bundled())
        }
        #expect(throws: WorldCupError("The database \(database.location.databaseAndServer) holds other tables and no worldcup scoreboard, so it was left alone.")) {
            try PostgresTeamStore.reset(location: database.location, seed: Seed.bundled())
        }
        #expect(try await database.tables() == ["invoices"])
    }

    @Test func aNewerSchemaIsLeftAlone() async throws {
        let database = try await FreshDatabase.make()
        defer { Task { await database.drop() } }
        _ = try PostgresTeamStore(location: database.location, seed: Seed.bundled())
        try await database.execute("UPDATE worldcup_schema SET version = \(PostgresSchema.version + 1)")
        #expect(throws: WorldCupError("The database \(database.location.databaseAndServer) was made by a newer worldcup (schema version \(PostgresSchema.version + 1); this one knows up to \(PostgresSchema.version)), so it was left alone.")) {
            try PostgresTeamStore(location: database.location, seed: Seed.bundled())
        }
    }

    @Test func aMissingDatabase() async throws {
        let database = try await FreshDatabase.make()
        var url = database.location.url
        url.database = "no_such_database"
        let missing = PostgresLocation(url)
        await database.drop()
        let host = url.socketDirectory ?? url.host
        #expect(throws: WorldCupError("There is no database \(missing.databaseAndServer): create it (createdb -h \(host) -p \(url.port) -U \(url.user) no_such_database), or name another at the end of the URL.")) {
            try PostgresTeamStore(location: missing, seed: Seed.bundled())
        }
    }

    @Test func aRefusedConnection() throws {
        let port = try SilentListener.freePort()
        let location = try PostgresLocation(url: "postgres://app:secret@127.0.0.1:\(port)/cup", environment: [:])
        #expect(throws: WorldCupError("The PostgreSQL server at 127.0.0.1:\(port) is not running (connection refused).")) {
            try PostgresTeamStore(location: location, seed: Seed.bundled())
        }
    }

    @Test func aSocketWithNoServer() throws {
        let location = try PostgresLocation(url: "postgres:///cup?host=/tmp/no-such-folder", environment: ["PGUSER": "app"])
        #expect(throws: WorldCupError("There is no PostgreSQL server at /tmp/no-such-folder/.s.PGSQL.5432.")) {
            try PostgresTeamStore(location: location, seed: Seed.bundled())
        }
    }

    @Test func anUnknownHost() throws {
        let location = try PostgresLocation(url: "postgres://app:secret@no-such-host.invalid/cup", environment: [:])
        #expect(throws: WorldCupError("The PostgreSQL server's host “no-such-host.invalid” is not known.")) {
            try PostgresTeamStore(location: location, seed: Seed.bundled())
        }
    }

    @Test func aServerThatNeverAnswersTimesOut() throws {
        let listener = try SilentListener()
        defer { listener.close() }
        let location = try PostgresLocation(url: "postgres://app:secret@127.0.0.1:\(listener.port)/cup", environment: [:])
        let start = ContinuousClock.now
        #expect(throws: WorldCupError("The PostgreSQL server at 127.0.0.1:\(listener.port) is not answering.")) {
            try PostgresTeamStore(location: location, seed: Seed.bundled(), deadline: .seconds(1))
        }
        #expect(ContinuousClock.now - start < .seconds(5))
    }

    @Test func aWrongPasswordAndAMissingOne() throws {
        let server = try PasswordServer.shared.get()
        var url = server.url
        url.password = "wrong-password"
        let location = PostgresLocation(url)
        #expect(throws: WorldCupError("The PostgreSQL server at \(location.server) refused the password of the user “app”.")) {
            try PostgresTeamStore(location: location, seed: Seed.bundled())
        }
        url.password = nil
        #expect(throws: WorldCupError("The PostgreSQL server at \(location.server) asks the user “app” for a password, and none was given (in the URL, PGPASSWORD or the password file).")) {
            try PostgresTeamStore(location: PostgresLocation(url), seed: Seed.bundled())
        }
        // The right one works, and is never shown.
        let store = try PostgresTeamStore(location: PostgresLocation(server.url), seed: Seed.bundled())
        #expect(try store.teamCount() == 32)
        #expect(!store.location.contains(PasswordServer.password))
        #expect(store.location == "postgres://app:***@127.0.0.1:\(server.url.port)/cup")
    }
}

/// A throwaway cluster of its own listening on 127.0.0.1 (a free port), where the user `app`
/// must give a password (scram-sha-256), owning the database `cup`.
struct PasswordServer: Sendable {
    static let password = "pa55-w0rd"
    let url: PostgresURL

    /// Started once, at first use.
    static let shared: Result<PasswordServer, any Error> = Result {
        let folder = try TemporaryFolder()
        let hba = folder.url.appendingPathComponent("pg_hba.conf")
        try """
            local all all trust
            host all app 127.0.0.1/32 scram-sha-256
            host all all 127.0.0.1/32 trust
            """.write(to: hba, atomically: true, encoding: .utf8)
        chmod(folder.url.path, 0o755)
        chmod(hba.path, 0o644)
        let port = try SilentListener.freePort()
        let cluster = try ThrowawayPostgres.start(maxConnections: 20, settings: [
            ("listen_addresses", "'127.0.0.1'"), ("port", "\(port)"), ("hba_file", "'\(hba.path)'"),
        ])
        let admin = URL(fileURLWithPath: cluster.socketDirectory)
        var configuration = PostgresURL(user: "postgres", socketDirectory: admin.path, port: port).configuration
        configuration.options.connectTimeout = .seconds(10)
        try PasswordServer.setUp(configuration)
        return PasswordServer(url: PostgresURL(user: "app", password: password, host: "127.0.0.1", port: port, database: "cup"))
    }

    /// Makes the user `app` with its password and its database. (On an event loop: a task of
    /// Swift's shared pool could wait for a thread this one holds.)
    private static func setUp(_ configuration: PostgresConnection.Configuration) throws {
        try EventLoopTaskExecutor.wait {
            let connection = try await TestServer.connect(configuration)
            try await connection.query(PostgresQuery(unsafeSQL: "CREATE ROLE app LOGIN PASSWORD '\(password)'"), logger: TestServer.logger)
            try await connection.query("CREATE DATABASE cup OWNER app", logger: TestServer.logger)
            try await connection.close()
        }
    }
}
