import ArgumentParser
import Foundation
import WorldCup

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
                missing, or belongs to another program.
                """)

        @Option(name: .long, help: ArgumentHelp("The SQLite database file.", valueName: "path"))
        var database: String?

        func run() throws {
            let url = database.map { URL(fileURLWithPath: $0) } ?? DatabaseFile.defaultDatabaseURL()
            let found = try SQLiteTeamStore.check(databaseURL: url)
            let shown = WorldCupError.quotable(url.path)
            guard !found.isNew else {
                print("The file \(shown) is empty: worldcup makes a new database of it when it opens it.")
                return
            }
            let teams = found.teamCount.map { $0 == 1 ? "1 team" : "\($0) teams" } ?? "no teams yet"
            print("The database \(shown) is sound: it passed SQLite's quick check and holds \(teams).")
        }
    }
}
