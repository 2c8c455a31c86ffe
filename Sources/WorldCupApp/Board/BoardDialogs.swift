import LiveResults
import TerminalUI
import WorldCup

/// The board's dialogs: the add dialog, the y/N question before a delete, and the key help.
extension BoardModel {
    /// A key in the add dialog: typing edits it, Esc closes it, Enter asks to add the team
    /// (the dialog stays open until the store says whether it took it).
    mutating func handleAddDialog(_ key: Key, form: FormDialog, data: some BoardData, now: Double) -> [BoardEffect] {
        var form = form
        switch form.handle(key) {
        case .editing:
            showZoneSpelling(in: &form, data: data)
            mode = .adding(form)
        case .cancelled:
            mode = .browsing
            // Values being saved are not taken back by closing: the status line says so until their outcome.
            if !isSavingAnAdd { say("No team added.", now: now) }
        case .submitted:
            mode = .adding(form)
            return [.add(name: form.values[0], zone: form.values[1])]
        }
        return []
    }

    /// The answer to "Delete …? y/N": y or Y deletes the team, any other key keeps it.
    mutating func answerDelete(_ key: Key, id: RecordID, name: String, now: Double) -> [BoardEffect] {
        mode = .browsing
        guard key == .character("y") || key == .character("Y") else {
            say("Kept \(name).", now: now)
            return []
        }
        return [.delete(id: id, name: name)]
    }

    /// Opens the add dialog, its zone filled in with the zone of the team under the cursor.
    mutating func openAddDialog(data: some BoardData) {
        let zone = table.cursor.flatMap { data.team(at: $0) }?.qualifyingZone ?? ""
        mode = .adding(FormDialog(title: "Secret Team", subtitle: "Add a new team", fields: [
            FormDialog.Field(label: "Team Name", maxLength: TeamValidation.maximumLength),
            FormDialog.Field(label: "Qualifying Zone", text: zone, maxLength: TeamValidation.maximumLength),
        ]))
    }

    /// The start of the dialog's hint that shows how the board spells the zone being typed.
    static let zoneSpellingHint = "Joins the zone "

    /// As the zone (the second field, in the add and the edit dialog) is typed: when it is a
    /// zone of the board spelt in another case or normalisation, the dialog says which one it
    /// joins, as the board spells it (the store saves it so). Any other message stays until
    /// the next such hint.
    func showZoneSpelling(in form: inout FormDialog, data: some BoardData) {
        let typed = form.values[1]
        let zones = data.tableSections.lazy.map(\.title)
        if let zone = Team.existingSpelling(ofZone: typed, among: zones), zone != TeamValidation.trimmed(typed) {
            form.message = "\(Self.zoneSpellingHint)“\(zone)”, as the board spells it."
            form.messageIsHint = true
        } else if form.messageIsHint {
            form.message = nil
            form.messageIsHint = false
        }
    }

    /// Asks "Delete …? y/N" about the team under the cursor.
    mutating func askToDeleteSelectedTeam(data: some BoardData, now: Double) {
        guard let team = table.cursor.flatMap({ data.team(at: $0) }), let id = team.id else { return }
        mode = .confirmingDelete(id: id, name: team.teamName)
        say("Delete \(team.teamName)? y/N", isError: true, for: nil, now: now)
    }

    /// A key while the help shows: the moving keys and the wheel scroll it, any other key
    /// (q and Esc too, as in less and man) closes it without acting.
    mutating func handleHelp(_ key: Key, panel: KeyHelpPanel) {
        var panel = panel
        let area = Rect(x: 0, y: 0, width: screenSize.width, height: screenSize.height)
        let page = panel.pageSize(in: area)
        switch key {
        case .up, .character("k"): panel.scroll(by: -1, in: area)
        case .down, .character("j"): panel.scroll(by: 1, in: area)
        case .mouse(let event) where event.action == .scrollUp: panel.scroll(by: -Self.wheelLines, in: area)
        case .mouse(let event) where event.action == .scrollDown: panel.scroll(by: Self.wheelLines, in: area)
        case .pageUp, .control("b"): panel.scroll(by: -page, in: area)
        case .pageDown, .control("f"): panel.scroll(by: page, in: area)
        case .home, .character("g"): panel.scroll(by: -panel.scrollOffset, in: area)
        case .end, .character("G"): panel.scroll(by: Int(Int32.max), in: area)
        case .unknown:
            // Alt with a key, or a sequence the terminal description does not know.
            break
        default:
            mode = .browsing
            return
        }
        mode = .help(panel)
    }
}
