import Testing
import TerminalUI
import TestSupport
@testable import WorldCupApp

/// A shared board's title: where it is connected, and that it is reconnecting while the
/// server is away.
@Suite("The shared board's connection")
struct ConnectionTests {
    @Test("A board on a file names no server")
    func localBoard() {
        var board = PureBoard(.sample)
        #expect(lines(board.render().grid)[0].hasPrefix(" World Cup  Leader: "))
    }

    @Test("A live shared board names its server in the title; a lost connection says it is reconnecting, in the error style, until it is back")
    func reconnecting() {
        var board = PureBoard(.sample)
        board.model.connection = .init(server: "db.example:5432/worldcup", isLive: true)
        #expect(lines(board.render().grid)[0].hasPrefix(" World Cup · db.example:5432/worldcup  Leader: "))

        _ = board.model.update(.connection(isLive: false), data: board.data, now: 0)
        let grid = board.render().grid
        let title = lines(grid)[0]
        #expect(title.hasPrefix(" World Cup · reconnecting to db.example:5432/worldcup…"))
        let column = title.distance(from: title.startIndex, to: title.range(of: "reconnecting")!.lowerBound)
        #expect(grid[column, 0].style == Theme(colors: nil).error)
        #expect(board.model.status == nil, "the connection's state is shown in the title, not as a passing message")

        _ = board.model.update(.connection(isLive: true), data: board.data, now: 0)
        #expect(lines(board.render().grid)[0].hasPrefix(" World Cup · db.example:5432/worldcup  Leader: "))
    }

    @Test("On a narrow screen the server is cut short, never the word reconnecting or the count")
    func narrow() {
        var board = PureBoard()
        board.model.connection = .init(server: "a-very-long-host-name.example.org:5432/worldcup", isLive: false)
        let title = lines(board.render(width: 40, height: 12).grid)[0]
        #expect(title.hasPrefix(" World Cup · reconnecting to…"))
        #expect(title.hasSuffix("32 teams"), "the count stays on the right: \(title)")
    }
}
