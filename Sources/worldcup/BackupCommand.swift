import ArgumentParser
import Foundation
import WorldCup
import WorldCupPostgres
import WorldCupSQLite
import WorldCupStores

extension WorldCupCommand {
    /// `worldcup backup`: a consistent copy of the board in a new SQLite file.
    struct Backup: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Copy the board, as it is at one moment, to a new SQLite file.",
            discussion: """
                Unlike cp, which may copy a database without its latest taps (they wait in its \
                -wal file) or half of a change, backup copies every change committed before it \
                began and none after, while boards stay open and others tap: with SQLite's \
                backup API for a SQLite board, and for a PostgreSQL board by reading its teams \
                in one statement into a new SQLite file (their wins kept; --database FILE opens \
                it). The copy is written under a temporary name, checked (SQLite's quick check) \
                and only then put in place; an existing FILE is never replaced.
                """)

        @Option(name: .long, help: ArgumentHelp(databaseHelp, valueName: "path|url"))
        var database: String?

        @Argument(help: ArgumentHelp("The new SQLite file.", valueName: "file"))
        var file: String

        func run() throws {
            let copy = URL(fileURLWithPath: file)
            let count: Int
            switch try StoreLocation(database: database) {
            case .defaultFile(let url), .file(let url):
                guard FileManager.default.fileExists(atPath: url.path) else {
                    throw WorldCupError("There is no database \(WorldCupError.quotable(url.path)) to back up.")
                }
                count = try SQLiteTeamStore(databaseURL: url, seed: nil).backup(to: copy)
            case .server(let server):
                guard try PostgresTeamStore.check(location: server).version != nil else {
                    throw WorldCupError("The database \(server.databaseAndServer) holds no scoreboard to back up.")
                }
                count = try SQLiteTeamStore.backup(PostgresTeamStore(location: server, seed: nil).teams(), to: copy)
            }
            print("Backed up \(count == 1 ? "1 team" : "\(count) teams") to \(WorldCupError.quotable(file)).")
        }
    }
}
