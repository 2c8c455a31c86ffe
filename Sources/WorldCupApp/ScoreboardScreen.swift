import Foundation
import LiveResults
import TerminalUI
import WorldCup

/// The scoreboard's runtime: it holds the board's one model, the results controller and the
/// store, feeds events to `BoardModel.update`, performs the effects it returns (writes,
/// fetches), and draws the model with `BoardView`.
///
/// The controller reaches the table through a `ResultsTableBinding`, so a tap moves one row
/// instead of reloading the table. Drawing goes into a `Grid`, so tests can read it.
///
/// The path of one tap, in one direction: `handle(key)` → `BoardModel.update` → `.tap` →
/// `perform` → `ask` → the store's write, on the store's own thread (`StoreWork`), while the
/// loop goes on → its outcome wakes the loop → `deliverFinishedWork()` → `processChanges()`
/// (the controller has the write's rows by then) → the controller's batch → the binding →
/// `show(_:)` → `.batch` → `BoardModel.update`; then the write's outcome, `.tapped`. Commits
/// of other programs take the same path from `processChanges()`, called when the controller
/// wakes the loop; who made them is read on the store's thread too, one read at a time.
public final class ScoreboardScreen {
    /// The fetch request of the scoreboard: `Team.boardOrder` (most wins, then name) inside
    /// each zone; the zones, its sections, come through the zone table (`Team.boardSections`).
    public static var fetchRequest: ResultsRequest<Team> {
        ResultsRequest(sortDescriptors: Team.boardOrder, fetchBatchSize: 64)
    }

    let scoreboard: any TeamStore
    let controller: ResultsController<Team>
    let theme: Theme
    private let view: BoardView
    private let binding = ResultsTableBinding<Team>()
    var model = BoardModel()
    let clock: () -> Double
    /// The team under the cursor before the pending changes were processed (for a reset, and
    /// for a batch that deletes and inserts its row).
    private var selectionBeforeChanges: RecordID?
    /// The filter's effect, held back while a run of keys only edits the filter's text.
    private var pendingFilter: BoardEffect?
    /// Keys not handled yet, waiting for a change of this board being saved (`handleWaitingKeys`).
    var waitingKeys: [Key] = []
    /// Since when the first of `waitingKeys` waits (`clock`).
    var keyWaitStart: Double?
    /// From how many teams the filter's names are read in the background when it opens
    /// (`prepareFilter`); a smaller board on a file reads them at once, faster than a key's
    /// frame. A board on a server always reads them in the background: a server that does
    /// not answer must not hold the keys up.
    var backgroundFilterMinimumTeams = 20_000
    /// The team the cursor should be on once the filter, waiting for the names it reads,
    /// applies (`ResultsController.isFilterPending`); nil when nothing waits.
    private var wantedWhenFilterApplies: RecordID??
    /// Who made the changes other programs committed (read where the store's work runs).
    let othersChanges: OthersChangesReader
    /// Where the store's writes and reads of who changed what run: off the loop in the app.
    let work: StoreWork
    /// Whether changes of other programs were shown since their authors were last asked for.
    var othersToName = false
    /// Whether a read of who made others' changes is under way.
    var namingOthers = false
    /// When the last read of who made others' changes began (`clock`).
    var lastNaming = -Double.infinity
    /// When the next read of who made others' changes may begin, while one waits for it.
    var namingDue: Double?
    /// How many writes this screen has asked of the store.
    public internal(set) var writesAsked = 0
    /// Errors met while reading teams for drawing, which the board's data cannot throw.
    private let readFailures = ReadFailures()
    /// The database file turned out to be damaged: the program must end and say so (this
    /// sentence) instead of going on with a board it cannot trust. Set once; `wantsToQuit`
    /// is then true.
    public private(set) var damage: WorldCupError?

    /// The board's data, read from the controller.
    var data: ControllerData { ControllerData(controller: controller, failures: readFailures) }

    /// Fetches the teams and starts following changes.
    /// - Parameters:
    ///   - colors: the terminal's colours (`TerminalSession.colorDepth`); nil draws without colour.
    ///   - background: the terminal's background, which the colours are chosen for.
    ///   - flags: badges (the default) or emoji flags.
    ///   - clock: seconds on a monotonic clock, for flashes.
    ///   - onChangesAvailable: called from the database's thread when commits wait to be shown.
    ///   - onWorkFinished: given, the store's writes run off the loop, on a thread of their
    ///     own, which calls it when an outcome waits (`deliverFinishedWork()`); nil runs them
    ///     at once, each `handle` returning with its outcome shown (tests).
    ///   - cacheName: the section cache to start from and keep (see `cacheName(for:)`); nil for none.
    public init(scoreboard: any TeamStore, colors: ColorDepth?, background: Palette.Background = .dark, flags: FlagStyle = .badges,
                clock: @escaping () -> Double = ScoreboardScreen.monotonicSeconds,
                onChangesAvailable: (@Sendable () -> Void)? = nil, onWorkFinished: (@Sendable () -> Void)? = nil,
                cacheName: String? = nil, cacheDirectory: URL? = nil) throws {
        self.scoreboard = scoreboard
        othersChanges = OthersChangesReader(store: scoreboard)
        work = onWorkFinished.map(StoreWork.onThread(wake:)) ?? .inline()
        work.prepare { [othersChanges] in othersChanges.startFromNewest() }
        theme = Theme(colors: colors, background: background)
        view = BoardView(theme: theme, flagStyle: flags)
        self.clock = clock
        controller = scoreboard.makeController(fetchRequest: Self.fetchRequest, sections: Team.boardSections,
                                               cacheName: cacheName, cacheDirectory: cacheDirectory)
        controller.onChangesAvailable = onChangesAvailable
        // This screen shows its own writes as soon as they return (`processChanges()`): only
        // other programs' commits need to wake the loop.
        controller.notifiesOwnWrites = false
        // The screen draws other programs' changes at most once a frame: no need to read them more often.
        controller.minimumChangeLogLookInterval = .milliseconds(16)
        controller.delegate = binding
        binding.indexTitle = { Self.indexTitle(forZone: $0) }
        binding.onChange = { [unowned self] change in show(change) }
        do {
            try controller.performFetch()
        } catch {
            throw scoreboard.damage(in: error) ?? error
        }
        model.connection = scoreboard.server.map {
            BoardModel.Connection(server: $0, isLive: controller.isLive, pollInterval: controller.changesPollInterval)
        }
        model.readOnly = scoreboard.readOnly
        send(.filtered(wanted: nil))
    }

    /// The section cache name for a scoreboard: one per database file, so two databases never
    /// take turns overwriting one cache.
    public static func cacheName(for scoreboard: any TeamStore) -> String {
        var hash = FNV1a() // the section cache's own hash, stable from launch to launch
        hash.combine(scoreboard.location)
        return "WorldCup-" + hash.hex
    }

    /// Seconds since an arbitrary moment, never going back.
    public static func monotonicSeconds() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    /// The section index shows each zone's first two letters (one letter would give Africa
    /// and Asia the same title, and the index could never reach Asia), or what fits in their
    /// two cells: one wide character (🌊, 日).
    static func indexTitle(forZone zone: String) -> String? {
        let title = DisplayText.prefix(zone, width: TableView.sectionIndexTitleWidth).map(\.text).joined()
        guard !title.isEmpty else { return nil }
        return title.prefix(1).uppercased() + title.dropFirst().lowercased()
    }

    // MARK: - The model

    /// Feeds one event to the model and performs the effects it asks for.
    func send(_ event: BoardEvent) {
        let data = self.data
        for effect in model.update(event, data: data, now: clock()) { perform(effect) }
        checkReads()
    }

    /// Shows an error in the status line, or, when it says that the database file is
    /// damaged, ends the program with it (`damage`).
    func report(_ error: any Error) {
        guard damage == nil else { return }
        if let damage = scoreboard.damage(in: error) {
            self.damage = damage
            model.wantsToQuit = true
        } else {
            send(.failed("\(error)"))
        }
    }

    /// Ends the program if reading teams for drawing met damage. (Other reading errors, such
    /// as a team another program deleted a moment ago, leave a blank row until the change
    /// arrives, as before.)
    private func checkReads() {
        if let error = readFailures.take(), scoreboard.damage(in: error) != nil { report(error) }
    }

    /// Performs one effect; its outcome goes back to the model as an event. A write is asked
    /// of the store (`ask`), and its outcome comes back later.
    private func perform(_ effect: BoardEffect) {
        switch effect {
        case .tap, .add, .delete, .edit, .renameZone, .moveZone, .mergeZone, .undo, .redo:
            ask(effect)
        case let .filter(filter, wanted):
            do {
                // In memory: the request, and so the section cache, stay as they are. The
                // names are read in the background the first time: the keys go on meanwhile.
                if filter != nil, model.connection != nil || controller.numberOfObjects >= backgroundFilterMinimumTeams {
                    controller.prepareFilter(inColumn: NameFilter.column)
                }
                try controller.setFilter(filter?.resultsFilter)
                wantedWhenFilterApplies = controller.isFilterPending ? .some(wanted) : nil
                send(.filtered(wanted: wanted))
            } catch {
                report(error)
            }
        }
    }

    // MARK: - Changes

    /// Shows the changes committed since the last call, this screen's and other programs', as
    /// moves, inserts and flashes, and whether a shared board's server is reachable. Called
    /// after each of this screen's writes and when the controller says commits of others wait
    /// (`onChangesAvailable`). After this screen's own write the controller has its rows
    /// already: on a file from the commit itself, on a server from the write's answer
    /// (`PostgresWriter`), so no read waits for them.
    public func processChanges() {
        selectionBeforeChanges = model.selectedID(data)
        do {
            try controller.processPendingChanges()
        } catch {
            report(error)
        }
        if let wanted = wantedWhenFilterApplies, !controller.isFilterPending {
            // The names are in: the filter applied (or failed, and said so).
            wantedWhenFilterApplies = nil
            send(.filtered(wanted: wanted))
        }
        if let connection = model.connection, connection.isLive != controller.isLive {
            send(.connection(isLive: controller.isLive))
        }
        if let connection = model.connection, connection.pollInterval != controller.changesPollInterval {
            send(.polling(controller.changesPollInterval))
        }
        nameOthers()
    }

    /// Shows one change of the result, as the binding hands it over. Here, and only here, the
    /// screen knows whose commits a batch holds: another program's are named on the status
    /// line briefly, by author: from the notes their commits carried, or once `nameOthers()`
    /// has read who made them.
    private func show(_ change: ResultsTableBinding<Team>.Change) {
        switch change {
        case let .batch(update, origin, notes):
            send(.batch(update, selection: selectionBeforeChanges))
            guard origin == .elsewhere else { break }
            // Named from what the commits carried when they could say; else from the history.
            if let entries = othersChanges.entries(fromNotes: notes) {
                if !entries.isEmpty { send(.changedBy(entries)) }
            } else {
                othersToName = true
            }
        case .reset:
            send(.reset(selection: selectionBeforeChanges))
        }
    }

    // MARK: - Keys and time

    /// Handles keys that arrived together (fast typing, a paste): the filter's text is
    /// fetched once for the run of edits, not once per character, so typing stays fluid
    /// when each fetch takes a while (a million teams).
    /// A key that would change a team while a change of this board is being saved waits for
    /// its outcome, up to `keyWait` (`waitingKeys`): a burst of taps on one team counts each.
    public func handle(_ keys: [Key]) {
        waitingKeys += keys
        handleWaitingKeys()
    }

    /// Handles keys at once (`handleWaitingKeys` chooses which).
    func handleNow(_ keys: [Key]) {
        guard !keys.isEmpty else { return }
        for key in keys {
            let editsFilter = model.editsFilterText(key)
            // Any other key must see the filtered table first.
            if !editsFilter { performPendingFilter() }
            let data = self.data
            for effect in model.update(.key(key), data: data, now: clock()) {
                if editsFilter, case .filter = effect { pendingFilter = effect } else { perform(effect) }
            }
        }
        performPendingFilter()
    }

    private func performPendingFilter() {
        guard let effect = pendingFilter else { return }
        pendingFilter = nil
        perform(effect)
    }

    /// Handles one key.
    public func handle(_ key: Key) {
        handle([key])
    }

    /// Ends the program at the next turn of the loop.
    public func quit() {
        model.wantsToQuit = true
    }

    /// True once the user asked to quit.
    public var wantsToQuit: Bool { model.wantsToQuit }

    /// When the screen next changes by itself (a flash ending, a message fading, others'
    /// changes to name), if ever.
    public var nextDeadline: Double? {
        [model.nextDeadline, namingDue, keyWaitStart.map { $0 + Self.keyWait }].compactMap { $0 }.min()
    }

    /// Lets time pass: flashes that are over end, and so do messages; others' changes whose
    /// naming waited are named.
    public func tick() {
        send(.tick)
        nameOthers()
        handleWaitingKeys()
    }

    // MARK: - Drawing

    /// Draws the whole screen. Returns the grid and where the text caret belongs (nil: hidden).
    public func render(width: Int, height: Int) -> (grid: Grid, caret: (x: Int, y: Int)?) {
        send(.resized(width: width, height: height))
        let frame = view.render(model, data: data, now: clock())
        checkReads()
        return frame
    }

    // MARK: - Reading the board (for the app and its tests)

    /// The team under the cursor.
    public var selectedTeam: Team? {
        defer { checkReads() }
        return model.table.cursor.flatMap { data.team(at: $0) }
    }

    var table: TableView { model.table }
    var filter: NameFilter? { model.filter }
    var isEditingFilter: Bool { model.isEditingFilter }
    var dialog: FormDialog? { model.dialog }
    var status: BoardModel.StatusMessage? { model.status }
}
