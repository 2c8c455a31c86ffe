import Foundation
import LiveResults
import TerminalUI
import WorldCup

extension BoardModel {
    /// Updates the board for one event at time `now`, reading the result from `data`, and
    /// returns the effects to perform, in order.
    mutating func update(_ event: BoardEvent, data: some BoardData, now: Double) -> [BoardEffect] {
        let effects = apply(event, data: data, now: now)
        showOthersWaiting(now: now)
        return effects
    }

    private mutating func apply(_ event: BoardEvent, data: some BoardData, now: Double) -> [BoardEffect] {
        switch event {
        case .key(let key):
            arrivingSelection = nil
            return handle(key, data: data, now: now)
        case let .resized(width, height):
            screenSize = (width, height)
            table.layout(in: Self.tableArea(width: width, height: height))
        case .tick:
            table.expireFlashes(now: now)
            if let expiry = status?.expiry, now >= expiry { status = nil }
        case let .batch(update, selection):
            table.apply(update, sections: data.tableSections, now: now)
            // A row that leaves a section as it goes (a zone merged into another) or enters one
            // as it comes is a delete and an insert, not a move: the cursor finds its team again.
            if let selection, selectedID(data) != selection, let position = data.position(of: selection) { table.select(position) }
            selectArrived(data)
            refresh(from: data)
        case .reset(let selection):
            reload(from: data)
            if let selection, let position = data.position(of: selection) { table.select(position) }
            selectArrived(data)
        case .changedElsewhere:
            showOthersChanges(OthersNotice(), now: now)
        case let .changedBy(entries, more):
            showOthersChanges(OthersNotice(entries, more: more), now: now)
        case let .finished(effect, outcome):
            endWrite(effect)
            if case .tap(let id) = effect {
                finishTap(of: id, outcome, now: now)
                return []
            }
            if let message = refusalOfClosedDialog(outcome) {
                // The dialog was closed while its values were being saved: the status line says why they were not.
                say(message, isError: true, for: Self.errorSeconds, now: now)
                return []
            }
            return apply(outcome, data: data, now: now)
        case .tapped(let tap):
            recordOwn(tap)
            let team = tap.team
            say("\(team.teamName): \(team.wins) \(team.wins == 1 ? "win" : "wins").", now: now)
        case .added(let add):
            mode = .browsing
            recordOwn(add)
            let team = add.team
            if let id = team.id, let position = data.position(of: id) {
                table.select(position)
                say("Added \(team.teamName) to \(team.qualifyingZone).", now: now)
            } else if let id = team.id, filter == nil {
                arrivingSelection = id
                say("Added \(team.teamName) to \(team.qualifyingZone).", now: now)
            } else {
                say("Added \(team.teamName) to \(team.qualifyingZone); the filter hides it.", now: now)
            }
        case .addRefused(let message):
            if case .adding(var form) = mode {
                form.message = message
                form.messageIsHint = false
                mode = .adding(form)
            }
        case .deleted(let delete):
            recordOwn(delete)
            say("Deleted \(delete.team.teamName).", now: now)
        case .zoneChanged, .zoneMergeAsked, .zoneRenameRefused:
            updateForZones(event, now: now)
        case .edited, .editRefused, .undid, .undoRefused, .undoFailed, .redid, .redoRefused, .redoFailed:
            updateForUndoAndEdit(event, data: data, now: now)
        case .filtered(let wanted):
            reload(from: data)
            if let wanted, let position = data.position(of: wanted) {
                table.select(position)
                hiddenSelection = nil
            } else {
                table.moveCursorToStart()
                hiddenSelection = wanted.map { ($0, selectedID(data)) }
            }
        case .failed(let message):
            say(message, isError: true, for: Self.errorSeconds, now: now)
        case .connection(let isLive):
            // The title shows it; the changes caught up on come as batches, "from elsewhere".
            connection?.isLive = isLive
        case .polling(let interval):
            connection?.pollInterval = interval
        }
        return []
    }

    /// The id of the team under the cursor.
    func selectedID(_ data: some BoardData) -> RecordID? {
        table.cursor.flatMap { data.id(at: $0) }
    }

    /// Shows the data's whole result again (after a filter), the cursor where it was.
    private mutating func reload(from data: some BoardData) {
        table.reload(data.tableSections)
        refresh(from: data)
    }

    private mutating func refresh(from data: some BoardData) {
        table.sectionIndexTitles = data.sectionIndexTitles
        // While the filter has a text, the title shows it instead of the leader: reading each
        // section's first teams for it (a query a section at a million teams) would only
        // slow every key of the filter down.
        leaders = filter?.keepsEverything == false ? [] : data.leaders(limit: Self.leadersNamed + 1)
    }

    /// Puts a message on the status line for `seconds` (nil: until a key).
    mutating func say(_ text: String, isError: Bool = false, for seconds: Double? = confirmationSeconds, fromElsewhere: Bool = false, now: Double) {
        status = StatusMessage(text: text, isError: isError, expiry: seconds.map { now + $0 }, isFromElsewhere: fromElsewhere)
    }

    /// The sentence of an add or an edit refused after its dialog was closed (Esc while it
    /// was being saved); nil for anything else.
    private func refusalOfClosedDialog(_ outcome: BoardEvent) -> String? {
        switch (outcome, mode) {
        case (.addRefused, .adding), (.editRefused, .editing), (.zoneRenameRefused, .renamingZone): nil
        case (.addRefused(let message), _), (.editRefused(let message), _), (.zoneRenameRefused(let message), _): message
        default: nil
        }
    }

    /// Puts the cursor on the team this board added once the result holds it.
    private mutating func selectArrived(_ data: some BoardData) {
        guard let id = arrivingSelection, let position = data.position(of: id) else { return }
        table.select(position)
        arrivingSelection = nil
    }
}
