import Foundation
import GRDB
import LiveResults

/// Where a scoreboard's teams are kept, and the changes a person makes to them: a SQLite file
/// (`SQLiteTeamStore`, the embedded default) or a PostgreSQL server shared by many machines
/// (`PostgresTeamStore`, in WorldCupPostgres).
///
/// Every change is one short transaction, acknowledged only after its commit; a tap adds one
/// win atomically, so taps from many processes all count.
public protocol TeamStore: AnyObject, Sendable {
    /// Where the teams are, as a person reads it: a file's path, or a server's host and
    /// database. Never a password.
    var location: String { get }

    /// For a store on a server that many machines share: the server and database, as the
    /// board's title shows it (never a password). Nil for a file of this machine.
    var server: String? { get }

    /// Why the store changes nothing, when it is a spectator's (asked for, or all the user
    /// may do); nil when taps, adds and deletes are allowed. Then they throw its `refusal`.
    var readOnly: ReadOnlyBoard? { get }

    /// The number of teams.
    func teamCount() throws -> Int

    /// Every team, in scoreboard order (`Team.boardOrder`): zone, then most wins, then name as
    /// people read it (case and accents folded), then the name's bytes.
    func teams() throws -> [Team]

    /// The team with this name (case ignored), if any.
    func team(named name: String) throws -> Team?

    /// Adds one win to a team, exactly once even when the connection fails on the way.
    /// Returns the change (the team around its win) with its history entry's id.
    @discardableResult
    func recordedTap(teamID: Int64) throws -> TeamChange

    /// Adds one win to the team with this name (case ignored). Returns the team as saved. By
    /// default a lookup and `tap(teamID:)`; a store across a network does both in one
    /// statement.
    @discardableResult
    func tap(named name: String) throws -> Team

    /// Adds a secret team with no wins. Refuses blank, overlong or duplicate names and zones.
    /// A zone spelt in another case or normalisation than one on the board takes its
    /// spelling (`Team.existingSpelling(ofZone:among:)`). Returns the change (the team as
    /// saved, after) with its history entry's id.
    @discardableResult
    func recordedAdd(name: String, zone: String) throws -> TeamChange

    /// Deletes a team. Returns the change (the team as it was, before) with its history
    /// entry's id.
    @discardableResult
    func recordedDelete(teamID: Int64) throws -> TeamChange

    /// Every zone, in the board's order (its position, 0 first), with how many teams it holds.
    func zones() throws -> [ZoneListing]

    /// The zone with this name (case and normalisation ignored), if any.
    func zone(named name: String) throws -> Zone?

    /// Renames a zone (one history entry, whatever its teams). A new spelling of its own name
    /// (another case) is a rename; a name of another zone (ignoring case and normalisation)
    /// changes nothing and throws `ZoneMergeNeeded`: the caller asks the person, then calls
    /// `mergeZone(zoneID:into:)`. Returns the change with its entry's id.
    @discardableResult
    func renameZone(zoneID: Int64, to name: String) throws -> TeamChange

    /// Moves a zone to `position` (0 first, below the zone count); the zones between shift by
    /// one. Returns the change with its entry's id.
    @discardableResult
    func moveZone(zoneID: Int64, to position: Int) throws -> TeamChange

    /// Merges a zone into `target`: its teams go there and it goes, in one transaction and
    /// one history entry, whose undo brings the zone back (id, name, position) with those
    /// teams. Returns the change with its entry's id.
    @discardableResult
    func mergeZone(zoneID: Int64, into target: Int64) throws -> TeamChange

    /// Makes `edit` of the zone `zoneID`: what `renameZone`, `moveZone` and `mergeZone` call
    /// (a store gives it by the rules both share, `RevertingStore`).
    @discardableResult
    func changeZone(_ zoneID: Int64, _ edit: ZoneEdit) throws -> TeamChange

    /// Who this store's changes are recorded under, in its history (`Author.chosen`).
    var author: String { get }

    /// Changes a team's name, zone or wins (nil keeps it), by the rules of an add
    /// (`TeamValidation.edited`; a name unique ignoring case and normalisation, a zone taking
    /// the board's spelling). Returns the change, the team before and after, with its
    /// history entry's id.
    @discardableResult
    func edit(teamID: Int64, name: String?, zone: String?, wins: Int?) throws -> TeamChange

    /// Takes back the change of the history entry `entryID` (this store's author's), by the
    /// rules of `TeamChange.undoPlan` (never over somebody else's later change), in one
    /// transaction that also marks the entry undone, and only while it is not: two undos of
    /// one entry, from any two programs at once, take it back once. Returns the undo, with
    /// its own entry's id. A rule's refusal throws a `Refusal` (and marks the entry refused,
    /// so `undoLast` passes over it); anything else that fails is a failure, after which
    /// asking again may work.
    @discardableResult
    func undo(entryID: Int64) throws -> TeamChange

    /// Makes the change the undo of entry `entryID` took back again, by the rules of
    /// `TeamChange.redoPlan` (only while nothing it would overwrite changed since the undo), in
    /// one transaction that marks the undo's entry undone by the redo, and only while it is
    /// not. Returns the redo (recorded with the action it makes again), with its entry's id.
    /// Refusals and failures as for `undo(entryID:)`.
    @discardableResult
    func redo(entryID: Int64) throws -> TeamChange

    /// Takes back the latest change by this store's author that is neither undone nor refused
    /// (the history's; a redo is a change); throws one sentence when there is none.
    @discardableResult
    func undoLast() throws -> TeamChange

    /// Makes again the latest undo by this store's author that is neither redone nor refused,
    /// and made after the author's latest new change (a new change empties what can be
    /// redone, as in an editor); throws one sentence when there is none.
    @discardableResult
    func redoLast() throws -> TeamChange

    /// Takes back (`.undo`) or makes again (`.redo`) the history entry `entryID`: what
    /// `undo(entryID:)` and `redo(entryID:)` call (a store gives it by the rules both share,
    /// `RevertingStore`).
    func revert(_ revert: Revert, entryID: Int64) throws -> TeamChange

    /// Takes back or makes again the author's latest entry: what `undoLast()` and
    /// `redoLast()` call.
    func revertLatest(_ revert: Revert) throws -> TeamChange

    /// The history's latest `limit` entries, newest first.
    func history(limit: Int) throws -> [HistoryEntry]

    /// The history's entries after `id`, oldest first, at most `limit`.
    func history(after id: Int64, limit: Int) throws -> [HistoryEntry]

    /// The history entries this store wrote.
    var ownEntries: OwnEntries { get }

    /// A results controller over the teams (not yet fetched): the scoreboard's live table,
    /// sectioned through the zone table (`sections`: `Team.boardSections`), rows in the
    /// request's order inside a zone. Its records have no zone name (`Team.qualifyingZone`
    /// is empty): a section's title is its zone's. A section cache (`cacheName`) is kept where
    /// the store supports one, and ignored elsewhere.
    func makeController(fetchRequest: ResultsRequest<Team>, sections: RelatedSections, cacheName: String?,
                        cacheDirectory: URL?) -> ResultsController<Team>

    /// The sentence to end a program with when `error` says the database itself is damaged
    /// (a program showing the board stops instead of going on); nil for any other error.
    func damage(in error: any Error) -> WorldCupError?

    /// Leaves the store's files tidy at the end of a long-lived program (the board), whose
    /// connections may outlive its last use by a moment as the process exits.
    func finish()
}

extension TeamStore {
    /// A store is on this machine unless it says otherwise.
    public var server: String? { nil }

    /// Nothing to tidy unless the store says otherwise.
    public func finish() {}

    /// Throws the read-only board's one sentence, when the store is one.
    public func refuseIfReadOnly() throws {
        if let readOnly { throw readOnly.refusal }
    }

    /// Adds one win to a team, exactly once even when the connection fails on the way.
    /// Returns the team as saved.
    @discardableResult
    public func tap(teamID: Int64) throws -> Team {
        try recordedTap(teamID: teamID).team
    }

    /// Adds a secret team with no wins (`recordedAdd`). Returns the team as saved.
    @discardableResult
    public func add(name: String, zone: String) throws -> Team {
        try recordedAdd(name: name, zone: zone).team
    }

    /// Deletes a team. Returns it as it was.
    @discardableResult
    public func delete(teamID: Int64) throws -> Team {
        try recordedDelete(teamID: teamID).team
    }

    @discardableResult
    public func renameZone(zoneID: Int64, to name: String) throws -> TeamChange { try changeZone(zoneID, .rename(to: name)) }

    @discardableResult
    public func moveZone(zoneID: Int64, to position: Int) throws -> TeamChange { try changeZone(zoneID, .move(to: position)) }

    @discardableResult
    public func mergeZone(zoneID: Int64, into target: Int64) throws -> TeamChange { try changeZone(zoneID, .merge(into: target)) }

    @discardableResult
    public func undo(entryID: Int64) throws -> TeamChange { try revert(.undo, entryID: entryID) }

    @discardableResult
    public func redo(entryID: Int64) throws -> TeamChange { try revert(.redo, entryID: entryID) }

    @discardableResult
    public func undoLast() throws -> TeamChange { try revertLatest(.undo) }

    @discardableResult
    public func redoLast() throws -> TeamChange { try revertLatest(.redo) }

    /// Takes `change` back by its history entry (`undo(entryID:)`).
    @discardableResult
    public func undo(_ change: TeamChange) throws -> TeamChange {
        guard let entryID = change.entryID else { throw Refusal("That change has no history entry, so it cannot be taken back.") }
        return try undo(entryID: entryID)
    }

    /// Adds one win to the team a person means by `name` (`team(meant:)`). Returns the team as saved.
    @discardableResult
    public func tap(named name: String) throws -> Team {
        try refuseIfReadOnly()
        return try tap(teamID: team(meant: name).id ?? 0)
    }

    /// Deletes the team a person means by `name` (`team(meant:)`). Returns the team as it was.
    @discardableResult
    public func delete(named name: String) throws -> Team {
        try refuseIfReadOnly()
        return try delete(teamID: team(meant: name).id ?? 0)
    }

    /// Edits the team a person means by `name` (`team(meant:)`). Returns the change.
    @discardableResult
    public func edit(named name: String, newName: String?, zone: String?, wins: Int?) throws -> TeamChange {
        try refuseIfReadOnly()
        return try edit(teamID: team(meant: name).id ?? 0, name: newName, zone: zone, wins: wins)
    }

    /// Renames the zone with this name (case ignored): `renameZone(zoneID:to:)`.
    @discardableResult
    public func renameZone(named name: String, to newName: String) throws -> TeamChange {
        try refuseIfReadOnly()
        return try renameZone(zoneID: try zoneID(named: name), to: newName)
    }

    /// Moves the zone with this name (case ignored) to `position` (0 first): `moveZone(zoneID:to:)`.
    @discardableResult
    public func moveZone(named name: String, to position: Int) throws -> TeamChange {
        try refuseIfReadOnly()
        return try moveZone(zoneID: try zoneID(named: name), to: position)
    }

    /// Merges the zone named `name` into the zone named `target` (case ignored): `mergeZone(zoneID:into:)`.
    @discardableResult
    public func mergeZone(named name: String, into target: String) throws -> TeamChange {
        try refuseIfReadOnly()
        return try mergeZone(zoneID: try zoneID(named: name), into: try zoneID(named: target))
    }

    /// The id of the zone with this name, or the sentence that there is none.
    private func zoneID(named name: String) throws -> Int64 {
        guard let id = try zone(named: name)?.id else {
            throw WorldCupError("There is no zone named “\(WorldCupError.quotable(TeamValidation.trimmed(name)))” (worldcup zones lists them).")
        }
        return id
    }

    /// The error for a name that matches no team; the name is quoted safely.
    public func noTeam(named name: String) -> WorldCupError {
        WorldCupError("There is no team named “\(WorldCupError.quotable(TeamValidation.trimmed(name)))”.")
    }
}
