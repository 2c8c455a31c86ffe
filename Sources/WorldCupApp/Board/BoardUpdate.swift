import Foundation
import LiveResults
import TerminalUI
import WorldCup

/// What happens to the board: keys, the passing of time, changes of the result, and the
/// outcomes of the effects the board asked for.
enum BoardEvent {
    case key(Key)
    /// The screen has this size now.
    case resized(width: Int, height: Int)
    /// Time passed: flashes and messages may end.
    case tick
    /// A batch of changes of the result, already in the data.
    case batch(TableUpdate)
    /// The result was replaced wholesale; `selection` is the team the cursor was on.
    case reset(selection: RecordID?)
    /// Batches that came from another program were shown.
    case changedElsewhere
    /// A tap was saved: the team as it is now.
    case tapped(Team)
    /// A team was added (the dialog's values were accepted).
    case added(Team)
    /// The dialog's values were refused: why, in one sentence.
    case addRefused(String)
    /// A team was deleted.
    case deleted(name: String)
    /// The result was fetched again (for the filter); `wanted` is the team the cursor should be on.
    case refetched(wanted: RecordID?)
    /// An effect failed: why, in one sentence.
    case failed(String)
    /// The connection to the board's server was lost, or is back.
    case connection(isLive: Bool)
    /// The server's changes reach the board only by reading at this interval (behind a
    /// pooler), or again as they are made (nil).
    case polling(Duration?)
}

/// What the board asks the runtime to do; the outcome comes back as an event.
enum BoardEffect: Equatable {
    /// One more win for a team.
    case tap(RecordID)
    /// Add a secret team.
    case add(name: String, zone: String)
    /// Delete a team.
    case delete(id: RecordID, name: String)
    /// Filter the result by the filter's text (nil: no filter, every team), in memory, then
    /// put the cursor on `wanted` when it shows. "/" asks for it with the empty text, so that
    /// the names are in memory before the first character.
    case refetch(NameFilter?, wanted: RecordID?)

    /// Whether the effect changes the teams (a fetch only reads them).
    var writes: Bool {
        if case .refetch = self { return false } else { return true }
    }
}

extension BoardModel {
    /// Updates the board for one event at time `now`, reading the result from `data`, and
    /// returns the effects to perform, in order.
    mutating func update(_ event: BoardEvent, data: some BoardData, now: Double) -> [BoardEffect] {
        switch event {
        case .key(let key):
            return handle(key, data: data, now: now)
        case let .resized(width, height):
            screenSize = (width, height)
            table.layout(in: Self.tableArea(width: width, height: height))
        case .tick:
            table.expireFlashes(now: now)
            if let expiry = status?.expiry, now >= expiry { status = nil }
        case .batch(let update):
            table.apply(update, sections: data.tableSections, now: now)
            refresh(from: data)
        case .reset(let selection):
            reload(from: data)
            if let selection, let position = data.position(of: selection) { table.select(position) }
        case .changedElsewhere:
            guard !isAskingToDelete, status?.isError != true else { break }
            say("Updated by another program.", for: Self.changedElsewhereSeconds, now: now)
        case .tapped(let team):
            say("\(team.teamName): \(team.wins) \(team.wins == 1 ? "win" : "wins").", now: now)
        case .added(let team):
            mode = .browsing
            if let id = team.id, let position = data.position(of: id) {
                table.select(position)
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
        case .deleted(let name):
            say("Deleted \(name).", now: now)
        case .refetched(let wanted):
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

    /// Shows the data's whole result again (after a fetch), the cursor where it was.
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
    private mutating func say(_ text: String, isError: Bool = false, for seconds: Double? = confirmationSeconds, now: Double) {
        status = StatusMessage(text: text, isError: isError, expiry: seconds.map { now + $0 })
    }

    // MARK: - Keys

    /// One key: in the dialog when it is open, in the help, the question or the filter while
    /// they show, on the table otherwise.
    private mutating func handle(_ key: Key, data: some BoardData, now: Double) -> [BoardEffect] {
        // A message fades at the next key, unless it asks a question.
        if !isAskingToDelete { status = nil }
        switch mode {
        case .adding(var form):
            switch form.handle(key) {
            case .editing:
                showZoneSpelling(in: &form, data: data)
                mode = .adding(form)
            case .cancelled:
                mode = .browsing
                say("No team added.", now: now)
            case .submitted:
                mode = .adding(form)
                return [.add(name: form.values[0], zone: form.values[1])]
            }
            return []
        case .help(let panel):
            handleHelp(key, panel: panel)
            return []
        case .confirmingDelete(let id, let name):
            mode = .browsing
            guard key == .character("y") || key == .character("Y") else {
                say("Kept \(name).", now: now)
                return []
            }
            return [.delete(id: id, name: name)]
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
        case .character("?"): mode = .help(KeyHelpPanel(entries: Self.keyHelp))
        case .character("/"):
            mode = .filtering
            if filter == nil {
                filter = NameFilter()
                return [refetch(data: data)]
            }
        case .escape where filter != nil: return clearFilter(data: data)
        // Esc cancels and clears; it never quits (a key sequence cut short would end the board).
        case .escape: say(Self.howToQuit, now: now)
        case .character("q"): wantsToQuit = true
        case .mouse(let event): return handleMouse(event, data: data, now: now)
        default: break
        }
        return []
    }

    /// A key while the help shows: the moving keys and the wheel scroll it, any other key
    /// (q and Esc too, as in less and man) closes it without acting.
    private mutating func handleHelp(_ key: Key, panel: KeyHelpPanel) {
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

    /// Whether a key on the table would change the teams: tap, add, delete.
    static func changesTeams(_ key: Key) -> Bool {
        switch key {
        case .enter, .character("+"), .character("d"), .delete: true
        default: false
        }
    }

    /// Says, on the status line, why a read-only board changes nothing; nothing is sent.
    private mutating func refuseChange(now: Double) {
        guard let readOnly else { return }
        say(readOnly.refusal.description, isError: true, for: Self.errorSeconds, now: now)
    }

    private mutating func openAddDialog(data: some BoardData) {
        let zone = table.cursor.flatMap { data.team(at: $0) }?.qualifyingZone ?? ""
        mode = .adding(FormDialog(title: "Secret Team", subtitle: "Add a new team", fields: [
            FormDialog.Field(label: "Team Name", maxLength: TeamValidation.maximumLength),
            FormDialog.Field(label: "Qualifying Zone", text: zone, maxLength: TeamValidation.maximumLength),
        ]))
    }

    /// The start of the dialog's hint that shows how the board spells the zone being typed.
    static let zoneSpellingHint = "Joins the zone "

    /// As the zone is typed: when it is a zone of the board spelt in another case or
    /// normalisation, the dialog says which one it joins, as the board spells it (the store
    /// saves it so). Any other message stays until the next such hint.
    private func showZoneSpelling(in form: inout FormDialog, data: some BoardData) {
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

    private mutating func askToDeleteSelectedTeam(data: some BoardData, now: Double) {
        guard let team = table.cursor.flatMap({ data.team(at: $0) }), let id = team.id else { return }
        mode = .confirmingDelete(id: id, name: team.teamName)
        say("Delete \(team.teamName)? y/N", isError: true, for: nil, now: now)
    }

    // MARK: - Filter

    /// A key while the filter is typed: editing keys change it, Enter keeps it, Esc clears it.
    /// Returns nil for keys the table should handle (moving, paging, the mouse).
    private mutating func handleFilter(_ key: Key, data: some BoardData) -> [BoardEffect]? {
        guard var typed = filter else { return nil }
        switch key {
        case .enter:
            mode = .browsing
            // The team the filter chose instead of a hidden one is the user's choice now.
            hiddenSelection = nil
            if typed.text.isEmpty {
                filter = nil
                return [refetch(data: data)]
            }
        case .escape:
            return clearFilter(data: data)
        case .character, .backspace, .control("u"):
            if typed.edit(key) {
                filter = typed
                return [refetch(data: data)]
            }
        default:
            return nil
        }
        return []
    }

    private mutating func clearFilter(data: some BoardData) -> [BoardEffect] {
        let hadFilter = filter != nil
        filter = nil
        mode = .browsing
        return hadFilter ? [refetch(data: data)] : []
    }

    /// The fetch for the filter as it is: the cursor stays on its team when it still matches,
    /// and a team the filter hid while it was typed gets the cursor back when it shows again.
    private func refetch(data: some BoardData) -> BoardEffect {
        var wanted = selectedID(data)
        if let hiddenSelection, hiddenSelection.substitute == wanted { wanted = hiddenSelection.id }
        return .refetch(filter, wanted: wanted)
    }

    // MARK: - Mouse

    /// A click selects a row, a double-click taps it, the wheel scrolls; a click on a header
    /// or a title of the section index shows that section from its first team.
    private mutating func handleMouse(_ event: MouseEvent, data: some BoardData, now: Double) -> [BoardEffect] {
        switch event.action {
        case .scrollUp: table.scroll(by: -Self.wheelLines)
        case .scrollDown: table.scroll(by: Self.wheelLines)
        case .click, .doubleClick:
            switch table.hit(x: event.x, y: event.y) {
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
