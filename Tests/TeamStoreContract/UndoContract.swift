import Foundation
import Testing
import WorldCup

/// The undo, edit and history rules every team store keeps (README, "Undo"), checked the same
/// way on SQLite and on PostgreSQL. Each check is given `open`, which opens the same seeded
/// board (the sample's 32 teams) for an author: two authors are two people at two boards.
public enum UndoContract {
    public typealias Open = (_ author: String) throws -> any TeamStore

    /// Every check, in turn, each on a board of its own (`fresh` makes one and returns its `open`).
    public static func all(_ fresh: () async throws -> Open) async throws {
        try tapThenUndo(await fresh())
        try undoingATapNeedsAWin(await fresh())
        try addThenUndo(await fresh())
        try deleteThenUndo(await fresh())
        try editThenUndo(await fresh())
        try undoIntoARespelledZone(await fresh())
        try editRules(await fresh())
        try historyNamesAuthorsNewestFirst(await fresh())
        try await EntryContract.all(fresh)
        try await ZoneContract.all(fresh)
    }

    static func team(_ store: any TeamStore, _ name: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> Team {
        try #require(try store.team(named: name), sourceLocation: sourceLocation)
    }

    static func refusal(_ body: () throws -> Void) -> String? {
        do { try body() } catch { return "\(error)" }
        return nil
    }

    /// A tap taken back is one win off, even after someone else's tap (a decrement commutes).
    public static func tapThenUndo(_ open: Open) throws {
        let fan = try open("fan@laptop"), guest = try open("guest@pc")
        let brazil = try team(fan, "Brazil")
        let tap = try fan.recordedTap(teamID: brazil.id!)
        try guest.tap(teamID: brazil.id!)
        let undo = try fan.undo(tap)
        #expect(undo.action == .undo && undo.undid == .tap)
        #expect(try team(fan, "Brazil").wins == brazil.wins + 1, "the guest's tap stays")
        // The CLI's undo: the latest of fan's changes not undone is none now.
        #expect(refusal { try fan.undoLast() } == "There is nothing of fan@laptop's to undo.")
        // The guest's own tap is the guest's to take back.
        try guest.undoLast()
        #expect(try team(fan, "Brazil").wins == brazil.wins)
    }

    /// A tap of a team that has no win left (set to 0 since) is refused, in one sentence.
    public static func undoingATapNeedsAWin(_ open: Open) throws {
        let fan = try open("fan@laptop"), guest = try open("guest@pc")
        let ghana = try team(fan, "Ghana")
        let tap = try fan.recordedTap(teamID: ghana.id!)
        try guest.edit(teamID: ghana.id!, name: nil, zone: nil, wins: 0)
        #expect(refusal { try fan.undo(tap) } == "Ghana has no win left to take back.")
        try guest.delete(teamID: ghana.id!)
        #expect(refusal { try fan.undo(tap) } == "Ghana no longer exists, so its win cannot be taken back.")
        #expect(refusal { try fan.undoLast() } == "There is nothing of fan@laptop's to undo.", "a refused undo is passed over")
    }

    /// An add taken back removes the team; not once others have tapped it.
    public static func addThenUndo(_ open: Open) throws {
        let fan = try open("fan@laptop"), guest = try open("guest@pc")
        let added = try fan.add(name: "Atlantis", zone: "Oceania")
        let undo = try fan.undoLast()
        #expect(undo.undid == .add)
        #expect(try fan.team(named: "Atlantis") == nil)
        #expect(try fan.teamCount() == 32)
        let again = try fan.recordedAdd(name: "Atlantis", zone: "Oceania")
        #expect(again.team.id != added.id)
        try guest.tap(teamID: again.team.id!)
        #expect(refusal { try fan.undoLast() } == "Atlantis has changed since it was added (1 win now), so it was kept: delete it with d if it should go; the next worldcup undo goes on to the one before (worldcup undo \(again.entryID!) tries this one again).")
        #expect(try fan.team(named: "Atlantis")?.wins == 1)
    }

    /// A delete taken back brings the team back as it was, with its id; not when its name
    /// was taken since.
    public static func deleteThenUndo(_ open: Open) throws {
        let fan = try open("fan@laptop"), guest = try open("guest@pc")
        let ghana = try fan.edit(teamID: try team(fan, "Ghana").id!, name: nil, zone: nil, wins: 4).after!
        try fan.delete(teamID: ghana.id!)
        #expect(try fan.undoLast().undid == .delete)
        #expect(try team(fan, "Ghana") == ghana, "name, zone, wins and id as they were")
        let delete = try fan.recordedDelete(teamID: ghana.id!)
        try guest.add(name: "GHANA", zone: "Elsewhere")
        #expect(refusal { try fan.undo(delete) } == "A team named “GHANA” exists again, so the deleted one was not brought back.")
        #expect(try team(fan, "ghana").qualifyingZone == "Elsewhere")
    }

    /// An edit taken back restores the fields it changed; not a field someone changed since;
    /// others' taps since are kept when the edit did not set the wins.
    public static func editThenUndo(_ open: Open) throws {
        let fan = try open("fan@laptop"), guest = try open("guest@pc")
        let ghana = try team(fan, "Ghana")
        let edit = try fan.edit(teamID: ghana.id!, name: "Gahna", zone: "Asia", wins: nil)
        #expect(edit.after?.qualifyingZone == "Asia", "the board's spelling of an existing zone")
        try guest.tap(teamID: ghana.id!)
        let undo = try fan.undo(edit)
        #expect(undo.after?.teamName == "Ghana")
        var expected = ghana
        expected.wins += 1
        #expect(try team(fan, "Ghana") == expected)
        // A rename by someone else since: refused, nothing changed.
        let second = try fan.edit(teamID: ghana.id!, name: "Gahna", zone: nil, wins: nil)
        try guest.edit(teamID: ghana.id!, name: "Ghana FC", zone: nil, wins: nil)
        #expect(refusal { try fan.undo(second) } == "Ghana FC has been renamed since the edit, so the edit was not taken back.")
        #expect(try fan.team(named: "Ghana FC") != nil)
    }

    /// An edit and a delete taken back into a zone someone respelt since (Africa → AFRICA):
    /// the team goes to the zone as it is spelt now, and the undo's entry records the row as
    /// written, so that the history replays true.
    public static func undoIntoARespelledZone(_ open: Open) throws {
        let fan = try open("fan@laptop"), guest = try open("guest@pc")
        let ghana = try team(fan, "Ghana"), nigeria = try team(fan, "Nigeria")
        let edit = try fan.edit(teamID: ghana.id!, name: nil, zone: "Asia", wins: nil)
        let delete = try fan.recordedDelete(teamID: nigeria.id!)
        let africa = try #require(try guest.zone(named: "Africa"))
        try guest.renameZone(zoneID: africa.id!, to: "AFRICA")
        for (undone, name) in [(delete, "Nigeria"), (edit, "Ghana")] {
            let undo = try fan.undo(undone)
            #expect(try team(fan, name).qualifyingZone == "AFRICA")
            #expect(undo.after?.qualifyingZone == "AFRICA", "\(name): the undo's change is the row as written")
            let entry = try #require(try fan.history(limit: 1).first)
            #expect(entry.change.after?.qualifyingZone == "AFRICA", "\(name): the history records the row as written")
        }
    }

    /// An edit keeps the add's rules: names unique ignoring case and normalisation, the
    /// sort key rewritten, and a change that changes nothing refused.
    public static func editRules(_ open: Open) throws {
        let fan = try open("fan@laptop")
        let ghana = try team(fan, "Ghana")
        #expect(refusal { try fan.edit(teamID: ghana.id!, name: "  brazil ", zone: nil, wins: nil) } == "A team named “Brazil” already exists.")
        #expect(refusal { try fan.edit(teamID: ghana.id!, name: "Ghana", zone: nil, wins: nil) } == "Ghana already has that name, zone and wins, so nothing was changed.")
        #expect(refusal { try fan.edit(teamID: ghana.id!, name: "", zone: nil, wins: nil) } == "The team name is empty.")
        #expect(refusal { try fan.edit(teamID: ghana.id!, name: nil, zone: "A\u{1B}[2J", wins: nil) } == "The qualifying zone contains control characters.")
        #expect(refusal { try fan.edit(teamID: ghana.id!, name: nil, zone: nil, wins: -1) } == "The wins must be a whole number from 0 to 1000000000.")
        // A case-only rename of the team itself is allowed; the board's order follows the new name.
        try fan.edit(teamID: ghana.id!, name: "Égypte", zone: nil, wins: nil)
        let africa = try fan.teams().filter { $0.qualifyingZone == "Africa" && $0.wins == 0 }.map(\.teamName)
        #expect(africa == africa.sorted { Team.nameSortKey($0) < Team.nameSortKey($1) })
        #expect(africa.contains("Égypte"))
        try fan.edit(teamID: ghana.id!, name: "égypte", zone: nil, wins: nil)
        #expect(try team(fan, "Égypte").teamName == "égypte")
        #expect(refusal { try fan.edit(teamID: 999_999, name: "X", zone: nil, wins: nil) } == "That team no longer exists.")
        // A zone typed in another case joins the board's spelling; typed as the team has it, nothing changes.
        #expect(try fan.edit(teamID: ghana.id!, name: nil, zone: " EUROPE ", wins: nil).after?.qualifyingZone == "Europe")
        #expect(refusal { try fan.edit(teamID: ghana.id!, name: nil, zone: "europe", wins: nil) } == "égypte already has that name, zone and wins, so nothing was changed.")
    }

    /// The history: every change with its author, newest first, undone changes marked.
    public static func historyNamesAuthorsNewestFirst(_ open: Open) throws {
        let fan = try open("fan@laptop"), guest = try open("guest@pc")
        let brazil = try team(fan, "Brazil")
        try fan.tap(teamID: brazil.id!)
        try guest.add(name: "Atlantis", zone: "Oceania")
        try fan.edit(teamID: brazil.id!, name: nil, zone: nil, wins: 7)
        try fan.undoLast()
        let history = try guest.history(limit: 10)
        #expect(history.map(\.by) == ["fan@laptop", "fan@laptop", "guest@pc", "fan@laptop"])
        #expect(history.map(\.change.action) == [.undo, .edit, .add, .tap])
        #expect(history.map(\.change.teamName) == ["Brazil", "Brazil", "Atlantis", "Brazil"])
        #expect(history[1].undoneBy == history[0].id)
        #expect(history[1].change.before?.wins == brazil.wins + 1 && history[1].change.after?.wins == 7)
        #expect(history.map(\.id) == history.map(\.id).sorted(by: >))
        #expect(history[0].reverts == history[1].id, "an undo names the entry it took back")
        #expect(history[3].change.before?.wins == brazil.wins && history[3].change.after?.wins == brazil.wins + 1, "a tap records both sides")
        #expect(abs(history[0].at.timeIntervalSinceNow) < 600)
        #expect(try guest.history(limit: 2).count == 2)
        let json = try JSONSerialization.jsonObject(with: HistoryEntry.json(history)) as! [[String: Any]]
        #expect(json[1]["action"] as? String == "edit")
        #expect(json[1]["id"] as? Int64 == history[1].id)
        #expect(json[0]["reverts"] as? Int64 == history[1].id)
        #expect((json[1]["old"] as? [String: Any])?["wins"] as? Int == brazil.wins + 1)
        #expect((json[1]["at"] as? String)?.hasSuffix("Z") == true)
    }
}
