import Testing
@testable import TerminalUI
import TestSupport

func teamForm(zone: String = "Africa") -> FormDialog {
    FormDialog(title: "Secret Team", subtitle: "Add a new team", fields: [
        FormDialog.Field(label: "Team Name"),
        FormDialog.Field(label: "Qualifying Zone", text: zone),
    ])
}

@discardableResult
func type(_ text: String, into form: inout FormDialog) -> [FormDialog.Outcome] {
    text.map { form.handle(.character($0)) }
}

@Suite("FormDialog: editing")
struct FormDialogEditingTests {
    @Test("Typing fills the focused field")
    func typing() {
        var form = teamForm()
        #expect(type("Wakanda", into: &form).allSatisfy { $0 == .editing })
        #expect(form.values == ["Wakanda", "Africa"])
        #expect(form.fields[0].caret == 7)
        #expect(form.focus == 0)
        #expect(form.message == nil)
    }

    @Test("A prefilled field starts with its caret at the end")
    func prefilledCaret() {
        let form = teamForm(zone: "Asia")
        #expect(form.fields[1].caret == 4)
    }

    @Test("Backspace removes the character before the caret")
    func backspace() {
        var form = teamForm()
        type("Wakandaa", into: &form)
        #expect(form.handle(.backspace) == .editing)
        #expect(form.values[0] == "Wakanda")
        _ = form.handle(.home)
        _ = form.handle(.backspace)
        #expect(form.values[0] == "Wakanda")
        _ = form.handle(.right)
        _ = form.handle(.backspace)
        #expect(form.values[0] == "akanda")
        #expect(form.fields[0].caret == 0)
    }

    @Test("Arrows, home and end move the caret; typing inserts at the caret; delete removes after it")
    func caretEditing() {
        var form = teamForm()
        type("ac", into: &form)
        _ = form.handle(.left)
        type("b", into: &form)
        #expect(form.values[0] == "abc")
        _ = form.handle(.control("a"))
        type(">", into: &form)
        _ = form.handle(.control("e"))
        type("<", into: &form)
        #expect(form.values[0] == ">abc<")
        _ = form.handle(.home)
        _ = form.handle(.delete)
        #expect(form.values[0] == "abc<")
        _ = form.handle(.end)
        _ = form.handle(.delete)
        #expect(form.values[0] == "abc<")
        _ = form.handle(.right)
        #expect(form.fields[0].caret == 4)
        for _ in 0..<10 { _ = form.handle(.left) }
        #expect(form.fields[0].caret == 0)
    }

    @Test("Tab and arrows switch fields, wrapping around")
    func switchFields() {
        var form = teamForm()
        #expect(form.handle(.tab) == .editing)
        #expect(form.focus == 1)
        _ = form.handle(.end)
        type("!", into: &form)
        #expect(form.values == ["", "Africa!"])
        _ = form.handle(.tab)
        #expect(form.focus == 0)
        _ = form.handle(.backTab)
        #expect(form.focus == 1)
        _ = form.handle(.up)
        #expect(form.focus == 0)
        _ = form.handle(.down)
        #expect(form.focus == 1)
    }

    @Test("Ctrl-U clears the focused field")
    func controlU() {
        var form = teamForm()
        _ = form.handle(.tab)
        _ = form.handle(.control("u"))
        #expect(form.values == ["", ""])
        #expect(form.fields[1].caret == 0)
        type("Oceania", into: &form)
        #expect(form.values == ["", "Oceania"])
    }

    @Test("Enter submits and Esc cancels, leaving the text as it was")
    func submitAndCancel() {
        var form = teamForm()
        type("Wakanda", into: &form)
        #expect(form.handle(.enter) == .submitted)
        #expect(form.values == ["Wakanda", "Africa"])
        #expect(form.handle(.escape) == .cancelled)
        #expect(form.values == ["Wakanda", "Africa"])
    }

    @Test("Other keys are ignored", arguments: [Key.function(1), .pageUp, .pageDown, .mouse(MouseEvent(.click, x: 0, y: 0)), .resize, .unknown(999), .control("x")])
    func ignoredKeys(_ key: Key) {
        var form = teamForm()
        type("ab", into: &form)
        #expect(form.handle(key) == .editing)
        #expect(form.values == ["ab", "Africa"])
        #expect(form.focus == 0)
    }

    @Test("Control characters are refused with a message", arguments: ["\u{1B}", "\u{7}", "\0", "\u{7F}", "\u{9B}", "\u{85}", "\r\n"] as [Character])
    func controlRefused(_ character: Character) {
        var form = teamForm()
        type("ab", into: &form)
        #expect(form.handle(.character(character)) == .editing)
        #expect(form.values[0] == "ab")
        #expect(form.fields[0].caret == 2)
        #expect(form.message == "Control characters are not allowed.")
        type("c", into: &form)
        #expect(form.values[0] == "abc")
        #expect(form.message == nil)
    }

    @Test("An escape sequence typed character by character keeps only its printable part")
    func escapeSequence() {
        var form = teamForm()
        type("\u{1B}[31mRed", into: &form)
        #expect(form.values[0] == "[31mRed")
        #expect(!form.values[0].unicodeScalars.contains { $0.properties.generalCategory == .control })
    }

    @Test("The maximum length is enforced with a message")
    func maxLength() {
        var form = FormDialog(title: "Code", fields: [FormDialog.Field(label: "Code", maxLength: 3)])
        type("abcd", into: &form)
        #expect(form.values == ["abc"])
        #expect(form.message == "Code is limited to 3 characters.")
        _ = form.handle(.backspace)
        #expect(form.message == nil)
        type("dé日", into: &form)
        #expect(form.values == ["abd"])
    }

    @Test("The default maximum is 64 characters")
    func defaultMaxLength() {
        var form = teamForm()
        type(String(repeating: "x", count: 65), into: &form)
        #expect(form.values[0].count == 64)
        #expect(form.message == "Team Name is limited to 64 characters.")
    }

    @Test("A text cut at the maximum is not saved without a word: the first Enter says so, the next saves it")
    func cutTextNeedsASecondEnter() {
        var form = FormDialog(title: "Team", fields: [FormDialog.Field(label: "Team Name", maxLength: 64), FormDialog.Field(label: "Zone")])
        type(String(repeating: "x", count: 200), into: &form)
        _ = form.handle(.tab)
        type("Europe", into: &form)
        #expect(form.handle(.enter) == .editing)
        #expect(form.message == "Team Name was cut to its first 64 characters: Enter saves it so.")
        #expect(form.focus == 0)
        #expect(form.handle(.enter) == .submitted)
        #expect(form.values == [String(repeating: "x", count: 64), "Europe"])
    }

    @Test("Emoji and CJK are typed as single characters")
    func wideCharacters() {
        var form = teamForm()
        type("日本😀", into: &form)
        #expect(form.values[0] == "日本😀")
        #expect(form.fields[0].caret == 3)
        _ = form.handle(.backspace)
        #expect(form.values[0] == "日本")
    }

    @Test("A combining mark typed after its letter keeps the caret within the text")
    func combiningMarkKeepsCaretValid() {
        // A terminal delivers one scalar per key, so pasting a decomposed "é" (e, U+0301),
        // a flag (two regional indicators) or a ZWJ emoji sends several keys that merge into
        // one Character: the caret counts keys and ends up past the end of the text.
        var form = teamForm()
        type("e", into: &form)
        _ = form.handle(.character("\u{301}"))
        #expect(form.values[0] == "e\u{301}")
        #expect(form.fields[0].caret <= form.fields[0].text.count)
    }

    @Test("Typing after a merged scalar does not crash")
    func combiningMarkThenTyping() async {
        await #expect(processExitsWith: .success) {
            var form = FormDialog(title: "T", fields: [FormDialog.Field(label: "Name")])
            _ = form.handle(.character("🇫"))
            _ = form.handle(.character("🇷"))  // merges with 🇫 into one flag Character
            _ = form.handle(.character("x"))
        }
    }
}

/// A prefilled field is a selected default, as in any text field: typed over, cleared by
/// Backspace, kept for editing by the caret keys, accepted by Enter.
@Suite("FormDialog: a prefilled field is a selected default")
struct FormDialogSelectedDefaultTests {
    @Test("Prefilled fields start selected; empty ones do not")
    func startsSelected() {
        let form = teamForm()
        #expect(!form.fields[0].isSelected)
        #expect(form.fields[1].isSelected)
        #expect(!teamForm(zone: "").fields[1].isSelected)
    }

    @Test("The first typed character replaces the default: Tab, Oceania gives Oceania, not AfricaOceania")
    func typingReplaces() {
        var form = teamForm()
        type("Wenderland", into: &form)
        _ = form.handle(.tab)
        type("Oceania", into: &form)
        #expect(form.values == ["Wenderland", "Oceania"])
        #expect(form.fields[1].caret == 7)
        #expect(!form.fields[1].isSelected)
        #expect(form.handle(.enter) == .submitted)
        #expect(form.values == ["Wenderland", "Oceania"])
    }

    @Test("Enter accepts the default as it is, even from another field")
    func enterAccepts() {
        var form = teamForm()
        type("Wenderland", into: &form)
        #expect(form.handle(.enter) == .submitted)
        #expect(form.values == ["Wenderland", "Africa"])
    }

    @Test("Backspace, Delete and Ctrl-U clear the default", arguments: [Key.backspace, .delete, .control("u")])
    func clearing(_ key: Key) {
        var form = teamForm()
        _ = form.handle(.tab)
        _ = form.handle(key)
        #expect(form.values[1] == "")
        #expect(form.fields[1].caret == 0)
        #expect(!form.fields[1].isSelected)
        type("Asia", into: &form)
        #expect(form.values[1] == "Asia")
    }

    @Test("→, End and Ctrl-E keep the default for editing, the caret at its end", arguments: [Key.right, .end, .control("e")])
    func keepAtEnd(_ key: Key) {
        var form = teamForm()
        _ = form.handle(.tab)
        _ = form.handle(key)
        #expect(!form.fields[1].isSelected)
        #expect(form.fields[1].caret == 6)
        type("n", into: &form)
        _ = form.handle(.backspace)
        _ = form.handle(.backspace)
        #expect(form.values[1] == "Afric")
    }

    @Test("←, Home and Ctrl-A keep the default for editing, the caret at its start", arguments: [Key.left, .home, .control("a")])
    func keepAtStart(_ key: Key) {
        var form = teamForm()
        _ = form.handle(.tab)
        _ = form.handle(key)
        #expect(!form.fields[1].isSelected)
        #expect(form.fields[1].caret == 0)
        type("North ", into: &form)
        #expect(form.values[1] == "North Africa")
    }

    @Test("Moving between fields keeps the selection; a refused character leaves the default alone")
    func selectionSurvivesFocusAndRefusals() {
        var form = teamForm()
        _ = form.handle(.tab)
        _ = form.handle(.tab)
        _ = form.handle(.backTab)
        #expect(form.fields[1].isSelected)
        _ = form.handle(.character("\u{1B}"))
        #expect(form.values[1] == "Africa")
        #expect(form.fields[1].isSelected)
        #expect(form.message == "Control characters are not allowed.")
        _ = form.handle(.function(1))
        #expect(form.fields[1].isSelected)
    }

    @Test("A default as long as the limit is still typed over")
    func longDefaultTypedOver() {
        var form = FormDialog(title: "Code", fields: [FormDialog.Field(label: "Code", text: "abc", maxLength: 3)])
        type("xy", into: &form)
        #expect(form.values == ["xy"])
        #expect(form.message == nil)
    }

    @Test("The default is drawn in the selection style, and typed text in the field's")
    func drawnHighlighted() {
        var form = teamForm()
        let area = Rect(x: 0, y: 0, width: 60, height: 14)
        var grid = Grid(width: 60, height: 14)
        form.render(into: &grid, area: area, frame: Style(reverse: true), field: Style(underline: true), selection: Style(dim: true), error: .plain)
        // The zone's field starts at (22, 6), as in the rendering tests.
        #expect(lines(grid)[6].contains("Qualifying Zone Africa"))
        #expect(grid[22, 6].style == Style(dim: true))
        #expect(grid[27, 6].style == Style(dim: true))
        #expect(grid[28, 6].style == Style(underline: true))
        // Without a selection style: the field's own style, reversed.
        grid = Grid(width: 60, height: 14)
        form.render(into: &grid, area: area, frame: Style(reverse: true), field: Style(underline: true), error: .plain)
        #expect(grid[22, 6].style == Style(reverse: true, underline: true))
        _ = form.handle(.tab)
        type("Oc", into: &form)
        grid = Grid(width: 60, height: 14)
        form.render(into: &grid, area: area, frame: Style(reverse: true), field: Style(underline: true), selection: Style(dim: true), error: .plain)
        #expect(lines(grid)[6].contains("Qualifying Zone Oc "))
        #expect(grid[22, 6].style == Style(underline: true))
    }
}
