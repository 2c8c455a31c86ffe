@testable import WorldCupApp
import Foundation
import GRDB
import TerminalUI
import TestSupport
import Testing
import WorldCup
import WorldCupSQLite

/// Writes off the board's loop, on a file another connection holds locked (`BEGIN EXCLUSIVE`):
/// the board goes on, says what is being saved, and shows the outcome once the lock goes.
/// The screen's writes run on their own thread here, as in the app.
@Suite("ScoreboardScreen: writes off the loop")
struct PendingWriteTests {
    /// Another connection to the fixture's file, holding its write lock until `release()`.
    final class Lock {
        let queue: DatabaseQueue
        private var held = true

        init(_ fixture: ScreenFixture) throws {
            // A transaction left open across accesses, as a `sqlite3` shell's BEGIN EXCLUSIVE is.
            var configuration = Configuration()
            configuration.allowsUnsafeTransactions = true
            queue = try DatabaseQueue(path: fixture.databaseURL.path, configuration: configuration)
            try queue.inDatabase { try $0.execute(sql: "BEGIN EXCLUSIVE") }
        }

        func release() throws {
            guard held else { return }
            held = false
            try queue.inDatabase { try $0.execute(sql: "COMMIT") }
        }

        deinit { try? release() }
    }

    /// Presses a key that waits for the change being saved (`ScoreboardScreen.keyWait`), and
    /// lets that wait pass.
    func pressPastTheWait(_ key: Key, on fixture: ScreenFixture) {
        fixture.press(key)
        fixture.clock.now += ScoreboardScreen.keyWait
        fixture.screen.tick()
    }

    @Test("A tap on a locked file: the board scrolls and filters meanwhile, says the tap is being saved, and shows it once the lock goes")
    func tapWaitsForTheLock() throws {
        let fixture = try ScreenFixture(writesOffTheLoop: true)
        _ = fixture.render()
        let lock = try Lock(fixture)
        fixture.press(.enter)
        #expect(fixture.screen.isSaving, "the tap returned before the file let it write")
        var grid = fixture.render()
        #expect(lines(grid)[22] == " Saving Algeria…")
        #expect(row("Algeria", in: grid)?.line.contains("saving…  Wins: 1") == true, "the tap shows at once: \(lines(grid)[2])")
        // The board goes on: it scrolls and filters.
        fixture.press(.down)
        #expect(fixture.screen.selectedTeam?.teamName == "Cameroon")
        fixture.press(.end)
        #expect(fixture.screen.selectedTeam?.teamName == "Uruguay")
        fixture.type("/gha")
        grid = fixture.render()
        #expect(lines(grid)[0].hasSuffix("/gha: 1 match"), "\(lines(grid)[0])")
        fixture.press(.escape)
        fixture.press(.home)
        #expect(fixture.screen.selectedTeam?.teamName == "Algeria")
        // Another team's tap goes to the store behind it at once, without waiting.
        fixture.press(.down)
        fixture.press(.enter)
        #expect(fixture.screen.model.pendingWrites.count == 2)
        #expect(lines(fixture.render())[22] == " Saving Algeria and 1 other change…")
        try lock.release()
        fixture.screen.finishWork()
        #expect(!fixture.screen.isSaving)
        grid = fixture.render()
        #expect(lines(grid)[22] == " Cameroon: 1 win.")
        #expect(!lines(grid).contains { $0.contains("saving…") })
        #expect(try fixture.scoreboard.team(named: "Algeria")?.wins == 1)
        #expect(try fixture.scoreboard.team(named: "Cameroon")?.wins == 1)
    }

    @Test("A second tap of a team being saved queues: its row shows the sum at once; another change of it is refused; u and Ctrl-R wait for every change")
    func secondTapQueues() throws {
        let fixture = try ScreenFixture(writesOffTheLoop: true)
        _ = fixture.render()
        let lock = try Lock(fixture)
        fixture.press(.enter)
        fixture.press(.enter)
        #expect(fixture.screen.model.pendingWrites.map(\.effect) == [.tap(1), .tap(1)], "the second tap went without waiting")
        var grid = fixture.render()
        #expect(row("Algeria", in: grid)?.line.contains("saving…  Wins: 2") == true, "\(lines(grid)[2])")
        #expect(lines(grid)[22] == " Saving Algeria…")
        pressPastTheWait(.character("d"), on: fixture)
        pressPastTheWait(.character("y"), on: fixture)
        #expect(fixture.screen.status?.text == "Algeria's last change is still being saved: try again when it is.")
        pressPastTheWait(.character("u"), on: fixture)
        #expect(fixture.screen.status?.text == "Algeria's change is still being saved: undo and redo wait until it is.")
        #expect(fixture.screen.model.pendingWrites.map(\.effect) == [.tap(1), .tap(1)], "no delete was asked for")
        try lock.release()
        fixture.screen.finishWork()
        #expect(try fixture.scoreboard.team(named: "Algeria")?.wins == 2, "two taps; no delete")
        #expect(fixture.screen.status?.text == "Algeria: 2 wins.")
        grid = fixture.render()
        #expect(row("Algeria", in: grid)?.line.contains("Wins: 2") == true && !lines(grid).contains { $0.contains("saving…") }, "\(lines(grid)[2])")
        fixture.press(.character("u"))
        fixture.screen.finishWork()
        #expect(fixture.screen.status?.text == "Undid: Algeria +1 win.")
        #expect(try fixture.scoreboard.team(named: "Algeria")?.wins == 1, "each tap is taken back on its own")
    }

    @Test("Queued taps of a team that another program deletes meanwhile: one sentence says none of them counted")
    func queuedTapsThatFail() throws {
        let fixture = try ScreenFixture(writesOffTheLoop: true)
        _ = fixture.render()
        let lock = try Lock(fixture)
        fixture.screen.handle([.enter, .enter, .enter])
        #expect(fixture.screen.model.pendingWrites.count == 3)
        try lock.queue.inDatabase { try $0.execute(sql: "DELETE FROM team WHERE teamName = 'Algeria'") }
        try lock.release()
        fixture.screen.finishWork()
        let status = try #require(fixture.screen.status)
        #expect(status.isError && status.text.hasPrefix("None of Algeria's 3 taps counted: "), "\(status.text)")
        #expect(fixture.screen.model.tapRuns.isEmpty)
    }

    @Test("A run of taps some of which did not count says how many, and why, in one sentence")
    func tapRunSentences() {
        var run = TapRun(teamName: "Algeria", asked: 3, failed: 2, reason: "The server is away, so nothing was changed.")
        #expect(run.failureSentence == "2 of Algeria's 3 taps did not count: the server is away, so nothing was changed.")
        run.reason = "PostgreSQL refused: permission denied."
        #expect(run.failureSentence == "2 of Algeria's 3 taps did not count: PostgreSQL refused: permission denied.")
        run.asked = 1
        run.failed = 1
        #expect(run.failureSentence == "PostgreSQL refused: permission denied.", "one tap: its own sentence")
    }

    @Test("A burst of taps on one team counts each: each queues behind the one before")
    func burstOfTaps() throws {
        let fixture = try ScreenFixture(writesOffTheLoop: true)
        _ = fixture.render()
        fixture.screen.handle([.enter, .enter, .enter, .down])
        fixture.screen.finishWork()
        #expect(try fixture.scoreboard.team(named: "Algeria")?.wins == 3, "no tap refused while the one before was saved at once")
        #expect(fixture.screen.status?.text == "Algeria: 3 wins.")
        #expect(fixture.screen.selectedTeam?.teamName == "Cameroon", "the key after them too")
    }

    @Test("An add refused after its dialog was closed says why on the status line; closing it while it is saved says nothing false")
    func refusalAfterTheDialogClosed() throws {
        let fixture = try ScreenFixture(writesOffTheLoop: true)
        _ = fixture.render()
        let lock = try Lock(fixture)
        fixture.press(.character("+"))
        fixture.type("ghana")
        fixture.press(.enter)
        fixture.press(.escape)
        #expect(fixture.screen.dialog == nil)
        #expect(lines(fixture.render())[22] == " Saving ghana…", "not “No team added.”: it may yet be")
        try lock.release()
        fixture.screen.finishWork()
        #expect(fixture.screen.status?.isError == true)
        #expect(fixture.screen.status?.text.contains("Ghana") == true, "\(String(describing: fixture.screen.status))")
        #expect(!fixture.screen.isSaving)
        #expect(try fixture.scoreboard.teamCount() == 32)
    }
}
