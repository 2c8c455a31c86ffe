import ArgumentParser
import Foundation
import WorldCup

extension WorldCupCommand {
    /// `worldcup zones`: each zone, its position and how many teams it holds.
    struct Zones: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print the zones in the board's order: position, name and number of teams.",
            discussion: "A zone keeps its place when its last team goes (with no section on the board); worldcup zone rename and worldcup zone move change them.")

        @OptionGroup var store: StoreOptions

        @Flag(help: "Print a JSON array of zones (name, position from 1, teams; keys sorted).")
        var json = false

        func run() throws {
            let zones = try store.open(reading: true).zones()
            if json {
                FileHandle.standardOutput.write(try ZoneListing.json(zones))
                return
            }
            for listing in zones {
                // The board shows no section for an empty zone: said here, so the two agree.
                let empty = listing.teamCount == 0 ? " (no section on the board until a team joins it)" : ""
                print("\(listing.zone.position + 1)  \(escapedForTerminal(listing.zone.name))  \(listing.teamCount) \(listing.teamCount == 1 ? "team" : "teams")\(empty)")
            }
        }
    }

    /// `worldcup zone rename|move`: changes of one zone, each one history entry.
    struct ZoneCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "zone",
            abstract: "Rename or move a zone (one change in the history, undone by worldcup undo).",
            subcommands: [Rename.self, Move.self])
    }
}

extension WorldCupCommand.ZoneCommand {
    struct Rename: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Rename a zone: every team in it goes with it, in one change.",
            discussion: "Another case of its own name is a rename (africa to Africa). The name of another zone, ignoring case and Unicode normalisation, merges the two: the zone's teams join that zone and the zone goes, after a y/N question on a terminal; without a terminal it needs --merge. worldcup undo brings a merged zone back with its teams, while none of them has left since.")

        @OptionGroup var store: StoreOptions

        @Argument(help: "The zone's name (case ignored).")
        var name: String

        @Argument(help: ArgumentHelp("Its new name.", valueName: "new-name"))
        var newName: String

        @Flag(help: "When the new name is another zone's, merge the two without asking.")
        var merge = false

        func run() throws {
            let scoreboard = try store.openForChanges()
            let change: TeamChange
            do {
                change = try scoreboard.renameZone(named: name, to: newName)
            } catch let asked as ZoneMergeNeeded {
                let agreed = try merge ? true : confirm(asked)
                guard agreed else { throw WorldCupError("Nothing was changed.") }
                change = try scoreboard.mergeZone(zoneID: asked.zone.id ?? 0, into: asked.into.id ?? 0)
            }
            print(change.summary)
        }

        /// Asks on the terminal whether to merge; throws the merge's sentence when there is no terminal to ask on.
        private func confirm(_ asked: ZoneMergeNeeded) throws -> Bool {
            guard isatty(STDIN_FILENO) == 1 else { throw WorldCupError(asked.description) }
            FileHandle.standardError.write(Data("\(asked.question) [y/N] ".utf8))
            let answer = (readLine() ?? "").trimmingCharacters(in: .whitespaces).lowercased()
            return answer == "y" || answer == "yes"
        }
    }

    struct Move: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Move a zone to another position among the zones (1 first, as worldcup zones shows them).",
            discussion: "The zones between shift by one; the board's sections follow at once.")

        @OptionGroup var store: StoreOptions

        @Argument(help: "The zone's name (case ignored).")
        var name: String

        // Unconditional: `--to -1` is a number the rules refuse, not a missing value.
        @Option(parsing: .unconditional, help: ArgumentHelp("The position it takes, 1 first.", valueName: "position"))
        var to: Int

        func run() throws {
            print(try store.openForChanges().moveZone(named: name, to: to - 1).summary)
        }
    }
}
