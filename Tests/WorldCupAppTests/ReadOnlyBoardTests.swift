import Testing
import TerminalUI
import TestSupport
import WorldCup
@testable import WorldCupApp

/// A spectator's board: it moves, filters and shows help like any board, and every key that
/// would change a team is refused at once, in one sentence on the status line, asking for
/// nothing to be written.
@Suite("A read-only board")
struct ReadOnlyBoardTests {
    private func watcherBoard(_ readOnly: ReadOnlyBoard = .role(user: "watcher")) -> PureBoard {
        var board = PureBoard(.seeded)
        board.model.readOnly = readOnly
        return board
    }

    @Test("Enter, +, d and Delete change nothing and say why, in one sentence, as an error")
    func keysThatWriteAreRefused() {
        for key in [Key.enter, .character("+"), .character("d"), .delete] {
            var board = watcherBoard()
            let before = board.selectedTeam
            #expect(board.press(key).isEmpty, "\(key) asked for nothing")
            #expect(board.model.status?.text == "The user “watcher” may only watch this board, so nothing was changed.")
            #expect(board.model.status?.isError == true)
            guard case .browsing = board.model.mode else {
                Issue.record("\(key) opened \(board.model.mode)")
                continue
            }
            #expect(board.selectedTeam == before)
            #expect(lines(board.render().grid)[22].contains("may only watch this board"))
        }
    }

    @Test("A double-click selects the team but does not tap it")
    func doubleClickIsRefused() {
        var board = watcherBoard(.asked)
        _ = board.render()
        let effects = board.press(.mouse(MouseEvent(.doubleClick, x: 10, y: 4)))
        #expect(effects.isEmpty)
        #expect(board.model.status?.text == ReadOnlyBoard.asked.refusal.description)
    }

    @Test("Moving, the filter and the help work as on any board; Enter in the filter keeps it")
    func readingKeysWork() {
        var board = watcherBoard()
        let first = board.selectedTeam
        board.press(.down)
        #expect(board.selectedTeam != first)
        #expect(board.press(.character("/")).count == 1, "the filter fetches")
        board.press(.enter)
        #expect(board.model.status == nil, "Enter keeps the filter; it is no tap")
        board.press(.character("?"))
        #expect(board.model.help != nil)
    }

    @Test("The title says read-only, and the footer offers no key that writes")
    func titleAndFooter() {
        var board = watcherBoard()
        board.model.connection = .init(server: "worldcup on db.example:5432", isLive: true)
        let screen = lines(board.render().grid)
        #expect(screen[0].hasPrefix(" World Cup · worldcup on db.example:5432 · read-only"), "\(screen[0])")
        #expect(!screen[23].contains("Enter tap") && !screen[23].contains("+ add") && !screen[23].contains("d delete"), "\(screen[23])")
        var file = watcherBoard(.asked)
        #expect(lines(file.render().grid)[0].hasPrefix(" World Cup · read-only"))
        var writer = PureBoard(.seeded)
        #expect(!lines(writer.render().grid)[0].contains("read-only"))
        #expect(lines(writer.render().grid)[23].contains("Enter tap"))
    }

    @Test("A board behind a pooler says its updates come at each read; the note goes when notifications come back")
    func pooledBoard() {
        var board = PureBoard(.seeded)
        board.model.connection = .init(server: "worldcup on db.example:6432", isLive: true)
        _ = board.model.update(.polling(.seconds(1)), data: board.data, now: 0)
        #expect(lines(board.render().grid)[0].hasPrefix(" World Cup · worldcup on db.example:6432 · pooler: updates every 1 s"))
        _ = board.model.update(.polling(nil), data: board.data, now: 0)
        #expect(!lines(board.render().grid)[0].contains("pooler"))
    }
}
