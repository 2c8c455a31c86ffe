import Foundation
import GRDB
import LiveResults
import LiveResultsSQLite
import TestSupport
import Testing
import WorldCup
import WorldCupSQLite

/// `--read-only` on a SQLite file: its connections cannot write, the store refuses every
/// change in one sentence, nothing is created, and the board still follows other programs.
@Suite struct ReadOnlyFileTests {
    @Test func aReadOnlyStoreCannotWriteAndRefusesEveryChange() throws {
        let folder = try TemporaryFolder(prefix: "worldcup-read-only")
        defer { folder.remove() }
        do { _ = try seededScoreboard(folder) }
        let store = try SQLiteTeamStore(readOnlyDatabaseURL: folder.database)
        #expect(store.readOnly == .asked)
        #expect(try store.teamCount() == 32)
        let refusal = ReadOnlyBoard.asked.refusal
        #expect(throws: refusal) { try store.tap(named: "Ghana") }
        #expect(throws: refusal) { try store.add(name: "Atlantis", zone: "Ocean") }
        #expect(throws: refusal) { try store.delete(named: "Ghana") }
        // Not only refused: SQLite itself would not let its connections write.
        #expect(throws: DatabaseError.self) {
            try store.database.write { try $0.execute(sql: "UPDATE team SET wins = 7") }
        }
        #expect(try store.teams().allSatisfy { $0.wins == 0 })
    }

    @Test func aReadOnlyBoardFollowsAnotherWritersTaps() throws {
        let folder = try TemporaryFolder(prefix: "worldcup-read-only")
        defer { folder.remove() }
        let writer = try seededScoreboard(folder)
        let watcher = try SQLiteTeamStore(readOnlyDatabaseURL: folder.database)
        let controller = watcher.makeController(fetchRequest: ResultsRequest(sortDescriptors: Team.boardOrder), sections: Team.boardSections,
                                                cacheName: nil, cacheDirectory: nil)
        let delegate = Follower()
        controller.delegate = delegate
        try controller.performFetch()
        try writer.tap(named: "Ghana")
        let deadline = Date().addingTimeInterval(5)
        var ghana: Team?
        while Date() < deadline {
            try controller.processPendingChanges()
            ghana = try controller.fetchedObjects.first { $0.teamName == "Ghana" }
            if ghana?.wins == 1 { break }
            Thread.sleep(forTimeInterval: 0.02)
        }
        #expect(ghana?.wins == 1, "the read-only board saw the other program's tap")
    }

    @Test func nothingToWatchIsRefusedAndNothingIsCreated() throws {
        let folder = try TemporaryFolder(prefix: "worldcup-read-only")
        defer { folder.remove() }
        let shown = folder.database.path
        #expect(throws: WorldCupError("There is no database \(shown) to watch: a read-only board opens only a board that exists.")) {
            try SQLiteTeamStore(readOnlyDatabaseURL: folder.database)
        }
        #expect(folder.snapshot().isEmpty)
        FileManager.default.createFile(atPath: shown, contents: Data())
        #expect(throws: WorldCupError("The database \(shown) is empty, and a read-only board cannot set it up: open it once without --read-only.")) {
            try SQLiteTeamStore(readOnlyDatabaseURL: folder.database)
        }
        #expect(folder.snapshot() == ["/WorldCup.sqlite": Data()])
    }
}

/// A delegate that only makes the controller follow changes.
private final class Follower: ResultsControllerDelegate {
    typealias Record = Team
    func controllerDidResetContent(_ controller: ResultsController<Team>) {}
}

@Suite struct ReadOnlyVariableTests {
    @Test func worldcupReadOnlyAsksForReadOnlyBoardsUnlessEmptyOrOff() {
        for value in ["1", "yes", "true", " on "] { #expect(ReadOnlyBoard.isAsked(environment: ["WORLDCUP_READ_ONLY": value]), "\(value)") }
        for value in ["", "0", "false", "no", "off", "OFF"] { #expect(!ReadOnlyBoard.isAsked(environment: ["WORLDCUP_READ_ONLY": value]), "\(value)") }
        #expect(!ReadOnlyBoard.isAsked(environment: [:]))
    }
}
