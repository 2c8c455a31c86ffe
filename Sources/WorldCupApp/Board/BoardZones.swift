import LiveResults
import TerminalUI
import WorldCup

/// The zone of the team under the cursor, as the board shows it: its id (the section's
/// identifier, the zone table's key) and its name (the section's title).
struct ZoneOnBoard: Equatable {
    var id: Int64
    var name: String
}

/// `r` renames the zone under the cursor (a dialog of one field, its name prefilled); a name
/// of another zone asks to merge into it (y/N on the status line, as a delete asks). `[` and
/// `]` move it above the zone shown before it, or below the one shown after it. Each is one
/// write of the store, one history entry, taken back by `u` like any other change.
extension BoardModel {
    /// The zone of the section the cursor is in; nil on an empty board.
    func zoneUnderCursor(data: some BoardData) -> ZoneOnBoard? {
        guard let section = table.cursor?.section else { return nil }
        return zone(ofSection: section, data: data)
    }

    /// The zone a section shows, nil when the section is not a zone's (its identifier is no id).
    private func zone(ofSection section: Int, data: some BoardData) -> ZoneOnBoard? {
        let sections = data.tableSections
        guard sections.indices.contains(section), let id = data.sectionIdentifier(section).flatMap({ Int64($0) }) else { return nil }
        return ZoneOnBoard(id: id, name: sections[section].title)
    }

    /// `r`: opens the rename dialog for the zone under the cursor, its name prefilled.
    mutating func openZoneRenameDialog(data: some BoardData) {
        guard let zone = zoneUnderCursor(data: data) else { return }
        mode = .renamingZone(FormDialog(title: "Rename Zone", subtitle: "A new name for \(zone.name)", fields: [
            FormDialog.Field(label: "Zone Name", text: zone.name, maxLength: TeamValidation.maximumLength),
        ]), zone: zone)
    }

    /// A key in the rename dialog: typing edits it, Esc closes it, Enter asks to rename (the
    /// dialog stays open until the store says whether it took the name). An empty name, or the
    /// name unchanged, closes it and says so: nothing is asked of the store.
    mutating func handleZoneRenameDialog(_ key: Key, form: FormDialog, zone: ZoneOnBoard, now: Double) -> [BoardEffect] {
        var form = form
        switch form.handle(key) {
        case .editing:
            mode = .renamingZone(form, zone: zone)
        case .cancelled:
            mode = .browsing
            // A name being saved is not taken back by closing: the status line says so until its outcome.
            if !isSaving(zoneID: zone.id) { say("\(Self.quotedName(zone.name)) kept its name.", now: now) }
        case .submitted:
            let name = TeamValidation.trimmed(form.values[0])
            if name.isEmpty {
                mode = .browsing
                say("A zone needs a name: \(Self.quotedName(zone.name)) kept its name.", isError: true, for: Self.errorSeconds, now: now)
            } else if name == zone.name {
                mode = .browsing
                say("\(Self.quotedName(zone.name)) kept its name: nothing changed.", now: now)
            } else {
                mode = .renamingZone(form, zone: zone)
                return [.renameZone(id: zone.id, name: zone.name, to: form.values[0])]
            }
        }
        return []
    }

    /// `[` (`up`) or `]`: asks to move the zone under the cursor above the zone shown before
    /// it, or below the one shown after it; at the top or the bottom says so, and asks nothing.
    mutating func moveZoneUnderCursor(up: Bool, data: some BoardData, now: Double) -> [BoardEffect] {
        guard let section = table.cursor?.section, let zone = zone(ofSection: section, data: data) else { return [] }
        // The zones shown: empty ones (and, while filtered, those without a match) are not.
        let sections = data.tableSections
        var next = section + (up ? -1 : 1)
        while sections.indices.contains(next), sections[next].rowCount == 0 { next += up ? -1 : 1 }
        guard let neighbour = self.zone(ofSection: next, data: data) else {
            let end = up ? "first" : "last"
            say("\(Self.quotedName(zone.name)) is the \(end) zone \(filter == nil ? "already" : "shown"): nothing moved.", now: now)
            return []
        }
        return [.moveZone(id: zone.id, name: zone.name, nextTo: neighbour.id)]
    }

    /// The answer to the merge question: y or Y merges, any other key keeps both zones.
    mutating func answerMerge(_ key: Key, question: ZoneMergeNeeded, now: Double) -> [BoardEffect] {
        mode = .browsing
        guard key == .character("y") || key == .character("Y"), let id = question.zone.id, let into = question.into.id else {
            say("Nothing merged: \(Self.quotedName(question.zone.name)) kept its name.", now: now)
            return []
        }
        return [.mergeZone(id: id, name: question.zone.name, into: into)]
    }

    /// The outcomes of the zone's writes.
    mutating func updateForZones(_ event: BoardEvent, now: Double) {
        switch event {
        case .zoneChanged(let change):
            if case .renamingZone = mode { mode = .browsing }
            recordOwn(change)
            say(change.summary, now: now)
        case .zoneMergeAsked(let question):
            switch mode {
            case .renamingZone, .browsing:
                mode = .confirmingMerge(question)
                say(question.question + " y/N", isError: true, for: nil, now: now)
            default:
                // Its dialog was closed, and another dialog or question holds the keys now.
                say("\(Self.quotedName(question.into.name)) is already a zone, so \(Self.quotedName(question.zone.name)) was not renamed.",
                    isError: true, for: Self.errorSeconds, now: now)
            }
        case .zoneRenameRefused(let message):
            if case .renamingZone(var form, let zone) = mode {
                form.message = message
                form.messageIsHint = false
                mode = .renamingZone(form, zone: zone)
            }
        default:
            break
        }
    }

    /// Whether a change of the zone with this id is being saved.
    func isSaving(zoneID: Int64) -> Bool {
        pendingWrites.contains { $0.effect.subject == .zone(zoneID) }
    }

    static func quotedName(_ name: String) -> String {
        WorldCupError.quotable(name, limit: 40)
    }
}
