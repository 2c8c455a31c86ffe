import ArgumentParser
import Foundation
import WorldCup
import WorldCupPostgres
import WorldCupSQLite

extension WorldCupCommand {
    /// `worldcup reset`: replaces the database with a freshly seeded one, after a y/N answer.
    struct Reset: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Replace the database with a freshly seeded one, losing every tap and secret team.",
            discussion: "Asks y/N first, after checking the old file in full and saying what it holds (or that it is damaged); without a terminal to ask on, it needs --yes. A sound file is reset in place in one transaction (open scoreboards show the seed at once, and the history is kept); a damaged file or one that is not a database is replaced whole. On PostgreSQL, it replaces every team with the seed's in one transaction (open scoreboards show the new board at once); a database holding other tables is refused.")

        @OptionGroup var store: StoreOptions

        @Flag(name: [.short, .long], help: "Reset without asking.")
        var yes = false

        func run() throws {
            try store.refuseChangesIfReadOnly()
            let location = try store.location()
            let teams = try store.seedTeams()
            switch location {
            case .defaultFile(let databaseURL), .file(let databaseURL):
                try location.checkFolder()
                try location.refuseIfMissing()
                if !yes {
                    try confirm(path: location.shown, condition: FileManager.default.fileExists(atPath: databaseURL.path) ? SQLiteTeamStore.condition(ofDatabaseAt: databaseURL) : nil)
                }
                let count = try SQLiteTeamStore.reset(databaseURL: databaseURL, seed: teams, author: Author.chosen(store.author))
                print("Reset \(databaseURL.path) to the \(count) teams of the seed.")
            case .server(let server):
                // A user that may only watch is told so before being asked anything.
                if let readOnly = try PostgresTeamStore.access(location: server) { throw readOnly.refusal }
                if !yes { try confirm(path: location.shown, condition: PostgresTeamStore.condition(of: server)) }
                let count = try PostgresTeamStore.reset(location: server, seed: teams, author: Author.chosen(store.author))
                print("Reset \(server) to the \(count) teams of the seed.")
            }
        }

        /// Asks on the terminal, after `condition` (what the file holds); throws unless the answer is yes.
        private func confirm(path: String, condition: @autoclosure () -> String?) throws {
            guard isatty(STDIN_FILENO) == 1 else {
                throw WorldCupError("Reset asks before it replaces \(path), and there is no terminal to ask on; pass --yes to reset without asking.")
            }
            if let condition = condition() { FileHandle.standardError.write(Data((condition + "\n").utf8)) }
            FileHandle.standardError.write(Data("Replace \(path) with a fresh copy of the seed, losing every tap and secret team? [y/N] ".utf8))
            let answer = (readLine() ?? "").trimmingCharacters(in: .whitespaces).lowercased()
            guard answer == "y" || answer == "yes" else { throw WorldCupError("Nothing was reset.") }
        }
    }
}
