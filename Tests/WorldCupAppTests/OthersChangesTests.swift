import Foundation
import TestSupport
import Testing
import WorldCup
@testable import WorldCupApp
import WorldCupSQLite

/// Other programs' changes named on the status line: one by its author and what it did, a
/// burst by how many and whose; this board's own never.
@Suite("Others' changes, named")
struct OthersChangesTests {
    func entry(_ id: Int64, by author: String, tapping name: String = "Brazil") -> HistoryEntry {
        let team = Team(id: 1, teamName: name, qualifyingZone: "South America", imageName: "", wins: 1)
        return HistoryEntry(id: id, at: Date(), by: author, change: TeamChange(action: .tap, before: nil, after: team))
    }

    @Test("One change: its author and its summary; a burst: how many, by whom")
    func sentences() {
        #expect(OthersNotice([entry(1, by: "fan@laptop")]).sentence == "fan@laptop: Brazil +1 win.")
        #expect(OthersNotice([entry(1, by: "fan@laptop"), entry(2, by: "fan@laptop")]).sentence == "2 changes by fan@laptop.")
        let burst = [entry(1, by: "fan@laptop"), entry(2, by: "guest@pc"), entry(3, by: "fan@laptop"), entry(4, by: "guest@pc"), entry(5, by: "fan@laptop")]
        #expect(OthersNotice(burst).sentence == "5 changes by fan@laptop and guest@pc.")
        #expect(OthersNotice(burst + [entry(6, by: "c@x")]).sentence == "6 changes by fan@laptop, guest@pc and c@x.")
        #expect(OthersNotice(burst + [entry(6, by: "c@x"), entry(7, by: "d@y")]).sentence == "7 changes by fan@laptop, guest@pc and 2 others.")
        #expect(OthersNotice([entry(1, by: "evil\u{1B}[2J")]).sentence.hasPrefix("evil\\u{1B}[2J:"), "an author is quoted safely")
    }

    @Test("The reader names what other stores wrote since it last looked, never its own store's")
    func reader() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let board = try SQLiteTeamStore(databaseURL: folder.database, seed: Seed.bundled(), author: "me@here")
        let fan = try SQLiteTeamStore(databaseURL: folder.database, seed: nil, author: "fan@laptop")
        let brazil = try #require(try board.team(named: "Brazil"))
        try fan.tap(teamID: brazil.id!)
        let reader = OthersChangesReader(store: board)
        reader.startFromNewest()
        #expect(reader.event()?.isChangedElsewhereOnly == true, "what came before the board opened is not news")
        try board.tap(teamID: brazil.id!)
        // Its own change come back through the change log is not named at all (not even as
        // "Updated by another program.", which the board said 4 s after its own zone rename).
        #expect(reader.event() == nil, "the board's own tap is not another program's")
        try board.renameZone(zoneID: try #require(board.zone(named: "South America")?.id), to: "CONMEBOL")
        #expect(reader.event() == nil, "nor its own zone rename")
        try fan.tap(teamID: brazil.id!)
        try board.tap(teamID: brazil.id!)
        try fan.edit(teamID: brazil.id!, name: nil, zone: nil, wins: 9)
        guard case .changedBy(let entries, _) = reader.event() else { Issue.record("no entries named"); return }
        #expect(entries.map(\.by) == ["fan@laptop", "fan@laptop"])
        #expect(OthersNotice(entries).sentence == "2 changes by fan@laptop.")
    }

    @Test("What this board did is said first: a notice from another program waits behind it, and a newer notice replaces an older")
    func queuedBehindTheBoardsOwnOutcome() {
        var board = PureBoard(ArrayData.sample)
        _ = board.model.update(.changedBy([entry(1, by: "fan@laptop")]), data: board.data, now: 0)
        #expect(board.model.status?.text == "fan@laptop: Brazil +1 win.")
        _ = board.model.update(.changedBy([entry(2, by: "guest@pc")]), data: board.data, now: 0.5)
        #expect(board.model.status?.text == "guest@pc: Brazil +1 win.", "a newer notice replaces an older")
        board.model.say("Undid: Ghana +1 win.", now: 1)
        _ = board.model.update(.changedBy([entry(3, by: "fan@laptop")]), data: board.data, now: 1)
        #expect(board.model.status?.text == "Undid: Ghana +1 win.", "the board's own outcome is not replaced in the same moment")
        _ = board.model.update(.tick, data: board.data, now: 1 + BoardModel.confirmationSeconds)
        #expect(board.model.status?.text == "fan@laptop: Brazil +1 win.", "then the notice")
    }

    @Test("A notice from another program behind an error is shown after it, never dropped; behind a question, after its answer's message")
    func queuedBehindAnError() {
        var board = PureBoard(ArrayData.sample)
        _ = board.model.update(.failed("That team no longer exists."), data: board.data, now: 0)
        _ = board.model.update(.changedBy([entry(1, by: "fan@laptop")]), data: board.data, now: 1)
        _ = board.model.update(.changedBy([entry(2, by: "guest@pc")]), data: board.data, now: 2)
        #expect(board.model.status?.text == "That team no longer exists.", "the error stays")
        _ = board.model.update(.tick, data: board.data, now: BoardModel.errorSeconds)
        #expect(board.model.status == BoardModel.StatusMessage(text: "2 changes by fan@laptop and guest@pc.", isError: false,
                                                              expiry: BoardModel.errorSeconds + BoardModel.changedElsewhereSeconds, isFromElsewhere: true))
        _ = board.model.update(.tick, data: board.data, now: 100)
        #expect(board.model.status == nil)

        // A key that clears the error shows the notice at once.
        _ = board.model.update(.failed("The server is away."), data: board.data, now: 100)
        _ = board.model.update(.changedElsewhere, data: board.data, now: 100)
        board.press(.down)
        #expect(board.model.status?.text == "Updated by another program.")

        // Behind a question: after the answer's own message fades.
        board.press(.character("d"))
        _ = board.model.update(.changedBy([entry(3, by: "fan@laptop")]), data: board.data, now: 0)
        board.press(.character("n"))
        #expect(board.model.status?.text == "Kept Ghana.")
        _ = board.model.update(.tick, data: board.data, now: BoardModel.confirmationSeconds)
        #expect(board.model.status?.text == "fan@laptop: Brazil +1 win.")
    }
}

extension BoardEvent {
    /// Whether the event is the plain "Updated by another program." note.
    var isChangedElsewhereOnly: Bool {
        if case .changedElsewhere = self { true } else { false }
    }
}
