@testable import WorldCupApp
import Foundation
import TerminalUI
import TestSupport
import Testing
import WorldCup

/// The footer's keys: e, u and Ctrl-R where there is room.
@Suite("BoardView: the footer")
struct FooterTests {
    @Test("A wide board names e, u and Ctrl-R in the footer; a narrower one keeps the other keys")
    func undoKeys() throws {
        var board = PureBoard()
        let wide = lines(board.render(width: 120, height: 24).grid)[23]
        #expect(wide.contains("/ filter  e edit  u/^R undo/redo  r rename zone  ? help  q quit"), "\(wide)")
        let widest = lines(board.render(width: 100, height: 24).grid)[23]
        #expect(widest == " ↑↓/jk move  Tab zone  Enter tap  + add  d delete  / filter  e edit  u/^R undo/redo  ? help  q quit", "\(widest)")
        let narrow = lines(board.render(width: 80, height: 24).grid)[23]
        #expect(!narrow.contains("e edit") && !narrow.contains("undo"), "\(narrow)")
        #expect(narrow.hasPrefix(" ↑↓/jk move  Tab zone  Enter tap  + add  d delete  / filter  ? help  q quit"))
    }

    @Test("A read-only board's footer names no key that changes teams")
    func readOnly() {
        var board = PureBoard()
        board.model.readOnly = .asked
        let footer = lines(board.render(width: 120, height: 24).grid)[23]
        #expect(!footer.contains("e edit") && !footer.contains("undo"), "\(footer)")
    }

    @Test("While a change is saved, the status line and the team's row say so; a message on the status line goes first")
    func savingNote() {
        var board = PureBoard()
        let effects = board.press(.enter)
        #expect(effects == [.tap(1)])
        board.model.beginWrite(effects[0], data: board.data)
        var text = lines(board.render().grid)
        #expect(text[22] == " Saving Algeria…")
        #expect(text[2].contains("Algeria") && text[2].hasSuffix(" saving…  Wins: 1  As"), "the tap shows at once: \(text[2])")
        _ = board.model.update(.failed("Something else."), data: board.data, now: 0)
        text = lines(board.render().grid)
        #expect(text[22] == " Something else.")
        _ = board.model.update(.finished(.tap(1), .tapped(TeamChange(action: .tap, before: nil, after: Team(id: 1, teamName: "Algeria", qualifyingZone: "Africa", imageName: "algeria-flag", wins: 1)))),
                               data: board.data, now: 0)
        #expect(board.model.pendingWrites.isEmpty)
        #expect(board.model.status?.text == "Algeria: 1 win.")
    }
}
