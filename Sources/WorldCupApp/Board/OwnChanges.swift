import WorldCup

/// This board's own changes, newest last, each with the id of the history entry that records
/// it: what `u` takes back and Ctrl-R makes again (by that entry). Only this board's: others' changes are theirs
/// to take back. An outcome names the entry it is about, so it is found wherever it stands
/// (a write's outcome may come back after later changes were recorded).
///
/// A rule's refusal drops a change (the next `u` reaches the one before); a failure (a lost
/// connection, a locked file, a deadline) keeps it, to be asked again. A new change empties
/// what can be redone, as in an editor; an undo and a redo do not.
struct OwnChanges {
    /// The most changes kept to take back; older ones are forgotten.
    static let limit = 200

    /// Changes made (new ones and redos), oldest first.
    private(set) var done: [TeamChange] = []
    /// This board's undos, most recent last (for redo).
    private(set) var undone: [TeamChange] = []

    /// A new change this board made (not an undo or a redo), recorded as `entry`: it can be
    /// taken back; what was undone before it can no longer be made again.
    mutating func record(_ change: TeamChange) {
        append(change)
        undone = []
    }

    /// The change of `entry` was taken back by `undo`: it can be made again.
    mutating func didUndo(_ entry: Int64, by undo: TeamChange) {
        done.removeAll { $0.entryID == entry }
        undone.append(undo)
    }

    /// A rule refused to take `entry` back (someone changed the team since, or it was taken
    /// back already): it is forgotten, so that the next `u` reaches the one before.
    mutating func didRefuseUndo(_ entry: Int64) {
        done.removeAll { $0.entryID == entry }
    }

    /// The undo `undo` (its entry) was made again by `redo`: the redo can be taken back.
    mutating func didRedo(_ undo: Int64, by redo: TeamChange) {
        undone.removeAll { $0.entryID == undo }
        append(redo)
    }

    /// A rule refused to make the undo `undo` again: it is forgotten.
    mutating func didRefuseRedo(_ undo: Int64) {
        undone.removeAll { $0.entryID == undo }
    }

    private mutating func append(_ change: TeamChange) {
        done.append(change)
        if done.count > Self.limit { done.removeFirst(done.count - Self.limit) }
    }
}
