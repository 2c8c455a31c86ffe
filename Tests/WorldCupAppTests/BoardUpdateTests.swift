import Foundation
import LiveResults
import Testing
import TerminalUI
import TestSupport
import WorldCup
@testable import WorldCupApp

/// The board's update on its own: keys in, effects and model out, without a database or a
/// terminal.
@Suite("BoardModel.update")
struct BoardUpdateTests {
    let data = ArrayData.sample

    func board() -> BoardModel {
        PureBoard(data).model
    }

    func press(_ keys: Key..., on model: inout BoardModel, now: Double = 0) -> [BoardEffect] {
        keys.flatMap { model.update(.key($0), data: data, now: now) }
    }

    @Test("Enter asks for a tap of the team under the cursor; its outcome is said and fades")
    func tap() {
        var model = board()
        #expect(press(.down, .enter, on: &model) == [.tap(2)])
        _ = model.update(.tapped(TeamChange(action: .tap, before: nil, after: Team(id: 2, teamName: "Ghana", qualifyingZone: "Africa", imageName: "ghana-flag", wins: 1))), data: data, now: 10)
        #expect(model.status?.text == "Ghana: 1 win.")
        #expect(model.nextDeadline == 10 + BoardModel.confirmationSeconds)
        _ = model.update(.tick, data: data, now: 10 + BoardModel.confirmationSeconds)
        #expect(model.status == nil)
    }

    @Test("+ opens the dialog with the zone suggested; Enter asks to add; a refusal stays in the dialog")
    func add() {
        var model = board()
        _ = press(.character("+"), on: &model)
        #expect(model.dialog?.values == ["", "Africa"])
        var effects = press(.character("W"), .tab, .character("O"), .character("c"), on: &model)
        #expect(effects.isEmpty)
        effects = press(.enter, on: &model)
        #expect(effects == [.add(name: "W", zone: "Oc")], "the typed zone replaces the suggestion")
        _ = model.update(.addRefused("A team named “W” already exists."), data: data, now: 0)
        #expect(model.dialog?.message == "A team named “W” already exists.")
        _ = model.update(.added(TeamChange(action: .add, before: nil, after: Team(id: 3, teamName: "Spain", qualifyingZone: "Europe", imageName: ""))), data: data, now: 0)
        #expect(model.dialog == nil)
        #expect(model.table.cursor == TablePosition(section: 1, row: 0))
    }

    @Test("An add whose row comes after its outcome (a new zone, through the change log): said as added, not hidden by a filter, and the cursor goes to it when it comes")
    func addArrivingAfterItsOutcome() {
        var model = board()
        let atlantis = Team(id: 4, teamName: "Atlantis", qualifyingZone: "Oceania", imageName: "")
        _ = model.update(.added(TeamChange(action: .add, before: nil, after: atlantis)), data: data, now: 0)
        #expect(model.status?.text == "Added Atlantis to Oceania.")
        var arrived = data
        arrived.zones.append(("Oceania", [atlantis]))
        _ = model.update(.reset(selection: nil), data: arrived, now: 0)
        #expect(model.table.cursor == TablePosition(section: 2, row: 0))
    }

    @Test("d asks y/N: y asks to delete, anything else keeps the team; the question does not fade")
    func delete() {
        var model = board()
        #expect(press(.character("d"), on: &model).isEmpty)
        #expect(model.isAskingToDelete && model.status?.text == "Delete Algeria? y/N" && model.nextDeadline == nil)
        _ = model.update(.changedElsewhere, data: data, now: 0)
        #expect(model.status?.text == "Delete Algeria? y/N", "a note from elsewhere does not hide the question")
        #expect(press(.character("y"), on: &model) == [.delete(id: 1, name: "Algeria")])
        _ = press(.character("d"), on: &model)
        #expect(press(.character("n"), on: &model).isEmpty)
        #expect(model.status?.text == "Kept Algeria.")
    }

    @Test("The filter asks for a fetch per edit, keeps the cursor's team, and Esc clears it")
    func filter() {
        var model = board()
        _ = press(.down, on: &model)
        // "/" asks for the empty filter at once, so that the names are in memory before the first key.
        guard case .filter(let opened, let kept)? = press(.character("/"), on: &model).first else { Issue.record("/ does not filter"); return }
        #expect(opened?.text == "" && kept == 2)
        #expect(model.isEditingFilter)
        #expect(model.editsFilterText(.character("g")) && !model.editsFilterText(.down))
        let effects = press(.character("g"), on: &model)
        guard case .filter(let filter, let wanted)? = effects.first else { Issue.record("no fetch: \(effects)"); return }
        #expect(filter?.text == "g" && wanted == 2)
        #expect(press(.enter, on: &model).isEmpty)
        #expect(!model.isEditingFilter && model.filter?.text == "g")
        guard case .filter(nil, _)? = press(.escape, on: &model).first else { Issue.record("Esc does not fetch every team"); return }
        #expect(model.filter == nil)
    }

    @Test("While the filter has a text there is no leader (the title shows the filter); the empty filter and Esc bring it back")
    func leaderWhileFiltered() {
        var model = board()
        #expect(model.leader?.teamName == "Spain")
        _ = press(.character("/"), on: &model)
        _ = model.update(.filtered(wanted: nil), data: data, now: 0)
        #expect(model.leader?.teamName == "Spain", "the empty filter keeps every team")
        _ = press(.character("g"), on: &model)
        _ = model.update(.filtered(wanted: nil), data: data, now: 0)
        #expect(model.leader == nil)
        _ = press(.escape, on: &model)
        _ = model.update(.filtered(wanted: nil), data: data, now: 0)
        #expect(model.leader?.teamName == "Spain")
    }

    @Test("Only one mode at a time: the help swallows the key that closes it; q and Esc close it, as in less")
    func help() {
        var model = board()
        _ = press(.character("?"), on: &model)
        #expect(model.help != nil)
        #expect(press(.enter, on: &model).isEmpty, "Enter closes the help without tapping")
        #expect(model.help == nil && !model.wantsToQuit)
        _ = press(.character("?"), .character("q"), on: &model)
        #expect(model.help == nil && !model.wantsToQuit, "q closes the help")
        _ = press(.character("?"), .escape, on: &model)
        #expect(model.help == nil && !model.wantsToQuit, "Esc closes the help")
        _ = press(.character("?"), .unknown(27), on: &model)
        #expect(model.help != nil, "Alt with a key, or a sequence nobody knows, is ignored")
    }

    @Test("Esc never quits: it cancels the question and the dialog, clears the filter, and on the board says how to quit")
    func escapeNeverQuits() {
        var model = board()
        _ = press(.escape, .escape, on: &model)
        #expect(!model.wantsToQuit)
        #expect(model.status?.text == BoardModel.howToQuit)
        _ = press(.character("d"), .escape, on: &model)
        #expect(!model.isAskingToDelete && model.status?.text == "Kept Algeria.")
        _ = press(.character("+"), .escape, on: &model)
        #expect(model.dialog == nil && !model.wantsToQuit)
        _ = press(.character("/"), .character("g"), .escape, .escape, on: &model)
        #expect(model.filter == nil && !model.wantsToQuit)
        _ = press(.unknown(27), .character("j"), on: &model)
        #expect(!model.wantsToQuit)
        _ = press(.character("q"), on: &model)
        #expect(model.wantsToQuit, "q quits")
    }

    @Test("A reset reloads the table and puts the cursor back on its team")
    func reset() {
        var model = board()
        _ = press(.end, on: &model)
        var moved = data
        moved.zones.swapAt(0, 1)
        _ = model.update(.reset(selection: 3), data: moved, now: 0)
        #expect(model.table.cursor == TablePosition(section: 0, row: 0))
        #expect(model.leader?.teamName == "Spain")
    }
}

/// Moving over the seed's 32 teams on an 80×24 board, without a database.
@Suite("BoardModel.update: moving")
struct BoardMovingTests {
    @Test("Keys move the cursor over teams, never onto a header, and ask for nothing; q quits")
    func navigation() {
        var board = PureBoard()
        #expect(board.selectedTeam?.teamName == "Algeria")
        #expect(board.press(.character("j"), times: 5).isEmpty)
        #expect(board.selectedTeam?.teamName == "Australia")
        #expect(board.press(.up).isEmpty)
        #expect(board.selectedTeam?.teamName == "Nigeria")
        #expect(board.press(.character("k"), times: 10).isEmpty)
        #expect(board.selectedTeam?.teamName == "Algeria")
        #expect(board.press(.character("G")).isEmpty)
        #expect(board.selectedTeam?.teamName == "Uruguay")
        #expect(board.press(.down).isEmpty)
        #expect(board.selectedTeam?.teamName == "Uruguay")
        #expect(board.press(.character("g")).isEmpty)
        #expect(board.selectedTeam?.teamName == "Algeria")
        #expect(board.press(.pageDown).isEmpty)  // 21 table lines: 19 rows
        #expect(board.selectedTeam?.teamName == "Russia")
        #expect(board.press(.control("b")).isEmpty)
        #expect(board.selectedTeam?.teamName == "Algeria")
        #expect(!board.model.wantsToQuit)
        #expect(board.press(.character("q")).isEmpty)
        #expect(board.model.wantsToQuit)
    }

    @Test("Tab and Shift-Tab move between zones")
    func sectionJumps() {
        var board = PureBoard()
        #expect(board.selectedTeam?.qualifyingZone == "Africa")
        board.press(.tab)
        #expect(board.selectedTeam?.teamName == "Australia")
        board.press(.tab)
        #expect(board.selectedTeam?.qualifyingZone == "Europe")
        board.press(.down)
        board.press(.backTab)
        #expect(board.selectedTeam?.teamName == "Belgium", "Shift-Tab first returns to the top of the zone")
        board.press(.backTab)
        #expect(board.selectedTeam?.teamName == "Australia")
        board.press(.tab, times: 10)
        #expect(board.selectedTeam?.qualifyingZone == "South America")
    }

    @Test("d and Delete ask y/N on the status line; n keeps the team and asks for nothing")
    func deleteQuestion() {
        var board = PureBoard()
        for key in [Key.character("d"), .delete] {
            #expect(board.press(key).isEmpty)
            #expect(board.render().grid.text.contains("Delete Algeria? y/N"))
            #expect(board.press(.character("n")).isEmpty)
            #expect(board.render().grid.text.contains("Kept Algeria."))
        }
        board.press(.delete)
        #expect(board.press(.character("y")) == [.delete(id: board.selectedTeam!.id!, name: "Algeria")])
    }
}

/// The board drawn by `BoardView` alone.
@Suite("BoardView: screens too small")
struct BoardTooSmallTests {
    @Test("A terminal that is too small gets a message", arguments: [(30, 8), (39, 24), (80, 9), (10, 3), (1, 1), (0, 0)])
    func tooSmall(width: Int, height: Int) {
        var board = PureBoard()
        let frame = board.render(width: width, height: height)
        #expect(frame.caret == nil)
        #expect(frame.grid.width == width && frame.grid.height == height)
        if width >= 18, height >= 1 {
            #expect(lines(frame.grid)[0].hasPrefix("Terminal too small"))
        }
        #expect(!frame.grid.text.contains("World Cup"))
        #expect(drawingProblems(frame.grid).isEmpty)
    }
}

/// The key help: a mode of its own, drawn over the table.
@Suite("BoardModel.update: the help")
struct BoardHelpTests {
    @Test("? lists every key; any other key closes the help without acting")
    func help() {
        var board = PureBoard()
        board.press(.character("?"))
        let text = board.render().grid.text
        #expect(text.contains("Keys"))
        for entry in BoardModel.keyHelp {
            #expect(text.contains(entry.keys), "help lists \(entry.keys)")
        }
        #expect(board.press(.enter).isEmpty, "Enter closes the help; it does not tap")
        #expect(!board.render().grid.text.contains("any key closes"))
        #expect(!board.model.wantsToQuit)
    }

    @Test("At 100 columns the help is framed, every line whole, and the table's text kept off it")
    func framedAndWhole() throws {
        var board = PureBoard()
        board.press(.character("?"))
        let grid = board.render(width: 100, height: 30).grid
        let text = lines(grid)
        #expect(drawingProblems(grid).isEmpty)
        let top = try #require(text.firstIndex { $0.contains("┌─ Keys ─") })
        let bottom = try #require(text.firstIndex { $0.contains("└─ any key closes ─") })
        #expect(!grid.text.contains("…"), "nothing is cut")
        // The keys' column as wide as the keys that fit in it ("Tab  Shift-Tab"), the descriptions wide.
        #expect(grid.text.contains("/" + String(repeating: " ", count: 15) + "filter by name; Enter keeps, Esc clears"))
        #expect(grid.text.contains("a secret team's badge: Wenderland, the sample's made-up country"), "one line at 100 columns")
        #expect(text.contains { $0.contains("│ PgUp PgDn  Ctrl-B Ctrl-F ") } && text.contains { $0.hasSuffix("page") || $0.contains("  page  ") })
        let left = try #require(text[top].firstIndex(of: "┌")).utf16Offset(in: text[top])
        for y in top...bottom {
            #expect(text[y].contains("│") || y == top || y == bottom, "line \(y) is framed")
        }
        // A blank margin around the frame: the table's text never touches it.
        for y in (top - 1)...(bottom + 1) {
            let cells = (0..<grid.width).map { grid[$0, y].text }
            #expect(cells[left - 1] == " ", "line \(y), left of the frame")
        }
        #expect(!text[top - 1].dropFirst(left - 1).contains("Wins"), "the line above the frame is cleared")
    }

    @Test("On a short terminal the help scrolls instead of cutting rows", arguments: [(80, 12), (60, 10)])
    func scrollsWhenShort(width: Int, height: Int) {
        var board = PureBoard()
        board.press(.character("?"))
        var grid = board.render(width: width, height: height).grid
        #expect(drawingProblems(grid).isEmpty)
        #expect(grid.text.contains("move"))
        #expect(!grid.text.contains("quit"))
        #expect(grid.text.contains("↑↓ scroll"))
        #expect(grid.text.contains("▼"))
        board.press(.down)
        grid = board.render(width: width, height: height).grid
        #expect(!grid.text.contains(" move"))
        #expect(grid.text.contains("▲"))
        board.press(.end)
        grid = board.render(width: width, height: height).grid
        #expect(grid.text.contains("quit"))
        #expect(!grid.text.contains("▼"))
        board.press(.home)
        #expect(board.render(width: width, height: height).grid.text.contains("move"))
        // Scrolling acted on the help only; another key closes it.
        #expect(board.selectedTeam?.teamName == "Algeria")
        #expect(board.press(.character("x")).isEmpty)
        #expect(board.model.help == nil)
    }

    @Test("On a narrow terminal the descriptions wrap at spaces rather than being cut")
    func wrapsWhenNarrow() {
        var board = PureBoard()
        board.press(.character("?"))
        let grid = board.render(width: 44, height: 60).grid
        #expect(drawingProblems(grid).isEmpty)
        let box = lines(grid).filter { $0.contains("│") }
        #expect(box.count > BoardModel.keyHelp.count, "some descriptions take two lines")
        #expect(!box.joined().contains("…"))
        let text = box.joined(separator: "\n").replacingOccurrences(of: "│", with: " ")
        let words = text.split(whereSeparator: \.isWhitespace).map(String.init)
        for entry in BoardModel.keyHelp {
            for word in entry.action.split(separator: " ") { #expect(words.contains(String(word)), "\(word) of \(entry.action)") }
        }
    }
}
