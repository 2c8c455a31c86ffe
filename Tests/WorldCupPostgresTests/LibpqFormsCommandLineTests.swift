import Foundation
import PostgresSupport
import TestSupport
import Testing
import WorldCup
import WorldCupPostgres

/// libpq's other forms through the built worldcup: a socket's folder percent-encoded as the
/// URL's host, and a board in a schema of its own (`options=-c search_path=…`), which may
/// then live in the database `postgres`.
extension CommandLineTests {
    @Test func aPercentEncodedSocketFolderIsTheHost() async throws {
        let database = try await FreshDatabase.make()
        defer { Task { await database.drop() } }
        let url = database.location.url
        let folder = try #require(url.socketDirectory, "the test server listens on a Unix socket")
        let encoded = folder.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? folder
        let login = url.password.map { "\(url.user):\($0)" } ?? url.user
        let list = try worldcup(["list", "--database", "postgres://\(login)@\(encoded):\(url.port)/\(url.database)"])
        #expect(list.status == 0, "\(list.err)")
        #expect(list.out.contains("Brazil"))
    }

    @Test func aBoardInASchemaOfItsOwnMayLiveInPostgres() async throws {
        let database = try await FreshDatabase.make()
        defer { Task { await database.drop() } }
        var url = database.location.url
        url.database = "postgres"
        let maintenance = FreshDatabase(location: PostgresLocation(url), configuration: try TestServer.configuration(), drop: {})
        let schema = "wc_\(UUID().uuidString.prefix(8).lowercased())"
        defer { Task { try? await maintenance.execute("DROP SCHEMA IF EXISTS \(schema) CASCADE") } }
        let options = "options=-c%20search_path%3D\(schema)"
        let board = url.connectionString + (url.socketDirectory == nil ? "?" : "&") + options
        let list = try worldcup(["list", "--database", board])
        #expect(list.status == 0, "\(list.err)")
        #expect(list.out.contains("Brazil"))
        let tap = try worldcup(["tap", "Brazil", "--database", board])
        #expect(tap.status == 0, "\(tap.err)")
        let check = try worldcup(["check", "--database", board])
        #expect(check.status == 0, "\(check.err)")
        // The board's tables are in its schema, none in postgres's own.
        #expect(try await maintenance.integer("SELECT count(*) FROM pg_tables WHERE schemaname = '\(schema)' AND tablename IN ('team', 'worldcup_schema', 'history')") == 3)
        #expect(try await maintenance.integer("SELECT count(*) FROM pg_tables WHERE schemaname = 'public' AND tablename IN ('team', 'worldcup_schema')") == 0)
        // PGOPTIONS says the same; without a schema, postgres is still refused.
        let variable = try worldcup(["list", "--database", url.connectionString], environment: ["PGOPTIONS": "-c search_path=\(schema)"])
        #expect(variable.status == 0 && variable.out.contains("Brazil"), "\(variable.err)")
        let refused = try worldcup(["list", "--database", url.connectionString])
        #expect(failedInOneSentence(refused) && refused.err.contains("or give the board a schema of its own there"), "\(refused.err)")
    }
}
