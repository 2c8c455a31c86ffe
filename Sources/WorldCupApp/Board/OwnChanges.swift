import WorldCup

/// This board's own changes, newest last: what `u` takes back and Ctrl-R makes again. Only
/// this board's: others' changes are theirs to take back.
struct OwnChanges {
    /// The most changes kept to take back; older ones are forgotten.
    static let limit = 200

    /// Changes made, oldest first.
    private(set) var done: [TeamChange] = []
    /// Changes taken back, most recently undone last (for redo).
    private(set) var undone: [TeamChange] = []

    /// A change this board made (not a redo): it can be taken back; what was undone before it
    /// can no longer be made again.
    mutating func record(_ change: TeamChange) {
        append(change)
        undone = []
    }

    /// The last change was taken back: it can be made again.
    mutating func didUndo() {
        guard let change = done.popLast() else { return }
        undone.append(change)
    }

    /// The last change could not be taken back (someone changed the team since): it is
    /// forgotten, so that the next `u` reaches the one before.
    mutating func didRefuseUndo() {
        _ = done.popLast()
    }

    /// The last change undone was made again, as `change` (an add's team has a new id).
    mutating func didRedo(as change: TeamChange) {
        _ = undone.popLast()
        append(change)
    }

    /// The last change undone could not be made again: it is forgotten.
    mutating func didRefuseRedo() {
        _ = undone.popLast()
    }

    private mutating func append(_ change: TeamChange) {
        done.append(change)
        if done.count > Self.limit { done.removeFirst(done.count - Self.limit) }
    }
}
