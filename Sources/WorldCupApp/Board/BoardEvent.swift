import LiveResults
import TerminalUI
import WorldCup

/// What happens to the board: keys, the passing of time, changes of the result, and the
/// outcomes of the effects the board asked for.
enum BoardEvent {
    case key(Key)
    /// The screen has this size now.
    case resized(width: Int, height: Int)
    /// Time passed: flashes and messages may end.
    case tick
    /// A batch of changes of the result, already in the data; `selection` is the team the
    /// cursor was on before it.
    case batch(TableUpdate, selection: RecordID? = nil)
    /// The result was replaced wholesale; `selection` is the team the cursor was on.
    case reset(selection: RecordID?)
    /// Batches that came from another program were shown.
    case changedElsewhere
    /// Batches that came from other programs were shown: these changes, by their authors
    /// (`more`: and others before them, not read).
    case changedBy([HistoryEntry], more: Bool = false)
    /// A write the board asked for came back (`BoardEffect.writes`): the event of its outcome.
    indirect case finished(BoardEffect, BoardEvent)
    /// A tap was saved: the team around its win (after: as it is now), with its entry's id.
    case tapped(TeamChange)
    /// A team was added (the dialog's values were accepted): the team after, with its entry's id.
    case added(TeamChange)
    /// The dialog's values were refused: why, in one sentence.
    case addRefused(String)
    /// A team was deleted: the team as it was (before), with its entry's id.
    case deleted(TeamChange)
    /// The edit dialog's values were saved: the team before and after.
    case edited(TeamChange)
    /// The edit dialog's values were refused: why, in one sentence.
    case editRefused(String)
    /// A zone was renamed, moved or merged: the change, with its entry's id.
    case zoneChanged(TeamChange)
    /// The rename dialog's name is another zone's: nothing was changed; the board asks
    /// whether to merge.
    case zoneMergeAsked(ZoneMergeNeeded)
    /// The rename dialog's name was refused: why, in one sentence.
    case zoneRenameRefused(String)
    /// The change of `entry`, one of this board's, was taken back: the undo.
    case undid(entry: Int64, undo: TeamChange)
    /// A rule refused to take the change of `entry` back: why, in one sentence. The change
    /// is dropped from the stack.
    case undoRefused(entry: Int64, String)
    /// Taking a change back failed (a lost connection, a lock, a deadline): why, in one
    /// sentence. The change stays, to be asked again.
    case undoFailed(String)
    /// The undo `entry` was made again: the redo, as saved.
    case redid(entry: Int64, redo: TeamChange)
    /// A rule refused to make the undo `entry` again: why, in one sentence. It is dropped.
    case redoRefused(entry: Int64, String)
    /// Making an undo again failed: why, in one sentence. It stays, to be asked again.
    case redoFailed(String)
    /// The result now shows the filter's teams (every team without a filter, as at the start);
    /// `wanted` is the team the cursor should be on.
    case filtered(wanted: RecordID?)
    /// An effect failed: why, in one sentence.
    case failed(String)
    /// The connection to the board's server was lost, or is back.
    case connection(isLive: Bool)
    /// The server's changes reach the board only by reading at this interval (behind a
    /// pooler), or again as they are made (nil).
    case polling(Duration?)
}

/// What the board asks the runtime to do; the outcome comes back as an event.
enum BoardEffect: Equatable {
    /// One more win for a team.
    case tap(RecordID)
    /// Add a secret team.
    case add(name: String, zone: String)
    /// Delete a team.
    case delete(id: RecordID, name: String)
    /// Change a team's name, zone or wins (nil keeps it).
    case edit(id: RecordID, name: String?, zone: String?, wins: Int?)
    /// Rename a zone (`name`: as the board shows it) to `to`.
    case renameZone(id: Int64, name: String, to: String)
    /// Move a zone to the place of the zone `nextTo` (the one shown above or below it): above
    /// it from below, below it from above.
    case moveZone(id: Int64, name: String, nextTo: Int64)
    /// Merge a zone into another: its teams go there, and it goes.
    case mergeZone(id: Int64, name: String, into: Int64)
    /// Take back one of this board's changes, by its history entry (`entryID`).
    case undo(TeamChange)
    /// Make a change taken back again, by the undo's history entry (the undo's `entryID`).
    case redo(TeamChange)
    /// Filter the result by the filter's text (nil: no filter, every team), in memory, then
    /// put the cursor on `wanted` when it shows. "/" asks for it with the empty text, so that
    /// the names are in memory before the first character.
    case filter(NameFilter?, wanted: RecordID?)

    /// Whether the effect changes the teams (filtering only reads them).
    var writes: Bool {
        if case .filter = self { return false } else { return true }
    }
}
