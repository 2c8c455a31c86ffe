import Foundation
import LiveResults
import Testing
import TerminalUI
import TestSupport
import WorldCup
@testable import WorldCupApp

/// What a user noticed in the first hour: ties at the top, the footer on a narrow screen, a
/// wide screen, the secret teams' badge.
@Suite("The board: ties, narrow and wide screens, the WND badge")
struct SmallerThingsTests {
    func data(_ zones: [(String, [(String, Int)])]) -> ArrayData {
        var id: RecordID = 0
        return ArrayData(zones: zones.map { zone, teams in
            (zone, teams.map { name, wins in
                id += 1
                return Team(id: id, teamName: name, qualifyingZone: zone, imageName: "", wins: wins)
            })
        })
    }

    func title(_ data: ArrayData, width: Int = 100) -> String {
        var board = PureBoard(data)
        return lines(board.render(width: width, height: 24).grid)[0]
    }

    @Test("A tie at the top names every leader, across zones and within one")
    func tie() {
        #expect(title(data([("Africa", [("Ghana", 1), ("Algeria", 0)]), ("Asia", [("Japan", 1)])])).contains("Leaders: Ghana and Japan (1 win)"))
        #expect(title(data([("Africa", [("Cameroon", 2), ("Ghana", 2)]), ("Asia", [("Japan", 2)])])).contains("Leaders: Cameroon, Ghana and Japan (2 wins)"))
        #expect(title(data([("Africa", [("Ghana", 3), ("Algeria", 1)]), ("Asia", [("Japan", 1)])])).contains("Leader: Ghana (3 wins)"))
    }

    @Test("Many tied leaders: the first three, and others")
    func manyLeaders() {
        let many = data([("Africa", [("Algeria", 1), ("Cameroon", 1), ("Ghana", 1)]), ("Asia", [("Iran", 1), ("Japan", 1)])])
        #expect(title(many).contains("Leaders: Algeria, Cameroon, Ghana and others (1 win)"), "\(title(many))")
        let spread = data([("Africa", [("Zed", 2)]), ("Asia", [("Yak", 2)]), ("Europe", [("Xav", 2)]), ("Oceania", [("Wob", 2)]), ("South America", [("Ape", 2)])])
        #expect(title(spread).contains("Leaders: Ape, Wob, Xav and others (2 wins)"), "the first by name, whatever their zones: \(title(spread))")
        let narrow = title(many, width: 60)
        #expect(narrow.contains("Leaders: Algeria and others (1 win)"), "\(narrow)")
        #expect(narrow.hasSuffix("5 teams"))
    }

    @Test("Tied leaders in little room (the title reconnecting): never a cut “and 1 oth…”, the number of leaders instead", arguments: Array(4...30))
    func leadersInLittleRoom(room: Int) {
        let two = [Team(id: 1, teamName: "Cameroon", qualifyingZone: "Africa", imageName: "", wins: 2),
                   Team(id: 2, teamName: "Costa Rica", qualifyingZone: "North", imageName: "", wins: 2)]
        let text = BoardView.leaderSpans(two, room: room).map { $0.glyphs.map(\.text).joined() }.joined()
        #expect(DisplayText.width(text) <= room)
        #expect(text == "Cameroon and Costa Rica" || text.contains(" and 1 other") || !text.contains(" and"), "at \(room) cells: “\(text)”")
        #expect(!text.hasPrefix("C…") && !text.hasPrefix("Ca…"), "at \(room) cells: “\(text)”")
    }

    @Test("The footer keeps “? help  q quit” at every width the board draws", arguments: Array(BoardModel.minimumSize.width...100))
    func footer(width: Int) {
        var board = PureBoard()
        let footer = lines(board.render(width: width, height: 24).grid)[23]
        #expect(footer.hasSuffix("? help  q quit"), "at \(width) columns: “\(footer)”")
        _ = board.press(.character("/"))
        _ = board.press(.character("a"))
        _ = board.press(.enter)
        let filtered = lines(board.render(width: width, height: 24).grid)[23]
        #expect(filtered.hasSuffix("? help  q quit"), "filtered, at \(width) columns: “\(filtered)”")
    }

    @Test("On a wide screen the table keeps its width, centred: the wins stay near the name")
    func wideScreen() throws {
        var board = PureBoard()
        let grid = board.render(width: 200, height: 24).grid
        let algeria = try #require(lines(grid).first { $0.contains("Algeria") })
        let name = try #require(algeria.range(of: "Algeria"))
        let wins = try #require(algeria.range(of: "Wins: 0"))
        let gap = algeria.distance(from: name.upperBound, to: wins.lowerBound)
        #expect(gap <= BoardModel.maximumContentWidth, "\(gap) cells between the name and its wins")
        // Margins on both sides, the same width give or take one cell.
        let left = algeria.prefix { $0 == " " }.count
        #expect(left >= 40, "\(algeria)")
        #expect(lines(grid)[0].contains("World Cup") && lines(grid)[0].hasSuffix("32 teams"))
        let title = lines(grid)[0]
        let titleStart = title.prefix { $0 == " " }.count
        #expect(abs(titleStart - (left - 1)) <= 2, "the title starts with the table’s column:\n\(title)\n\(algeria)")
        // Clicks still land on the rows where they are drawn.
        let y = try #require(lines(grid).firstIndex { $0.contains("Cameroon") })
        _ = board.model.update(.key(.mouse(MouseEvent(.click, x: left + 10, y: y))), data: board.data, now: 0)
        #expect(board.selectedTeam?.teamName == "Cameroon")
    }

    @Test("The help explains the secret teams' WND badge")
    func wndExplained() {
        var board = PureBoard()
        _ = board.press(.character("?"))
        let text = board.render(width: 100, height: 40).grid.text
        #expect(text.contains("[WND]") && text.contains("Wenderland"), "\(text)")
    }
}

/// The allocator settings the app applies at start (`HeapTuning`), moved here from
/// LiveResults' tests with the code.
@Suite struct HeapTuningTests {
    @Test("glibc takes the raised trim and mapping thresholds and the one arena (mallopt answers 1 for a parameter and value it accepts)")
    func glibcTakesTheSettings() {
        #if canImport(Glibc)
        #expect(HeapTuning.keepFreedPages())
        #else
        #expect(!HeapTuning.keepFreedPages())
        #endif
    }
}
