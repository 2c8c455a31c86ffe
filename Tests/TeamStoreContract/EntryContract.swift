import Foundation
import Testing
import WorldCup

/// Undo you can trust (issue 40), the same on both stores: every change knows its history
/// entry, an undo takes back that entry once, a redo keeps the undo's guard, and a refused
/// undo is passed over by the next `undoLast` and reached again by its id.
public enum EntryContract {
    public typealias Open = UndoContract.Open

    public static func all(_ fresh: () async throws -> Open) async throws {
        try everyWriteNamesItsEntry(await fresh())
        try anEntryIsTakenBackOnce(await fresh())
        try theUndoTakesBackItsOwnEntry(await fresh())
        try aRedoKeepsTheUndosGuard(await fresh())
        try aTapsRedoIsATap(await fresh())
        try aRedoneAddKeepsItsIDAndItsEdits(await fresh())
        try aRefusedUndoIsPassedOver(await fresh())
        try aNewChangeEndsTheRedos(await fresh())
    }

    static func team(_ store: any TeamStore, _ name: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> Team {
        try #require(try store.team(named: name), sourceLocation: sourceLocation)
    }

    /// The error `body` throws, if any.
    static func thrown(_ body: () throws -> Void) -> (any Error)? {
        do { try body() } catch { return error }
        return nil
    }

    /// Each write returns the id of the entry it made, and the entry is that change.
    public static func everyWriteNamesItsEntry(_ open: Open) throws {
        let fan = try open("fan@laptop")
        let ghana = try team(fan, "Ghana")
        let changes = [
            try fan.recordedTap(teamID: ghana.id!),
            try fan.recordedAdd(name: "Atlantis", zone: "Oceania"),
            try fan.edit(teamID: ghana.id!, name: nil, zone: "Asia", wins: nil),
            try fan.recordedDelete(teamID: team(fan, "Atlantis").id!),
            try fan.undoLast(),
            try fan.redoLast(),
        ]
        let history = try fan.history(limit: 10).reversed()
        #expect(changes.map(\.entryID) == history.map(\.id))
        #expect(changes.map(\.action) == [.tap, .add, .edit, .delete, .undo, .delete])
        #expect(history.map(\.change.action) == [.tap, .add, .edit, .delete, .undo, .delete])
        #expect(Array(history)[5].isRedo && Array(history)[5].reverts == changes[4].entryID)
    }

    /// Story 1: two undos of one tap (the CLI's, then a board's by the entry) take it back
    /// once; the second says who took it back, and others' taps stay.
    public static func anEntryIsTakenBackOnce(_ open: Open) throws {
        let a = try open("a@pc"), b = try open("b@pc")
        let korea = try team(a, "Korea")
        try b.tap(teamID: korea.id!)
        try b.tap(teamID: korea.id!)
        let tap = try a.recordedTap(teamID: korea.id!)
        #expect(try a.undoLast().undid == .tap)
        let second = thrown { try a.undo(tap) }
        #expect(second is Refusal)
        #expect(second.map { "\($0)" } == "Korea +1 win was already taken back by a@pc.")
        #expect(try team(a, "Korea").wins == korea.wins + 2, "b@pc's taps stay")
        #expect(try a.history(limit: 10).filter { $0.change.action == .undo }.count == 1)
    }

    /// Story 2: a board's undo of its rename takes back the rename's entry, not a later
    /// edit of the same team by the same author.
    public static func theUndoTakesBackItsOwnEntry(_ open: Open) throws {
        let board = try open("fan@laptop"), cli = try open("fan@laptop")
        let ghana = try team(board, "Ghana")
        let rename = try board.edit(teamID: ghana.id!, name: "Ghana FC", zone: nil, wins: nil)
        let move = try cli.edit(named: "Ghana FC", newName: nil, zone: "Asia", wins: nil)
        let undo = try board.undo(rename)
        #expect(undo.undoneChange?.summary == "Edited Ghana FC: name Ghana → Ghana FC.")
        #expect(try team(board, "Ghana").qualifyingZone == "Asia", "the move stays")
        let history = try board.history(limit: 5)
        #expect(history.first { $0.id == rename.entryID }?.undoneBy == undo.entryID)
        #expect(history.first { $0.id == move.entryID }?.undoneBy == nil)
        try cli.undoLast()
        #expect(try team(board, "Ghana") == ghana)
    }

    /// Story 3: a redo applies only while nothing it would overwrite changed since the undo.
    public static func aRedoKeepsTheUndosGuard(_ open: Open) throws {
        let fan = try open("fan@laptop"), guest = try open("guest@pc")
        let algeria = try team(fan, "Algeria")
        try fan.edit(teamID: algeria.id!, name: nil, zone: nil, wins: 5)
        let undo = try fan.undoLast()
        try guest.tap(teamID: algeria.id!)
        let refusal = thrown { try fan.redo(entryID: undo.entryID!) }
        #expect(refusal is Refusal)
        #expect(refusal.map { "\($0)" } == "Algeria has been tapped since the undo, so the edit was not made again.")
        #expect(try team(fan, "Algeria").wins == algeria.wins + 1)
        #expect(thrown { try fan.redoLast() }.map { "\($0)" } == "There is nothing of fan@laptop's to redo.", "a refused redo is passed over")
    }

    /// A tap's redo is a tap again: it commutes with others' taps.
    public static func aTapsRedoIsATap(_ open: Open) throws {
        let fan = try open("fan@laptop"), guest = try open("guest@pc")
        let korea = try team(fan, "Korea")
        try fan.tap(teamID: korea.id!)
        let undo = try fan.undoLast()
        #expect(undo.before?.wins == korea.wins + 1 && undo.after?.wins == korea.wins, "the undo records what it wrote")
        try guest.tap(teamID: korea.id!)
        let redo = try fan.redoLast()
        #expect(redo.action == .tap && redo.summary == "Korea +1 win.")
        #expect(redo.before?.wins == korea.wins + 1 && redo.after?.wins == korea.wins + 2)
        #expect(try team(fan, "Korea").wins == korea.wins + 2)
        #expect(try fan.undoLast().undid == .tap, "the redo can be taken back again")
        #expect(try team(fan, "Korea").wins == korea.wins + 1)
    }

    /// A redo of an add brings the team back with its id, so its later edits can be redone.
    public static func aRedoneAddKeepsItsIDAndItsEdits(_ open: Open) throws {
        let fan = try open("fan@laptop")
        let added = try fan.recordedAdd(name: "Atlantis", zone: "Oceania").team
        try fan.edit(teamID: added.id!, name: "Atlantida", zone: nil, wins: nil)
        let final = try fan.edit(teamID: added.id!, name: nil, zone: nil, wins: 3).after!
        for _ in 0..<3 { try fan.undoLast() }
        #expect(try fan.team(named: "Atlantis") == nil && fan.team(named: "Atlantida") == nil)
        #expect(try fan.redoLast().after?.id == added.id)
        try fan.redoLast()
        try fan.redoLast()
        #expect(try team(fan, "Atlantida") == final)
        #expect(thrown { try fan.redoLast() }.map { "\($0)" } == "There is nothing of fan@laptop's to redo.")
    }

    /// Story 4: a refused `undoLast` says how to reach the entry by id, and the next one goes
    /// on to the change before instead of repeating itself.
    public static func aRefusedUndoIsPassedOver(_ open: Open) throws {
        let fan = try open("fan@laptop"), guest = try open("guest@pc")
        let ghana = try team(fan, "Ghana")
        try fan.tap(teamID: ghana.id!)
        let delete = try fan.recordedDelete(teamID: team(fan, "Nigeria").id!)
        try guest.add(name: "NIGERIA", zone: "Elsewhere")
        let first = thrown { try fan.undoLast() }
        #expect(first is Refusal)
        #expect(first.map { "\($0)" } == "A team named “NIGERIA” exists again, so the deleted one was not brought back; the next worldcup undo goes on to the one before (worldcup undo \(delete.entryID!) tries this one again).")
        #expect(try fan.undoLast().undid == .tap, "the next undo reaches the change before")
        #expect(try team(fan, "Ghana").wins == ghana.wins)
        #expect(thrown { try fan.undo(entryID: delete.entryID!) }.map { "\($0)" } == "A team named “NIGERIA” exists again, so the deleted one was not brought back.")
        try guest.delete(named: "NIGERIA")
        #expect(try fan.undo(entryID: delete.entryID!).undid == .delete, "reached by its id once the name is free")
        #expect(try fan.history(limit: 10).first { $0.id == delete.entryID }?.refused == true)
    }

    /// A new change (not an undo or a redo) ends what can be redone, as in an editor.
    public static func aNewChangeEndsTheRedos(_ open: Open) throws {
        let fan = try open("fan@laptop")
        let korea = try team(fan, "Korea")
        try fan.tap(teamID: korea.id!)
        try fan.undoLast()
        try fan.tap(named: "Japan")
        #expect(thrown { try fan.redoLast() }.map { "\($0)" } == "There is nothing of fan@laptop's to redo.")
        let undo = try fan.undoLast()
        #expect(try fan.redoLast().entryID != nil, "an undo after it can be redone")
        #expect(try fan.history(limit: 1).first?.reverts == undo.entryID)
    }
}
