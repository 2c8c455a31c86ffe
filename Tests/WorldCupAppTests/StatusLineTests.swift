@testable import WorldCupApp
import Foundation
import TerminalUI
import TestSupport
import Testing
import WorldCup
import WorldCupSQLite

/// The status line, 80×24: line 22.
@Suite("ScoreboardScreen: the status line fades")
struct StatusLineTests {
    @Test("A confirmation fades after a few seconds, and the loop is told when")
    func fadesWithTime() throws {
        let fixture = try ScreenFixture()
        _ = fixture.render()
        #expect(fixture.screen.nextDeadline == nil)
        fixture.press(.enter)
        #expect(lines(fixture.render())[22] == " Algeria: 1 win.")
        let fade = fixture.clock.now + BoardModel.confirmationSeconds
        // The flash ends first (half a second), then the message.
        fixture.clock.now += 1
        fixture.screen.tick()
        #expect(fixture.screen.nextDeadline == fade)
        fixture.clock.now = fade - 0.01
        fixture.screen.tick()
        #expect(lines(fixture.render())[22] == " Algeria: 1 win.")
        fixture.clock.now = fade
        fixture.screen.tick()
        #expect(fixture.screen.status == nil)
        #expect(lines(fixture.render())[22] == "")
        #expect(fixture.screen.nextDeadline == nil)
    }

    @Test("The next key clears a message; the key's own message replaces it")
    func nextKeyClears() throws {
        let fixture = try ScreenFixture()
        _ = fixture.render()
        fixture.press(.enter)
        fixture.press(.down)
        #expect(fixture.screen.status == nil)
        #expect(lines(fixture.render())[22] == "")
        fixture.press(.enter)
        #expect(fixture.screen.status?.text == "Cameroon: 1 win.")
    }

    @Test("A question stays until it is answered, however long that takes")
    func questionWaits() throws {
        let fixture = try ScreenFixture()
        _ = fixture.render()
        fixture.press(.character("d"))
        fixture.clock.now += 3600
        fixture.screen.tick()
        #expect(lines(fixture.render())[22] == " Delete Algeria? y/N")
        fixture.press(.character("n"))
        #expect(fixture.screen.status?.text == "Kept Algeria.")
    }

    @Test("Changes from another program say briefly who made them; the screen's own changes do not")
    func changedElsewhere() throws {
        let fixture = try ScreenFixture()
        _ = fixture.render()
        // Nothing waiting: nothing to say.
        fixture.screen.processChanges()
        #expect(fixture.screen.status == nil)
        // Another writer on the same file.
        let other = try SQLiteTeamStore(databaseURL: fixture.databaseURL, seedURL: nil)
        try other.tap(named: "Japan")
        // The controller's poller notices the other connection's commit within moments.
        for _ in 0..<300 where fixture.screen.status == nil {
            usleep(10_000)
            fixture.screen.processChanges()
        }
        #expect(lines(fixture.render())[22] == " \(Author.machineDefault()): Japan +1 win.", "named: who, and what")
        fixture.clock.now += BoardModel.changedElsewhereSeconds
        fixture.screen.tick()
        #expect(fixture.screen.status == nil)
        // The screen's own tap is shown at once; the wake-up that follows finds nothing new.
        fixture.press(.enter)
        fixture.screen.processChanges()
        #expect(fixture.screen.status?.text == "Algeria: 1 win.")
        // A question is not replaced.
        fixture.press(.character("d"))
        try other.tap(named: "Japan")
        for _ in 0..<100 {
            usleep(10_000)
            fixture.screen.processChanges()
        }
        #expect(fixture.screen.status?.text == "Delete Algeria? y/N")
        #expect(lines(fixture.render()).contains { $0.contains("Japan") && $0.contains("Wins: 2") }, "the change itself shows")
    }

    @Test("The screen's own writes do not wake the loop; another program's commit does, and names it")
    func ownWritesWakeNobody() throws {
        let folder = try TemporaryFolder(prefix: "worldcup-app-tests")
        defer { folder.remove() }
        let scoreboard = try SQLiteTeamStore(databaseURL: folder.database, seed: Seed.bundled())
        let wakeUps = WakeUps()
        let screen = try ScoreboardScreen(scoreboard: scoreboard, colors: nil, clock: { 1000 }, onChangesAvailable: { wakeUps.add() })
        _ = screen.render(width: 80, height: 24)
        screen.handle(.enter)
        screen.handle(.down)
        screen.handle(.enter)
        #expect(screen.status?.text == "Cameroon: 1 win.")
        usleep(100_000) // a look at the file woken by our own commits is over
        #expect(wakeUps.count == 0, "our own taps woke the loop")
        let other = try SQLiteTeamStore(databaseURL: folder.database, seedURL: nil)
        try other.tap(named: "Japan")
        for _ in 0..<300 where wakeUps.count == 0 { usleep(10_000) }
        #expect(wakeUps.count > 0, "another program's tap never woke the loop")
        screen.processChanges()
        // The board's own outcome is said first; the notice waits behind it for the next key.
        #expect(screen.status?.text == "Cameroon: 1 win.")
        screen.handle(.up)
        #expect(screen.status?.text == "\(Author.machineDefault()): Japan +1 win.")
    }
}

/// Counts a screen's wake-ups, which come from the database's threads.
private final class WakeUps: @unchecked Sendable { // `value` is used only under `lock`.
    private let lock = NSLock()
    private var value = 0

    func add() { lock.withLock { value += 1 } }
    var count: Int { lock.withLock { value } }
}
