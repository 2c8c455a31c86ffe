import Testing
import TerminalUI
import TestSupport
@testable import WorldCupApp

/// A board on a server says what it waits for while its first rows come over a slow link.
@Suite("The board's first frame on a server")
struct ConnectingFrameTests {
    @Test("It names the server it connects to, cut to the screen's width", arguments: [40, 100])
    func namesTheServer(width: Int) {
        let grid = ScoreboardApp.connectingFrame(to: "db.example:5432/worldcup", width: width, height: 10)
        let title = lines(grid)[0]
        #expect(title.hasPrefix(" World Cup · connecting to db.example"), "\(title)")
        #expect(DisplayText.width(title) <= width)
    }
}
