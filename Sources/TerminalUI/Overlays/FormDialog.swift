/// A modal form: a title, labelled text fields, and a message line for errors.
///
/// The dialog edits its own text; the owner decides what Enter means (usually: validate,
/// then either save and close or show `message`).
public struct FormDialog: Sendable {
    /// One text field.
    public struct Field: Sendable {
        public var label: String
        public var text: String
        /// Where the caret is, in characters.
        public var caret: Int
        /// Whether the whole text is selected, as a prefilled field starts: a suggestion, drawn
        /// highlighted, that the first typed character replaces, Backspace, Delete or Ctrl-U
        /// clear, → End ← Home keep for editing (the caret at that end), and Enter accepts.
        public var isSelected: Bool
        /// The most characters the field accepts.
        public var maxLength: Int

        /// A field; prefilled `text` starts selected, so it behaves as a default to accept or
        /// type over, never as text to append to.
        public init(label: String, text: String = "", maxLength: Int = 64) {
            self.label = label
            self.text = text
            self.caret = text.count
            self.isSelected = !text.isEmpty
            self.maxLength = maxLength
        }

        /// Drops the selection and puts the caret at its start or end, keeping the text.
        mutating func keepSelection(caretAtEnd: Bool) {
            isSelected = false
            caret = caretAtEnd ? text.count : 0
        }

        /// Removes all the text.
        mutating func clear() {
            text = ""
            caret = 0
            isSelected = false
        }
    }

    /// What a key did to the dialog.
    public enum Outcome: Equatable, Sendable {
        case editing
        case submitted
        case cancelled
    }

    public var title: String
    public var subtitle: String
    public private(set) var fields: [Field]
    public private(set) var focus = 0
    /// An error or hint shown under the fields.
    public var message: String?
    /// Whether `message` is a hint (drawn in the frame's style) rather than an error.
    public var messageIsHint = false
    /// The fields whose typed text (a paste, usually) was cut at their most characters, and not
    /// yet said at an Enter: the first Enter after a cut says so instead of submitting, so that
    /// a cut text is never saved without a word.
    public private(set) var cutFields: Set<Int> = []

    public init(title: String, subtitle: String = "", fields: [Field]) {
        precondition(!fields.isEmpty, "a form needs at least one field")
        self.title = title
        self.subtitle = subtitle
        self.fields = fields
    }

    /// The texts of the fields, in order.
    public var values: [String] { fields.map(\.text) }

    /// Handles a key: typing edits the focused field, Tab and arrows move between fields,
    /// Enter submits and Esc cancels. A selected (prefilled) field's text is replaced by the
    /// first typed character, cleared by Backspace, Delete or Ctrl-U, and kept for editing by
    /// the keys that move the caret.
    public mutating func handle(_ key: Key) -> Outcome {
        if fields[focus].isSelected, handleSelected(key) { return .editing }
        switch key {
        case .escape: return .cancelled
        case .enter:
            guard let cut = cutFields.min() else { return .submitted }
            cutFields = []
            focus = cut
            message = "\(fields[cut].label) was cut to its first \(fields[cut].maxLength) characters: Enter saves it so."
            messageIsHint = false
        case .tab, .down: focus = (focus + 1) % fields.count
        case .backTab, .up: focus = (focus + fields.count - 1) % fields.count
        case .left: fields[focus].caret = max(0, fields[focus].caret - 1)
        case .right: fields[focus].caret = min(fields[focus].text.count, fields[focus].caret + 1)
        case .home, .control("a"): fields[focus].caret = 0
        case .end, .control("e"): fields[focus].caret = fields[focus].text.count
        case .backspace:
            guard fields[focus].caret > 0 else { break }
            let text = fields[focus].text
            let index = text.index(text.startIndex, offsetBy: fields[focus].caret - 1)
            fields[focus].text.remove(at: index)
            fields[focus].caret -= 1
            message = nil
        case .delete:
            let text = fields[focus].text
            guard fields[focus].caret < text.count else { break }
            fields[focus].text.remove(at: text.index(text.startIndex, offsetBy: fields[focus].caret))
            message = nil
        case .control("u"):
            fields[focus].clear()
            message = nil
        case .character(let character):
            insert(character)
        default: break
        }
        return .editing
    }

    /// The keys that act on a selection rather than on the caret; false for the others.
    private mutating func handleSelected(_ key: Key) -> Bool {
        switch key {
        case .left, .home, .control("a"): fields[focus].keepSelection(caretAtEnd: false)
        case .right, .end, .control("e"): fields[focus].keepSelection(caretAtEnd: true)
        case .backspace, .delete, .control("u"):
            fields[focus].clear()
            message = nil
        default: return false
        }
        return true
    }

    /// Types a character at the caret; control characters are refused, overlong text is cut.
    private mutating func insert(_ character: Character) {
        guard !character.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            message = "Control characters are not allowed."
            return
        }
        // A selected default is typed over, as in any text field.
        if fields[focus].isSelected { fields[focus].clear() }
        guard fields[focus].text.count < fields[focus].maxLength else {
            message = "\(fields[focus].label) is limited to \(fields[focus].maxLength) characters."
            cutFields.insert(focus)
            return
        }
        // A combining mark or a flag half can merge with the character before the caret,
        // so the caret is recounted rather than advanced by one.
        let text = fields[focus].text
        let split = text.index(text.startIndex, offsetBy: min(fields[focus].caret, text.count))
        let before = String(text[..<split]) + String(character)
        fields[focus].text = before + String(text[split...])
        fields[focus].caret = min(before.count, fields[focus].text.count)
        message = nil
    }

    /// Draws the dialog centred in `area`. Returns where the terminal caret belongs.
    /// - Parameter selectionStyle: how a selected (prefilled) field's text is drawn; nil:
    ///   the field's style reversed.
    @discardableResult
    public func render(into grid: inout Grid, area: Rect, frame: Style, field fieldStyle: Style, selection selectionStyle: Style? = nil,
                       error errorStyle: Style) -> (x: Int, y: Int) {
        var reversedField = fieldStyle
        reversedField.reverse.toggle()
        let selected = selectionStyle ?? reversedField
        let labelWidth = fields.map { DisplayText.width($0.label) }.max() ?? 0
        let width = min(area.width, max(52, labelWidth + 30))
        // The message is wrapped to the box, which grows by its extra lines.
        let messageLines = message.map { DisplayText.wrap($0, toWidth: max(1, width - 4)) } ?? []
        let height = min(area.height, 6 + fields.count * 2 + max(0, messageLines.count - 1))
        let box = Rect(x: area.x + (area.width - width) / 2, y: area.y + (area.height - height) / 2, width: width, height: height)
        grid.fill(box, style: frame)
        let right = box.x + box.width - 1
        grid.write(String(repeating: "─", count: max(0, box.width - 2)), x: box.x + 1, y: box.y, style: frame)
        grid.write(String(repeating: "─", count: max(0, box.width - 2)), x: box.x + 1, y: box.y + box.height - 1, style: frame)
        for y in box.y..<(box.y + box.height) {
            grid.write(y == box.y ? "┌" : y == box.y + box.height - 1 ? "└" : "│", x: box.x, y: y, style: frame)
            grid.write(y == box.y ? "┐" : y == box.y + box.height - 1 ? "┘" : "│", x: right, y: y, style: frame)
        }
        var titleStyle = frame
        titleStyle.bold = true
        let heading = subtitle.isEmpty ? title : "\(title): \(subtitle)"
        grid.write(DisplayText.truncate(" \(heading) ", toWidth: box.width - 4), x: box.x + 2, y: box.y, style: titleStyle)
        var caret = (x: box.x + 2, y: box.y + 2)
        for (index, field) in fields.enumerated() {
            let y = box.y + 2 + index * 2
            guard y < box.y + box.height - 1 else { break }
            grid.write(field.label, x: box.x + 2, y: y, style: titleStyle, limit: labelWidth)
            let fieldX = box.x + 3 + labelWidth
            let fieldWidth = max(1, right - 1 - fieldX)
            grid.fill(Rect(x: fieldX, y: y, width: fieldWidth, height: 1), style: fieldStyle)
            // Show the end of long text so the caret stays visible.
            let glyphs = DisplayText.glyphs(String(field.text.prefix(field.caret)))
            var shown = glyphs
            var used = shown.reduce(0) { $0 + $1.width }
            while used > fieldWidth - 1, !shown.isEmpty { used -= shown.removeFirst().width }
            let after = DisplayText.glyphs(String(field.text.dropFirst(field.caret)))
            let textStyle = field.isSelected ? selected : fieldStyle
            let end = grid.write(shown, x: fieldX, y: y, style: textStyle, limit: fieldWidth)
            grid.write(after, x: end, y: y, style: textStyle, limit: fieldX + fieldWidth - end)
            if index == focus { caret = (end, y) }
        }
        // Above the bottom line, under the fields; cut only when the screen is too short for every line.
        let messageTop = max(box.y + 1 + fields.count * 2, box.y + box.height - 1 - messageLines.count)
        // An error without a background of its own is drawn on the box's.
        var boxedError = errorStyle
        if boxedError.background == nil { boxedError.background = frame.background }
        for (index, line) in messageLines.enumerated() where messageTop + index < box.y + box.height - 1 {
            grid.write(DisplayText.truncate(line, toWidth: box.width - 4), x: box.x + 2, y: messageTop + index, style: messageIsHint ? frame : boxedError)
        }
        // One field has nothing to move between.
        let hint = fields.count > 1 ? " Tab: field · Enter: save · Esc: cancel " : " Enter: save · Esc: cancel "
        grid.write(DisplayText.truncate(hint, toWidth: box.width - 4), x: box.x + 2, y: box.y + box.height - 1, style: frame)
        return caret
    }
}
