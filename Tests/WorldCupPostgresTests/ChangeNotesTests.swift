import Foundation
import LiveResults
import PostgresSupport
import Testing
import WorldCup
import WorldCupPostgres

/// Who made a change reaches every board with the change: the history's new entry rides in
/// the change log's notification (`PostgresSchema.historyNote`), so a board names another's
/// tap, edit or zone change without reading the history.
@Suite struct ChangeNotesTests {
    /// Records each batch's notes.
    final class NotesRecorder: ResultsControllerDelegate, @unchecked Sendable { // Used from the test's task alone.
        var notes: [[String]] = []
        func controller(_ controller: ResultsController<Team>, didChangeContentWith batch: ChangeBatch, from origin: ChangeOrigin) {
            if origin == .elsewhere { notes.append(batch.notes) }
        }
        func controllerDidResetContent(_ controller: ResultsController<Team>) {
            notes.append(["reset"])
        }
    }

    @Test func anotherBoardsChangesArriveWithTheirEntries() async throws {
        let database = try await FreshDatabase.make()
        defer { Task { await database.drop() } }
        let fan = try PostgresTeamStore(location: database.location, seed: Seed.bundled(), author: "fan@laptop")
        let guest = try PostgresTeamStore(location: database.location, seed: nil, author: "guest@pc")
        let recorder = NotesRecorder()
        let controller = guest.makeController(fetchRequest: ResultsRequest(sortDescriptors: Team.boardOrder), sections: Team.boardSections,
                                              cacheName: nil, cacheDirectory: nil)
        controller.delegate = recorder
        try controller.performFetch()
        let ghana = try #require(try fan.team(named: "Ghana"))
        // The first change of a board the other did not know yet may be read from the log (its
        // sender is asked about meanwhile); the next ones come in their notifications.
        try fan.tap(teamID: ghana.id!)
        try await settle(controller) { recorder.notes.count == 1 }
        recorder.notes = []
        let tap = try fan.recordedTap(teamID: ghana.id!)
        let edit = try fan.edit(teamID: ghana.id!, name: "Ghana Stars", zone: nil, wins: nil)
        try await settle(controller) { recorder.notes.count == 2 }
        let named = recorder.notes.compactMap { $0.first.flatMap(HistoryRow.entries(inNote:)) }.flatMap { $0 }
        #expect(named.map(\.id) == [tap.entryID, edit.entryID], "\(recorder.notes)")
        #expect(named.map(\.by) == ["fan@laptop", "fan@laptop"])
        #expect(named.map(\.change.summary) == [tap.summary, edit.summary])
        withExtendedLifetime(recorder) {}
    }

    @Test func aNoteReadsBackAsTheHistoryHasIt() throws {
        let note = #"{"id": 7, "at": "2026-11-28T21:00:00Z", "author": "fan@laptop", "action": "tap", "teamID": 3, "teamName": "Ghana", "oldName": "Ghana", "oldZone": "Africa", "oldImage": "gh", "oldWins": 1, "newName": "Ghana", "newZone": "Africa", "newImage": "gh", "newWins": 2, "undid": null, "undoneBy": null, "reverts": null, "refused": false}"#
        let entries = try #require(HistoryRow.entries(inNote: note + "\n" + note.replacingOccurrences(of: #""id": 7"#, with: #""id": 8"#)))
        #expect(entries.map(\.id) == [7, 8])
        #expect(entries[0].change.summary == "Ghana +1 win.")
        #expect(HistoryRow.entries(inNote: "not json") == nil)
        #expect(HistoryRow.entries(inNote: #"{"id": 7}"#) == nil, "a line without the columns of an entry")
        #expect(HistoryRow.entries(inNote: note.replacingOccurrences(of: "2026-11-28T21:00:00Z", with: "yesterday")) == nil)
    }

    /// Processes the controller's changes until `done` holds (10 s at most).
    private func settle(_ controller: ResultsController<Team>, until done: () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(10)
        while !done(), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
            try controller.processPendingChanges()
        }
        #expect(done())
    }
}
