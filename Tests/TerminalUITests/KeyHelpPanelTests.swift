import Foundation
import Testing
@testable import TerminalUI

@Suite("KeyHelpPanel")
struct KeyHelpPanelTests {
    @Test("Wrapping breaks at spaces, and inside a word only when it is wider than the line", arguments: [
        ("filter by name; Enter keeps, Esc clears", 16, ["filter by name;", "Enter keeps, Esc", "clears"]),
        ("short", 16, ["short"]),
        ("", 5, [""]),
        ("abcdefghij klm", 4, ["abcd", "efgh", "ij", "klm"]),
        ("日本代表 x", 5, ["日本", "代表", "x"]),
    ] as [(String, Int, [String])])
    func wrap(text: String, width: Int, expected: [String]) {
        #expect(DisplayText.wrap(text, toWidth: width) == expected)
    }

    @Test("Scrolling stays within the help")
    func scrollBounds() {
        var panel = KeyHelpPanel(entries: (1...20).map { KeyHelpPanel.Entry(keys: "k\($0)", action: "action \($0)") })
        let area = Rect(x: 0, y: 0, width: 40, height: 10)
        // 10 rows less the margin (2), the frame and the blank lines (4): 4 lines shown.
        #expect(panel.pageSize(in: area) == 4)
        #expect(panel.scrolls(in: area))
        panel.scroll(by: -3, in: area)
        #expect(panel.scrollOffset == 0)
        panel.scroll(by: 100, in: area)
        #expect(panel.scrollOffset == 16)
        var grid = Grid(width: 40, height: 10)
        panel.render(into: &grid, area: area, frame: .plain, keys: .plain)
        #expect(grid.text.contains("k20"))
        #expect(grid.text.contains("17–20 of 20"))
        #expect(!panel.scrolls(in: Rect(x: 0, y: 0, width: 40, height: 40)))
    }

    @Test("In a tiny area it draws nothing rather than a broken box")
    func tiny() {
        let panel = KeyHelpPanel(entries: [.init(keys: "q", action: "quit")])
        var grid = Grid(width: 6, height: 3)
        panel.render(into: &grid, area: Rect(x: 0, y: 0, width: 6, height: 3), frame: .plain, keys: .plain)
        #expect(grid.text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty)
    }
}
