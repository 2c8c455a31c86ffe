import ArgumentParser
import Foundation
import WorldCup
import WorldCupPostgres
import WorldCupSQLite
import WorldCupStores

extension WorldCupCommand {
    /// `worldcup check`: reads the whole database file and says in one sentence whether it is sound.
    struct Check: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check the whole database file and say in one sentence whether it is sound.",
            discussion: """
                Opening the scoreboard checks only what is cheap (the file's header, its size, the \
                tables), so that a million teams open as fast as 32; it reads the whole file \
                (SQLite's quick_check) only after a program using it ended without closing it. \
                This command reads the whole file now, without changing or creating anything. \
                The exit status is 0 when the file is sound (or empty), and 1 when it is damaged, \
                missing, or belongs to another program. On PostgreSQL (a postgres:// URL), the \
                server keeps its own files sound: check says whether the server can be reached \
                and is recent enough, whether the database is empty or a worldcup scoreboard of a \
                schema version this program knows, with its tables and change log, and how many \
                teams it holds, and over TCP the TLS version of the connection and whether the server's \
                certificate was verified; it creates and changes nothing there either.
                """)

        @Option(name: .long, help: ArgumentHelp(databaseHelp, valueName: "path|url"))
        var database: String?

        func run() throws {
            let url: URL
            switch try StoreLocation(database: database) {
            case .defaultFile(let file), .file(let file): url = file
            case .server(let server): return try check(server)
            }
            let found = try SQLiteTeamStore.check(databaseURL: url)
            let shown = WorldCupError.quotable(url.path)
            guard !found.isNew else {
                print("The file \(shown) is empty: worldcup makes a new database of it when it opens it.")
                return
            }
            let teams = found.teamCount.map { $0 == 1 ? "1 team" : "\($0) teams" } ?? "no teams yet"
            print("The database \(shown) is sound: it passed SQLite's quick check and holds \(teams).")
        }

        /// Checks a PostgreSQL database.
        private func check(_ server: PostgresLocation) throws {
            let found = try PostgresTeamStore.check(location: server)
            guard let version = found.version else {
                let plan = server.isServersOwnDatabase ? "it belongs to the server itself, so worldcup makes no scoreboard there" : "worldcup makes a scoreboard of it when it opens it"
                print("The database \(server.databaseAndServer) is empty: \(plan).")
                if let encryption = found.encryption { print(encryption.sentence(server: server.server)) }
                return
            }
            let teams = found.teamCount.map { $0 == 1 ? "1 team" : "\($0) teams" } ?? "no teams yet"
            print("The database \(server.databaseAndServer) is sound: schema version \(version), \(teams).")
            if let encryption = found.encryption { print(encryption.sentence(server: server.server)) }
        }
    }
}
