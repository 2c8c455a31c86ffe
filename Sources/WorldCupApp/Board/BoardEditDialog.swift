import LiveResults
import TerminalUI
import WorldCup

/// `e`: the edit dialog, the add dialog's fields plus Wins, each filled in with the team's
/// value as a suggestion (typing replaces it, → keeps it to edit at its end).
extension BoardModel {
    /// Opens the edit dialog for the team under the cursor.
    mutating func openEditDialog(data: some BoardData) {
        guard let team = table.cursor.flatMap({ data.team(at: $0) }), team.id != nil else { return }
        mode = .editing(FormDialog(title: "Edit Team", subtitle: "Change \(team.teamName)", fields: [
            FormDialog.Field(label: "Team Name", text: team.teamName, maxLength: TeamValidation.maximumLength),
            FormDialog.Field(label: "Qualifying Zone", text: team.qualifyingZone, maxLength: TeamValidation.maximumLength),
            FormDialog.Field(label: "Wins", text: String(team.wins), maxLength: 10),
        ]), team: team)
    }

    /// A key in the edit dialog: typing edits it, Esc closes it, Enter asks to save what
    /// changed (the dialog stays open until the store says whether it took it).
    mutating func handleEditDialog(_ key: Key, form: FormDialog, team: Team, data: some BoardData, now: Double) -> [BoardEffect] {
        var form = form
        switch form.handle(key) {
        case .editing:
            // As in the add dialog: a zone typed in another spelling says which zone it joins.
            showZoneSpelling(in: &form, data: data)
            mode = .editing(form, team: team)
        case .cancelled:
            mode = .browsing
            // Values being saved are not taken back by closing: the status line says so until their outcome.
            if !(team.id.map(isSaving(teamID:)) ?? false) { say("\(team.teamName) kept as it was.", now: now) }
        case .submitted:
            mode = .editing(form, team: team)
            switch Self.edit(of: team, values: form.values) {
            case .failure(let error):
                form.message = error.description
                form.messageIsHint = false
                mode = .editing(form, team: team)
            case .success(nil):
                mode = .browsing
                say("\(team.teamName) kept as it was: nothing changed.", now: now)
            case .success(let effect?):
                return [effect]
            }
        }
        return []
    }

    /// The effect that saves the dialog's values: only the fields that differ from the
    /// team's (others' changes to the rest stay); nil when none does. A name or zone is
    /// checked by the store, as an add's; the wins here, as they must be a number.
    static func edit(of team: Team, values: [String]) -> Result<BoardEffect?, WorldCupError> {
        let name = TeamValidation.trimmed(values[0]), zone = TeamValidation.trimmed(values[1])
        let winsText = TeamValidation.trimmed(values[2])
        guard let wins = Int(winsText), (0...Seed.maximumWins).contains(wins) else {
            return .failure(WorldCupError("The wins must be a whole number from 0 to \(Seed.maximumWins)."))
        }
        let newName = name == team.teamName ? nil : values[0]
        let newZone = zone == team.qualifyingZone ? nil : values[1]
        let newWins = wins == team.wins ? nil : wins
        guard let id = team.id, newName != nil || newZone != nil || newWins != nil else { return .success(nil) }
        return .success(.edit(id: id, name: newName, zone: newZone, wins: newWins))
    }
}
