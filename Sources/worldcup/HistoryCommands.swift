import ArgumentParser
import Foundation
import WorldCup

extension WorldCupCommand {
    struct Edit: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Change a team's name, zone or wins.",
            discussion: "The same rules as add: a name unique ignoring case and Unicode normalisation, at most 64 characters; a zone spelt in another case than one of the board takes the board's spelling. worldcup undo takes it back.")

        @OptionGroup var store: StoreOptions

        @OptionGroup var teamName: TeamNameArgument

        @Option(name: .customLong("name"), help: ArgumentHelp("The team's new name.", valueName: "new-name"))
        var newName: String?

        @Option(help: "The team's new qualifying zone (a new zone becomes a new section).")
        var zone: String?

        // Unconditional: `--wins -1` is a number the rules refuse, not a missing value.
        @Option(parsing: .unconditional, help: "The team's number of wins.")
        var wins: Int?

        func run() throws {
            guard newName != nil || zone != nil || wins != nil else {
                throw WorldCupError("Give --name, --zone or --wins: what the team should become.")
            }
            let change = try store.openForChanges().edit(named: teamName.name, newName: newName, zone: zone, wins: wins)
            print(change.summary)
        }
    }

    struct Undo: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Take back a change: your latest not yet undone, or the history entry ID (yours: --author, WORLDCUP_AUTHOR or $USER@hostname).",
            discussion: "A tap loses its win while the team has one; an add is taken back while nobody has tapped, renamed or moved the team since; a deleted team comes back as it was unless its name is taken; an edit's fields come back unless someone changed them since. Otherwise nothing changes, and one sentence says why; the next worldcup undo then goes on to the change before, and worldcup undo ID tries the refused one again. A change is taken back once, however many programs ask at the same moment.")

        @OptionGroup var store: StoreOptions

        @Argument(help: ArgumentHelp("The history entry to take back (worldcup history shows the ids).", valueName: "id"))
        var id: Int64?

        func run() throws {
            let undo = try store.revert(.undo, entryID: id)
            print("Undid: " + (undo.undoneChange ?? undo).summary)
        }
    }

    struct Redo: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Make a change taken back again: your latest undo not yet redone, or the undo's history entry ID.",
            discussion: "Only while nothing the change would overwrite has changed since the undo (a tap's redo is one more win, whoever tapped since; an add's brings the team back with its id). A new change of yours (not an undo or a redo) ends what can be redone, as in an editor.")

        @OptionGroup var store: StoreOptions

        @Argument(help: ArgumentHelp("The undo's history entry (worldcup history shows the ids).", valueName: "id"))
        var id: Int64?

        func run() throws {
            print("Redid: " + (try store.revert(.redo, entryID: id)).summary)
        }
    }

    struct History: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print who changed what, newest first.",
            discussion: "The store keeps the last \(HistoryEntry.retainedCount) changes (and every change of the last hour), written with each change, so the history never disagrees with the board.")

        @OptionGroup var store: StoreOptions

        @Flag(help: "Print a JSON array: id (what worldcup undo ID names), at (ISO 8601, UTC), by, action (tap, add, delete, edit, undo, renameZone, moveZone, mergeZone or reset; a redo has the action it makes again), team, and old and new values (name, zone, wins) where there are some; undid for an undo, reverts for an undo or a redo (the entry it took back), undone and undoneBy for a change taken back (an undo made again).")
        var json = false

        @Option(parsing: .unconditional, help: "How many changes to print, newest first.")
        var limit = 20

        func run() throws {
            guard limit > 0 else { throw WorldCupError("--limit takes a number of changes, 1 or more.") }
            let entries = try store.open(reading: true).history(limit: limit)
            if json {
                FileHandle.standardOutput.write(try HistoryEntry.json(entries))
                return
            }
            for entry in entries { print(entry.line) }
        }
    }
}

extension StoreOptions {
    /// Undoes or redoes (`revert`) the history entry `id`, or, without one, the author's
    /// latest that it may take.
    func revert(_ revert: Revert, entryID id: Int64?) throws -> TeamChange {
        let scoreboard = try openForChanges()
        return try id.map { try scoreboard.revert(revert, entryID: $0) } ?? scoreboard.revertLatest(revert)
    }
}
