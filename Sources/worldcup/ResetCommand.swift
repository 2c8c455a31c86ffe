import ArgumentParser
import Foundation
import WorldCup

extension WorldCupCommand {
    /// `worldcup reset`: replaces the database with a freshly seeded one, after a y/N answer.
    struct Reset: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Replace the database with a freshly seeded one, losing every tap and secret team.",
            discussion: "Asks y/N first; without a terminal to ask on, it needs --yes. Works on a damaged file or one that is not a database too.")

        @OptionGroup var store: StoreOptions

        @Flag(name: [.short, .long], help: "Reset without asking.")
        var yes = false

        func run() throws {
            let databaseURL = store.databaseURL
            let teams = try store.seedTeams()
            if !yes {
                try confirm(path: WorldCupError.quotable(databaseURL.path))
            }
            let count = try TeamStore.reset(databaseURL: databaseURL, seed: teams)
            print("Reset \(databaseURL.path) to the \(count) teams of the seed.")
        }

        /// Asks on the terminal; throws unless the answer is yes.
        private func confirm(path: String) throws {
            guard isatty(STDIN_FILENO) == 1 else {
                throw WorldCupError("Reset asks before it replaces \(path), and there is no terminal to ask on; pass --yes to reset without asking.")
            }
            FileHandle.standardError.write(Data("Replace \(path) with a fresh copy of the seed, losing every tap and secret team? [y/N] ".utf8))
            let answer = (readLine() ?? "").trimmingCharacters(in: .whitespaces).lowercased()
            guard answer == "y" || answer == "yes" else { throw WorldCupError("Nothing was reset.") }
        }
    }
}
