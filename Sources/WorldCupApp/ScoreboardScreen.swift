import Foundation
import GRDB
import LiveResults
import TerminalUI
import WorldCup

/// The scoreboard: the live, sectioned table of teams, its keys, and how it draws.
///
/// This is the "CoreDataTableViewController" of the app: it binds a `ResultsController<Team>`
/// to a `TableView`, turning each batch of the controller into a table update, so a tap moves
/// one row instead of reloading the table. It draws into a `Grid`, so tests can read it.
public final class ScoreboardScreen: ResultsControllerDelegate {
    public typealias Record = Team

    /// The fetch request of the scoreboard: `Team.boardOrder` (zones in order, then most wins,
    /// then name).
    public static var fetchRequest: ResultsRequest<Team> {
        ResultsRequest(sortDescriptors: Team.boardOrder, fetchBatchSize: 64)
    }

    let scoreboard: Scoreboard
    let controller: ResultsController<Team>
    let theme: Theme
    let flagStyle: FlagStyle
    private(set) var table = TableView()
    /// The "/" filter, while one is typed or applied.
    private(set) var filter: NameFilter?
    /// The team the cursor was on when the filter hid it, and the team the cursor went to
    /// instead: while the filter is typed and the cursor stays there, the hidden team gets it
    /// back when it shows again.
    private var hiddenSelection: (id: RecordID, substitute: RecordID?)?
    private(set) var dialog: FormDialog?
    private(set) var status: (text: String, isError: Bool)?
    /// When the status line's message fades (nil: it waits, as a question does for its answer).
    private var statusExpiry: Double?
    /// Batches of changes shown so far, so a look at other processes' commits knows it found some.
    private var batchesShown = 0
    /// How long a message stays on the status line unless a key clears it sooner: a
    /// confirmation, an error, and a note that another program changed the board.
    static let confirmationSeconds = 4.0, errorSeconds = 8.0, changedElsewhereSeconds = 2.5
    /// The key help, while it covers the table.
    private(set) var help: KeyHelpPanel?
    /// Whether the key help covers the table.
    var showsHelp: Bool { help != nil }
    /// The size of the last frame drawn, for scrolling the help by pages.
    private var screenSize = (width: 80, height: 24)
    /// The keys, as the help lists them.
    static let keyHelp: [KeyHelpPanel.Entry] = [
        .init(keys: "↑ ↓  k j", action: "move"),
        .init(keys: "PgUp PgDn  Ctrl-B Ctrl-F", action: "page"),
        .init(keys: "Home End  g G", action: "first or last team"),
        .init(keys: "Tab  Shift-Tab", action: "next zone, previous zone"),
        .init(keys: "Enter", action: "tap: one more win"),
        .init(keys: "+", action: "add a secret team"),
        .init(keys: "d  Delete", action: "delete the team (asks y/N)"),
        .init(keys: "/", action: "filter by name; Enter keeps, Esc clears"),
        .init(keys: "mouse", action: "click selects, double-click taps, the wheel scrolls"),
        .init(keys: "?", action: "this help (↑ ↓ scroll it when it does not fit)"),
        .init(keys: "q  Esc  Ctrl-C", action: "quit"),
    ]
    /// The team waiting for a y/N answer before it is deleted.
    private var pendingDeletion: (id: Int64, name: String)?
    /// True once the user asked to quit.
    public private(set) var wantsToQuit = false
    private var update: TableUpdate?
    /// The team under the cursor before the pending changes were processed.
    private var selectionBeforeChanges: RecordID?
    private var leader: Team?
    private let clock: () -> Double

    /// Fetches the teams and starts following changes.
    /// - Parameters:
    ///   - colors: the terminal's colours (`TerminalSession.colorDepth`); nil draws without colour.
    ///   - flags: badges (the default) or emoji flags.
    ///   - clock: seconds on a monotonic clock, for flashes.
    ///   - onChangesAvailable: called from the database's thread when commits wait to be shown.
    ///   - cacheName: the section cache to start from and keep (see `cacheName(for:)`); nil for none.
    public init(scoreboard: Scoreboard, colors: ColorDepth?, flags: FlagStyle = .badges, clock: @escaping () -> Double = ScoreboardScreen.monotonicSeconds,
                onChangesAvailable: (@Sendable () -> Void)? = nil, cacheName: String? = nil, cacheDirectory: URL? = nil) throws {
        self.scoreboard = scoreboard
        self.theme = Theme(colors: colors)
        self.flagStyle = flags
        self.clock = clock
        controller = ResultsController(database: scoreboard.database, fetchRequest: Self.fetchRequest, sectionNameKeyPath: "qualifyingZone",
                                       cacheName: cacheName, cacheDirectory: cacheDirectory)
        controller.onChangesAvailable = onChangesAvailable
        controller.delegate = self
        try controller.performFetch()
        reloadTable()
    }

    /// The section cache name for a scoreboard: one per database file, so two databases never
    /// take turns overwriting one cache.
    public static func cacheName(for scoreboard: Scoreboard) -> String {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325 // FNV-1a of the path
        for byte in scoreboard.database.path.utf8 { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
        return "WorldCup-" + String(hash, radix: 16)
    }

    /// Seconds since an arbitrary moment, never going back.
    public static func monotonicSeconds() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    private var tableSections: [TableSection] {
        controller.sections.map { TableSection(title: $0.name, rowCount: $0.numberOfObjects) }
    }

    /// Shows the controller's whole result again (after a fetch), the cursor where it was.
    private func reloadTable() {
        table.reload(tableSections)
        table.sectionIndexTitles = controller.sectionIndexTitles
        refreshLeader()
    }

    /// The team under the cursor.
    public var selectedTeam: Team? {
        table.cursor.flatMap { try? controller.object(at: IndexPath(row: $0.row, section: $0.section)) }
    }

    /// The id of the team under the cursor.
    private var selectedID: RecordID? {
        table.cursor.map { controller.id(at: IndexPath(row: $0.row, section: $0.section)) }
    }

    // MARK: - Changes

    /// Shows the changes committed since the last call, as moves, inserts and flashes.
    public func processChanges() {
        selectionBeforeChanges = selectedID
        do {
            try controller.processPendingChanges()
        } catch {
            report(error)
        }
    }

    /// Shows changes after the controller said commits wait (`onChangesAvailable`). This
    /// screen shows its own changes at once, so what waits came from another program: the
    /// status line says so briefly, unless it holds a question or an error.
    public func processChangesFromElsewhere() {
        let shown = batchesShown
        processChanges()
        guard batchesShown != shown, pendingDeletion == nil, status?.isError != true else { return }
        say("Updated by another program.", for: Self.changedElsewhereSeconds)
    }

    public func controllerWillChangeContent(_ controller: ResultsController<Team>) {
        update = TableUpdate()
    }

    public func controller(_ controller: ResultsController<Team>, didChange section: SectionInfo, atSectionIndex sectionIndex: Int, for type: ChangeKind) {
        switch type {
        case .insert: update?.insertedSections.insert(sectionIndex)
        case .delete: update?.deletedSections.insert(sectionIndex)
        case .move, .update: break
        }
    }

    public func controller(_ controller: ResultsController<Team>, didChangeRecordWithID id: RecordID, at indexPath: IndexPath?, for type: ChangeKind, newIndexPath: IndexPath?) {
        func position(_ path: IndexPath?) -> TablePosition? {
            path.map { TablePosition(section: $0.section, row: $0.row) }
        }
        switch (type, position(indexPath), position(newIndexPath)) {
        case let (.insert, _, new?): update?.insertedRows.append(new)
        case let (.delete, old?, _): update?.deletedRows.append(old)
        case let (.move, old?, new?): update?.movedRows.append((old, new))
        case let (.update, old?, new?): update?.reloadedRows.append((old, new))
        default: break
        }
    }

    public func controllerDidChangeContent(_ controller: ResultsController<Team>) {
        guard let update else { return }
        table.apply(update, sections: tableSections, now: clock())
        table.sectionIndexTitles = controller.sectionIndexTitles
        self.update = nil
        batchesShown += 1
        refreshLeader()
    }

    /// The controller could not tell what changed: show its fresh result, the cursor on the
    /// team it was on.
    public func controllerDidResetContent(_ controller: ResultsController<Team>) {
        update = nil
        reloadTable()
        if let id = selectionBeforeChanges, let path = controller.indexPath(for: id) {
            table.select(TablePosition(section: path.section, row: path.row))
        }
    }

    /// The section index shows each zone's first two letters: one letter would give Africa
    /// and Asia the same title, and the index could never reach Asia.
    public func controller(_ controller: ResultsController<Team>, sectionIndexTitleForSectionName sectionName: String) -> String? {
        let two = String(sectionName.prefix(2))
        let title = DisplayText.width(two) <= TableView.sectionIndexMaximumTitleWidth ? two : String(sectionName.prefix(1))
        return title.prefix(1).uppercased() + title.dropFirst().lowercased()
    }

    /// The team with the most wins: the best of the sections' first rows.
    private func refreshLeader() {
        let firsts = controller.sections.indices.compactMap { try? controller.object(at: IndexPath(row: 0, section: $0)) }
        leader = firsts.min { $0.ranksAhead(of: $1) }
    }

    // MARK: - Keys

    /// Handles keys that arrived together (fast typing, a paste): the filter's text is
    /// fetched once for the run of edits, not once per character, so typing stays fluid
    /// when each fetch takes a while (a million teams).
    public func handle(_ keys: [Key]) {
        for key in keys {
            // Any other key must see the filtered table first.
            if !editsFilterText(key) { fetchPendingFilter() }
            deferredFilterFetch = true
            handle(key)
            deferredFilterFetch = false
        }
        fetchPendingFilter()
    }

    /// Set while `handle(_:)` runs for a batch: filter edits then only mark the fetch as pending.
    private var deferredFilterFetch = false
    private var filterFetchPending = false

    /// Whether a key would only edit the filter's text (see `handleFilter`).
    private func editsFilterText(_ key: Key) -> Bool {
        guard dialog == nil, !showsHelp, pendingDeletion == nil, filter?.isEditing == true else { return false }
        switch key {
        case .character, .backspace, .control("u"): return true
        default: return false
        }
    }

    private func fetchPendingFilter() {
        guard filterFetchPending else { return }
        filterFetchPending = false
        applyFilter()
    }

    /// Handles one key: in the dialog when it is open, in the filter while it is typed,
    /// on the table otherwise.
    public func handle(_ key: Key) {
        // A message fades at the next key, unless it asks a question.
        if pendingDeletion == nil {
            status = nil
            statusExpiry = nil
        }
        if dialog != nil {
            handleDialog(key)
            return
        }
        if help != nil {
            handleHelp(key)
            return
        }
        if let deletion = pendingDeletion {
            pendingDeletion = nil
            confirmDeletion(of: deletion, answer: key)
            return
        }
        if filter?.isEditing == true, handleFilter(key) { return }
        switch key {
        case .up, .character("k"): table.moveCursor(by: -1)
        case .down, .character("j"): table.moveCursor(by: 1)
        case .pageUp, .control("b"): table.page(by: -1)
        case .pageDown, .control("f"): table.page(by: 1)
        case .home, .character("g"): table.moveCursorToStart()
        case .end, .character("G"): table.moveCursorToEnd()
        case .tab: table.moveCursorToSection(offset: 1)
        case .backTab: table.moveCursorToSection(offset: -1)
        case .enter: tapSelectedTeam()
        case .character("+"): openAddDialog()
        case .character("d"), .delete: askToDeleteSelectedTeam()
        case .character("?"): help = KeyHelpPanel(entries: Self.keyHelp)
        case .character("/"): editFilter()
        case .escape where filter != nil: clearFilter()
        case .character("q"), .escape: wantsToQuit = true
        case .mouse(let event): handleMouse(event)
        default: break
        }
    }

    /// A key while the help shows: the moving keys and the wheel scroll it, q quits, any
    /// other key closes it without acting.
    private func handleHelp(_ key: Key) {
        guard var panel = help else { return }
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
        case .character("q"):
            help = nil
            wantsToQuit = true
            return
        default:
            help = nil
            return
        }
        help = panel
    }

    /// Ends the program at the next turn of the loop.
    public func quit() {
        wantsToQuit = true
    }

    private func tapSelectedTeam() {
        guard let id = selectedID else { return }
        do {
            let team = try scoreboard.tap(teamID: id)
            processChanges()
            say("\(team.teamName): \(team.wins) \(team.wins == 1 ? "win" : "wins").")
        } catch {
            report(error)
        }
    }

    private func askToDeleteSelectedTeam() {
        guard let team = selectedTeam, let id = team.id else { return }
        pendingDeletion = (id, team.teamName)
        say("Delete \(team.teamName)? y/N", isError: true, for: nil)
    }

    private func confirmDeletion(of team: (id: Int64, name: String), answer: Key) {
        guard answer == .character("y") || answer == .character("Y") else {
            say("Kept \(team.name).")
            return
        }
        do {
            try scoreboard.delete(teamID: team.id)
            processChanges()
            say("Deleted \(team.name).")
        } catch {
            report(error)
        }
    }

    private func openAddDialog() {
        dialog = FormDialog(title: "Secret Team", subtitle: "Add a new team", fields: [
            FormDialog.Field(label: "Team Name", maxLength: TeamValidation.maximumLength),
            FormDialog.Field(label: "Qualifying Zone", text: selectedTeam?.qualifyingZone ?? "", maxLength: TeamValidation.maximumLength),
        ])
    }

    private func handleDialog(_ key: Key) {
        guard var form = dialog else { return }
        switch form.handle(key) {
        case .editing:
            dialog = form
        case .cancelled:
            dialog = nil
            say("No team added.")
        case .submitted:
            do {
                let team = try scoreboard.add(name: form.values[0], zone: form.values[1])
                dialog = nil
                processChanges()
                if let id = team.id, let path = controller.indexPath(for: id) {
                    table.select(TablePosition(section: path.section, row: path.row))
                    say("Added \(team.teamName) to \(team.qualifyingZone).")
                } else {
                    say("Added \(team.teamName) to \(team.qualifyingZone); the filter hides it.")
                }
            } catch {
                form.message = "\(error)"
                dialog = form
            }
        }
    }

    /// Puts a message on the status line for `seconds` (nil: until a key).
    private func say(_ text: String, isError: Bool = false, for seconds: Double? = confirmationSeconds) {
        status = (text, isError)
        statusExpiry = seconds.map { clock() + $0 }
    }

    private func report(_ error: any Error) {
        say("\(error)", isError: true, for: Self.errorSeconds)
    }

    // MARK: - Filter

    private func editFilter() {
        if filter == nil { filter = NameFilter() }
        filter?.isEditing = true
    }

    /// A key while the filter is typed: editing keys change it, Enter keeps it, Esc clears it.
    /// Returns false for keys the table should handle (moving, paging, the mouse).
    private func handleFilter(_ key: Key) -> Bool {
        guard var typed = filter else { return false }
        switch key {
        case .enter:
            filter?.isEditing = false
            // The team the filter chose instead of a hidden one is the user's choice now.
            hiddenSelection = nil
            if typed.text.isEmpty { filter = nil }
        case .escape:
            clearFilter()
        case .character, .backspace, .control("u"):
            if typed.edit(key) {
                filter = typed
                if deferredFilterFetch { filterFetchPending = true } else { applyFilter() }
            }
        default:
            return false
        }
        return true
    }

    private func clearFilter() {
        let hadText = filter?.predicate != nil
        filter = nil
        if hadText { applyFilter() }
    }

    /// Fetches again with the filter's predicate: delete the cache, change the request,
    /// perform the fetch. The cursor stays on its team when it still matches.
    private func applyFilter() {
        let cursorID = selectedID
        var wantedID = cursorID
        if let hiddenSelection, hiddenSelection.substitute == cursorID { wantedID = hiddenSelection.id }
        var request = Self.fetchRequest
        request.predicate = filter?.predicate
        do {
            if let cacheName = controller.cacheName {
                try ResultsController<Team>.deleteCache(named: cacheName, in: controller.cacheDirectory)
            }
            controller.fetchRequest = request
            try controller.performFetch()
        } catch {
            report(error)
            return
        }
        reloadTable()
        if let wantedID, let path = controller.indexPath(for: wantedID) {
            table.select(TablePosition(section: path.section, row: path.row))
            hiddenSelection = nil
        } else {
            table.moveCursorToStart()
            hiddenSelection = wantedID.map { ($0, selectedID) }
        }
    }

    // MARK: - Mouse

    /// A click selects a row, a double-click taps it, the wheel scrolls; a click on a header
    /// or a title of the section index shows that section from its first team.
    private func handleMouse(_ event: MouseEvent) {
        switch event.action {
        case .scrollUp: table.scroll(by: -Self.wheelLines)
        case .scrollDown: table.scroll(by: Self.wheelLines)
        case .click, .doubleClick:
            switch table.hit(x: event.x, y: event.y) {
            case .row(let position):
                table.select(position)
                if event.action == .doubleClick { tapSelectedTeam() }
            case .header(let section):
                table.showSection(section)
            case .indexTitle(let index):
                let title = table.sectionIndexTitles[index]
                table.showSection(controller.section(forSectionIndexTitle: title, at: index))
            case nil:
                break
            }
        }
    }

    /// How far one turn of the wheel scrolls.
    static let wheelLines = 3

    // MARK: - Time

    /// When the screen next changes by itself (a flash ending, a message fading), if ever.
    public var nextDeadline: Double? {
        [table.nextFlashExpiry, statusExpiry].compactMap { $0 }.min()
    }

    /// Lets time pass: flashes that are over end, and so do messages.
    public func tick() {
        let now = clock()
        table.expireFlashes(now: now)
        if let expiry = statusExpiry, now >= expiry {
            status = nil
            statusExpiry = nil
        }
    }

    // MARK: - Drawing

    /// Draws the whole screen. Returns the grid and where the text caret belongs (nil: hidden).
    public func render(width: Int, height: Int) -> (grid: Grid, caret: (x: Int, y: Int)?) {
        var grid = Grid(width: width, height: height)
        screenSize = (width, height)
        guard width >= 40, height >= 10 else {
            grid.write(DisplayText.truncate("Terminal too small (40×10)", toWidth: width), x: 0, y: 0, style: theme.error)
            return (grid, nil)
        }
        drawTitle(into: &grid)
        let now = clock()
        table.render(into: &grid, area: Rect(x: 0, y: 1, width: width, height: height - 3), theme: theme.table, now: now) { position in
            self.cell(at: position)
        }
        if table.rowCount == 0 {
            let empty = filter?.predicate != nil ? "No team matches “\(filter?.text ?? "")”: Esc clears the filter." : "No teams yet: press + to add one."
            grid.write(DisplayText.truncate(empty, toWidth: width - 3), x: 2, y: 2, style: theme.status)
        }
        var caret: (x: Int, y: Int)?
        if let filter, filter.isEditing {
            caret = drawFilterPrompt(filter, into: &grid)
        } else if let status {
            grid.write(DisplayText.truncate(status.text, toWidth: width - 1), x: 1, y: height - 2, style: status.isError ? theme.error : theme.status)
        }
        grid.fill(Rect(x: 0, y: height - 1, width: width, height: 1), style: theme.footer)
        grid.write(DisplayText.truncate(footerKeys, toWidth: width - 2), x: 1, y: height - 1, style: theme.footer)
        help?.render(into: &grid, area: Rect(x: 0, y: 0, width: width, height: height), frame: theme.dialog, keys: theme.helpKeys)
        if let dialog {
            caret = dialog.render(into: &grid, area: Rect(x: 0, y: 0, width: width, height: height), frame: theme.dialog, field: theme.dialogField,
                                   selection: theme.dialogSelection, error: theme.error)
        }
        return (grid, caret)
    }

    /// The footer's keys for what the keys do now.
    private var footerKeys: String {
        switch filter {
        case let filter? where filter.isEditing: return "type to filter  ↑↓ move  Enter keep  Esc clear"
        case .some: return "↑↓/jk move  Enter tap  / filter  Esc clear filter  ? help  q quit"
        case nil: return "↑↓/jk move  Tab zone  Enter tap  + add  d delete  / filter  ? help  q quit"
        }
    }

    /// The filter being typed, on the status line; returns where the caret goes.
    private func drawFilterPrompt(_ filter: NameFilter, into grid: inout Grid) -> (x: Int, y: Int) {
        let y = grid.height - 2
        let x = grid.write("/", x: 1, y: y, style: theme.title)
        // The end of a long text shows, where the caret is.
        var glyphs = DisplayText.glyphs(filter.text)[...]
        while glyphs.reduce(0, { $0 + $1.width }) > grid.width - x - 2 { glyphs = glyphs.dropFirst() }
        return (grid.write(Array(glyphs), x: x, y: y), y)
    }

    /// "World Cup", the leader, and on the right the team count, or the filter and its matches.
    private func drawTitle(into grid: inout Grid) {
        var x = grid.write("World Cup", x: 1, y: 0, style: theme.title)
        let count = controller.numberOfObjects
        var right = [Span("\(count) \(count == 1 ? "team" : "teams")", style: Style(dim: true))]
        // While filtered, the best team shown need not lead: the filter takes the leader's place.
        var leader = self.leader
        if let filter, !filter.text.isEmpty {
            leader = nil
            right = [
                Span("/", style: theme.title),
                Span(glyphs: DisplayText.truncate(filter.text, toWidth: 16), style: Style(bold: true)),
                Span(": \(count) \(count == 1 ? "match" : "matches")", style: Style(dim: true)),
            ]
        }
        let rightX = grid.width - right.reduce(0) { $0 + $1.width } - 1
        if let leader, leader.wins > 0 {
            let before = "  Leader: ", after = " (\(leader.wins) \(leader.wins == 1 ? "win" : "wins"))"
            let room = min(24, rightX - 2 - x - DisplayText.width(before) - DisplayText.width(after))
            if room >= 4 {
                x = grid.write(before, x: x, y: 0)
                x = grid.write(DisplayText.truncate(leader.teamName, toWidth: room), x: x, y: 0, style: Style(bold: true))
                x = grid.write(after, x: x, y: 0)
            }
        }
        var column = max(x + 2, rightX)
        for span in right { column = grid.write(span.glyphs, x: column, y: 0, style: span.style) }
    }

    private func cell(at position: TablePosition) -> TableCell {
        guard let team = try? controller.object(at: IndexPath(row: position.row, section: position.section)) else {
            return TableCell(title: "…")
        }
        let badge = FlagBadge.forTeam(imageName: team.imageName, teamName: team.teamName)
        return TableCell(badge: badge.spans(colors: theme.colors, style: flagStyle), title: team.teamName, detail: "Wins: \(team.wins)")
    }
}
