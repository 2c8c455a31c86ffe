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
        #expect(OthersChanges.sentence([entry(1, by: "fan@laptop")]) == "fan@laptop: Brazil +1 win.")
        #expect(OthersChanges.sentence([entry(1, by: "fan@laptop"), entry(2, by: "fan@laptop")]) == "2 changes by fan@laptop.")
        let burst = [entry(1, by: "fan@laptop"), entry(2, by: "guest@pc"), entry(3, by: "fan@laptop"), entry(4, by: "guest@pc"), entry(5, by: "fan@laptop")]
        #expect(OthersChanges.sentence(burst) == "5 changes by fan@laptop and guest@pc.")
        #expect(OthersChanges.sentence(burst + [entry(6, by: "c@x")]) == "6 changes by fan@laptop, guest@pc and c@x.")
        #expect(OthersChanges.sentence(burst + [entry(6, by: "c@x"), entry(7, by: "d@y")]) == "7 changes by fan@laptop, guest@pc and 2 others.")
        #expect(OthersChanges.sentence([entry(1, by: "evil\u{1B}[2J")]).hasPrefix("evil\\u{1B}[2J:"), "an author is quoted safely")
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
        #expect(reader.event().isChangedElsewhereOnly, "what came before the board opened is not news")
        try board.tap(teamID: brazil.id!)
        #expect(reader.event().isChangedElsewhereOnly, "the board's own tap is not another program's")
        try fan.tap(teamID: brazil.id!)
        try board.tap(teamID: brazil.id!)
        try fan.edit(teamID: brazil.id!, name: nil, zone: nil, wins: 9)
        guard case .changedBy(let entries) = reader.event() else { Issue.record("no entries named"); return }
        #expect(entries.map(\.by) == ["fan@laptop", "fan@laptop"])
        #expect(OthersChanges.sentence(entries) == "2 changes by fan@laptop.")
    }
}

extension BoardEvent {
    /// Whether the event is the plain "Updated by another program." note.
    var isChangedElsewhereOnly: Bool {
        if case .changedElsewhere = self { true } else { false }
    }
}
