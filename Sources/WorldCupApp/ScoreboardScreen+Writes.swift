import LiveResults
import WorldCup

/// Every write the board makes, and the event of each one's outcome: each returns the change
/// with the id of the history entry it made, so that `u` and Ctrl-R name that very entry.
/// (When they run, off the board's loop, is `ScoreboardScreen+Work`.)
extension ScoreboardScreen {
    /// Makes a tap, an add, a delete, an edit, a zone's rename, move or merge, an undo or a
    /// redo in the store; returns the event of its outcome. Throws what the store threw
    /// (`BoardEffect.outcome(of:)` reads it). Runs where the store's work runs, so it uses
    /// the store and nothing else of the screen.
    func write(_ effect: BoardEffect) throws -> BoardEvent {
        switch effect {
        case .tap(let id):
            return .tapped(try scoreboard.recordedTap(teamID: id))
        case let .add(name, zone):
            return .added(try scoreboard.recordedAdd(name: name, zone: zone))
        case let .delete(id, _):
            return .deleted(try scoreboard.recordedDelete(teamID: id))
        case let .edit(id, name, zone, wins):
            return .edited(try scoreboard.edit(teamID: id, name: name, zone: zone, wins: wins))
        case .undo(let change):
            return .undid(entry: change.entryID ?? -1, undo: try scoreboard.undo(change))
        case .redo(let undo):
            guard let entry = undo.entryID else { throw Refusal("That undo has no history entry, so it cannot be made again.") }
            return .redid(entry: entry, redo: try scoreboard.redo(entryID: entry))
        case let .renameZone(id, _, name):
            do {
                return .zoneChanged(try scoreboard.renameZone(zoneID: id, to: name))
            } catch let question as ZoneMergeNeeded {
                // Nothing was changed: the board asks whether to merge.
                return .zoneMergeAsked(question)
            }
        case let .moveZone(id, _, neighbour):
            // The zone shown beside it, where it is now in the zone table (empty zones between
            // them are not shown: it goes past them too).
            guard let position = try scoreboard.zones().first(where: { $0.zone.id == neighbour })?.zone.position else {
                throw WorldCupError("The zone beside it is gone (another program merged it): nothing moved.")
            }
            return .zoneChanged(try scoreboard.moveZone(zoneID: id, to: position))
        case let .mergeZone(id, _, into):
            return .zoneChanged(try scoreboard.mergeZone(zoneID: id, into: into))
        case .filter:
            preconditionFailure("not a write: \(effect)")
        }
    }
}

extension BoardEffect {
    /// The event for this write's `error`, in one sentence: a rule's refusal of an undo
    /// or a redo (a `Refusal`) drops the change from the board's stack; any other failure
    /// (a lost connection, a lock, a deadline) keeps it. An add's, an edit's and a zone
    /// rename's go to their dialog; a tap's, a delete's and a zone move's or merge's to the
    /// status line.
    func outcome(of error: any Error) -> BoardEvent {
        let message = "\(error)", refused = error is Refusal
        switch self {
        case .add: return .addRefused(message)
        case .edit: return .editRefused(message)
        case .renameZone: return .zoneRenameRefused(message)
        case .undo(let change):
            return refused ? .undoRefused(entry: change.entryID ?? -1, message) : .undoFailed(message)
        case .redo(let undo):
            return refused ? .redoRefused(entry: undo.entryID ?? -1, message) : .redoFailed(message)
        case .tap, .delete, .moveZone, .mergeZone, .filter: return .failed(message)
        }
    }
}
