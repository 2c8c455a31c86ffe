import LiveResults
import TerminalUI

/// Keys and the mouse: each key goes to what shows (a dialog, the help, the question or the
/// filter) or else to the table, whose keys and clicks move the cursor, tap, add and delete.
extension BoardModel {
    /// One key: in the dialog when it is open, in the help, the question or the filter while
    /// they show, on the table otherwise.
    mutating func handle(_ key: Key, data: some BoardData, now: Double) -> [BoardEffect] {
        // A click hits the table as it was drawn, before a message fades and gives its lines back.
        var drawnTable: TableView?
        if case .mouse = key { drawnTable = tableAsDrawn(width: screenSize.width, height: screenSize.height).table }
        // A message fades at the next key, unless it asks a question.
        if !isAskingQuestion { status = nil }
        switch mode {
        case .adding(let form):
            return handleAddDialog(key, form: form, data: data, now: now)
        case .editing(let form, let team):
            return handleEditDialog(key, form: form, team: team, data: data, now: now)
        case .help(let panel):
            handleHelp(key, panel: panel)
            return []
        case .confirmingDelete(let id, let name):
            return answerDelete(key, id: id, name: name, now: now)
        case .renamingZone(let form, let zone):
            return handleZoneRenameDialog(key, form: form, zone: zone, now: now)
        case .confirmingMerge(let question):
            return answerMerge(key, question: question, now: now)
        case .filtering:
            if let effects = handleFilter(key, data: data) { return effects }
        case .browsing:
            break
        }
        if readOnly != nil, Self.changesTeams(key) {
            refuseChange(now: now)
            return []
        }
        switch key {
        case .up, .character("k"): table.moveCursor(by: -1)
        case .down, .character("j"): table.moveCursor(by: 1)
        case .pageUp, .control("b"): table.page(by: -1)
        case .pageDown, .control("f"): table.page(by: 1)
        case .home, .character("g"): table.moveCursorToStart()
        case .end, .character("G"): table.moveCursorToEnd()
        case .tab: table.moveCursorToSection(offset: 1)
        case .backTab: table.moveCursorToSection(offset: -1)
        case .enter: return selectedID(data).map { [.tap($0)] } ?? []
        case .character("+"): openAddDialog(data: data)
        case .character("d"), .delete: askToDeleteSelectedTeam(data: data, now: now)
        case .character("e"): openEditDialog(data: data)
        case .character("r"): openZoneRenameDialog(data: data)
        case .character("["): return moveZoneUnderCursor(up: true, data: data, now: now)
        case .character("]"): return moveZoneUnderCursor(up: false, data: data, now: now)
        case .character("u"): return undoWaitsForSaving(now: now) ? [] : undoLast(now: now)
        case .control("r"): return undoWaitsForSaving(now: now) ? [] : redoLast(now: now)
        case .character("?"): mode = .help(KeyHelpPanel(entries: Self.keyHelp))
        case .character("/"): return openFilter(data: data)
        case .escape where filter != nil: return clearFilter(data: data)
        // Esc cancels and clears; it never quits (a key sequence cut short would end the board).
        case .escape: say(Self.howToQuit, now: now)
        case .character("q"): wantsToQuit = true
        case .mouse(let event): return handleMouse(event, hitting: drawnTable ?? table, data: data, now: now)
        default: break
        }
        return []
    }

    /// Whether a key on the table would change the teams or the zones: tap, add, delete, edit,
    /// undo, redo, a zone's rename and moves.
    static func changesTeams(_ key: Key) -> Bool {
        switch key {
        case .enter, .character("+"), .character("d"), .delete, .character("e"), .character("u"), .control("r"),
             .character("r"), .character("["), .character("]"): true
        default: false
        }
    }

    /// Says, on the status line, why a read-only board changes nothing; nothing is sent.
    mutating func refuseChange(now: Double) {
        guard let readOnly else { return }
        say(readOnly.refusal.description, isError: true, for: Self.errorSeconds, now: now)
    }

    /// A click selects a row, a double-click taps it, the wheel scrolls; a click on a header
    /// or a title of the section index shows that section from its first team.
    private mutating func handleMouse(_ event: MouseEvent, hitting drawn: TableView, data: some BoardData, now: Double) -> [BoardEffect] {
        switch event.action {
        case .scrollUp: table.scroll(by: -Self.wheelLines)
        case .scrollDown: table.scroll(by: Self.wheelLines)
        case .click, .doubleClick:
            switch drawn.hit(x: event.x, y: event.y) {
            case .row(let position):
                table.select(position)
                guard event.action == .doubleClick, let id = data.id(at: position) else { break }
                if readOnly != nil { refuseChange(now: now) } else { return [.tap(id)] }
            case .header(let section):
                table.showSection(section)
            case .indexTitle(let index):
                let title = table.sectionIndexTitles[index]
                table.showSection(data.section(forIndexTitle: title, at: index))
            case nil:
                break
            }
        }
        return []
    }
}

extension BoardModel {
    /// The table as it is drawn, and the status line's lines. A status sentence longer than the
    /// line takes the lines above it, never cut: the table gives them up while it shows (a copy
    /// laid out shorter, which keeps the cursor in view). Without a sentence, the changes being
    /// saved are named there. The mouse hits the table as drawn.
    func tableAsDrawn(width: Int, height: Int) -> (table: TableView, statusLines: [String]) {
        let statusText = isEditingFilter ? nil : status.map(\.text) ?? savingNote
        let column = Self.contentColumn(width: width)
        let statusLines = statusText.map { BoardView.statusLines($0, width: column.width - 1, height: height) } ?? []
        var drawn = table
        if statusLines.count > 1 {
            var area = Self.tableArea(width: width, height: height)
            area.height -= statusLines.count - 1
            drawn.layout(in: area)
        }
        return (drawn, statusLines)
    }
}
