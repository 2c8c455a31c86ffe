import Testing
@testable import TerminalUI
import TestSupport

@Suite("FormDialog: rendering")
struct FormDialogRenderTests {
    @Test("A form of one field has no Tab in its hint: nothing to move between")
    func oneFieldHint() {
        let form = FormDialog(title: "Rename Zone", fields: [FormDialog.Field(label: "Zone Name", text: "Africa")])
        var grid = Grid(width: 60, height: 14)
        form.render(into: &grid, area: Rect(x: 0, y: 0, width: 60, height: 14), frame: Style(reverse: true), field: Style(underline: true), error: Style(bold: true))
        let bottom = lines(grid).first { $0.contains("└") }
        #expect(bottom?.contains("└─ Enter: save · Esc: cancel ─") == true && bottom?.contains("Tab") == false, "\(bottom ?? "")")
    }

    @Test("The title, labels, values and hint are drawn in a centred box")
    func render() {
        var form = teamForm()
        type("Wakanda", into: &form)
        var grid = Grid(width: 60, height: 14)
        let caret = form.render(into: &grid, area: Rect(x: 0, y: 0, width: 60, height: 14), frame: Style(reverse: true), field: Style(underline: true), error: Style(bold: true))
        let text = lines(grid)
        // A 52×10 box at (4, 2).
        #expect(text[0] == "")
        #expect(text[1] == "")
        #expect(text[2].hasPrefix("    ┌─ Secret Team: Add a new team ─"))
        #expect(text[2].hasSuffix("─┐"))
        #expect(DisplayText.width(text[2]) == 56)
        #expect(text[4] == "    │ Team Name       Wakanda                          │")
        #expect(text[6] == "    │ Qualifying Zone Africa                           │")
        #expect(text[11].hasPrefix("    └─ Tab: "))
        #expect(text[11].contains(" · Enter: save · Esc: cancel "))
        #expect(text[11].hasSuffix("┘"))
        #expect(text[12] == "")
        for y in 3...10 {
            #expect(text[y].hasPrefix("    │"), "line \(y)")
            #expect(text[y].hasSuffix("│"), "line \(y)")
            #expect(DisplayText.width(text[y]) == 56, "line \(y)")
        }
        // The caret is after the typed name, in the focused field.
        #expect(caret.x == 22 + 7)
        #expect(caret.y == 4)
        // Styles: the frame in reverse, the field underlined, the labels bold.
        #expect(grid[4, 2].style.reverse)
        #expect(grid[22, 4].style == Style(underline: true))
        #expect(grid[6, 4].style.bold)
    }

    @Test("The message is drawn inside the box, above the bottom border")
    func message() {
        var form = teamForm()
        _ = form.handle(.character("\u{1B}"))
        var grid = Grid(width: 60, height: 14)
        form.render(into: &grid, area: Rect(x: 0, y: 0, width: 60, height: 14), frame: Style(reverse: true), field: Style(underline: true), error: Style(bold: true))
        let text = lines(grid)
        #expect(text[10].hasPrefix("    │ Control characters are not allowed."))
        #expect(text[10].hasSuffix("│"))
        #expect(grid[6, 10].style == Style(bold: true))
    }

    @Test("A message longer than the box is wrapped, never cut: the box grows by its lines")
    func longMessage() {
        var form = teamForm()
        let sentence = "The server is away, so nothing was changed: try again when the board is live."
        form.message = sentence
        var grid = Grid(width: 60, height: 16)
        form.render(into: &grid, area: Rect(x: 0, y: 0, width: 60, height: 16), frame: Style(reverse: true), field: Style(underline: true), error: Style(bold: true))
        let inside = lines(grid).compactMap { line -> String? in
            guard line.contains("│ "), let start = line.firstIndex(of: "│") else { return nil }
            return line[line.index(after: start)...].replacingOccurrences(of: "│", with: "").trimmingCharacters(in: .whitespaces)
        }
        let shown = inside.drop { !$0.hasPrefix("The server") }.prefix { !$0.isEmpty && !$0.contains("Tab") }.joined(separator: " ")
        #expect(shown == sentence, "\(grid.text)")
        #expect(drawingProblems(grid).isEmpty)
        #expect(lines(grid).contains { $0.contains("└") && $0.contains("Tab: field") }, "the bottom line stays")
    }

    @Test("A long value shows its end, where the caret is")
    func longValue() {
        var form = teamForm()
        type(String(repeating: "漢", count: 40), into: &form)
        var grid = Grid(width: 60, height: 14)
        let caret = form.render(into: &grid, area: Rect(x: 0, y: 0, width: 60, height: 14), frame: .plain, field: .plain, error: .plain)
        #expect(caret.y == 4)
        #expect(caret.x <= 54)
        #expect(caret.x >= 22)
        #expect(lines(grid)[4].contains(String(repeating: "漢", count: 15)))
        #expect(!lines(grid)[4].contains(String(repeating: "漢", count: 16)))
        #expect(lines(grid)[4].hasSuffix("│"))
        #expect(drawingProblems(grid).isEmpty)
        for line in lines(grid) { #expect(DisplayText.width(line) <= 60) }
    }

    @Test("Hostile text in the fields is drawn safely")
    func hostileValues() {
        var form = FormDialog(title: "T\u{1B}[2J", subtitle: "\u{202E}evil", fields: [FormDialog.Field(label: "Name", text: "a\u{1B}[31mb\u{9B}c")])
        form.message = "bad\nmessage"
        var grid = Grid(width: 60, height: 10)
        form.render(into: &grid, area: Rect(x: 0, y: 0, width: 60, height: 10), frame: .plain, field: .plain, error: .plain)
        for y in 0..<grid.height {
            for x in 0..<grid.width {
                #expect(!grid[x, y].text.unicodeScalars.contains(where: isUnsafe), "cell (\(x), \(y))")
            }
        }
        #expect(grid.text.contains("T\u{241B}[2J: evil"))
        #expect(grid.text.contains("bad\u{240A}message"))
    }

    @Test("In a small area the box shrinks to fit", arguments: [(40, 10), (52, 10), (80, 24)])
    func fits(width: Int, height: Int) {
        var form = teamForm()
        type("Wakanda", into: &form)
        var grid = Grid(width: width, height: height)
        form.render(into: &grid, area: Rect(x: 0, y: 0, width: width, height: height), frame: .plain, field: .plain, error: .plain)
        #expect(grid.text.contains("Secret Team"))
        #expect(grid.text.contains("Team Name"))
        #expect(grid.text.contains("Wakanda"))
        #expect(drawingProblems(grid).isEmpty)
    }

    @Test("A box narrower than its labels does not crash")
    func narrowerThanLabels() async {
        // fieldX = box.x + 3 + labelWidth lies beyond the grid, and Grid.fill traps on it.
        await #expect(processExitsWith: .success) {
            let form = FormDialog(title: "T", fields: [FormDialog.Field(label: "Qualifying Zone")])
            var grid = Grid(width: 16, height: 8)
            form.render(into: &grid, area: Rect(x: 0, y: 0, width: 16, height: 8), frame: .plain, field: .plain, error: .plain)
        }
    }
}
