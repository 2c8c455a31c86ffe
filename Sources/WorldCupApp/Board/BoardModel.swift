import Foundation
import LiveResults
import TerminalUI
import WorldCup

/// Everything the scoreboard shows and what the keys do now: the one model of the board.
///
/// `BoardModel.update` changes it for each event and returns the effects to perform (writes,
/// the filter); `BoardView` draws it. Neither touches a database or a terminal: the teams come
/// through `BoardData`, and `ScoreboardScreen` performs the effects.
struct BoardModel {
    /// What the keys do now. The modes exclude each other.
    enum Mode {
        /// Keys move on the table and act on its teams.
        case browsing
        /// The key help covers the table.
        case help(KeyHelpPanel)
        /// A y/N question before a team is deleted.
        case confirmingDelete(id: RecordID, name: String)
        /// The add dialog.
        case adding(FormDialog)
        /// The edit dialog, for this team as it was when the dialog opened.
        case editing(FormDialog, team: Team)
        /// The dialog that renames the zone of the team under the cursor.
        case renamingZone(FormDialog, zone: ZoneOnBoard)
        /// A y/N question before a zone is merged into another (a rename to its name).
        case confirmingMerge(ZoneMergeNeeded)
        /// The "/" filter is typed (its text is `filter`).
        case filtering
    }

    /// A shared board's server, as the title shows it.
    struct Connection: Equatable {
        /// Host and database (never a password).
        var server: String
        /// False while the connection is being made again: the board shows what it last knew.
        var isLive: Bool
        /// Nil while other programs' changes arrive as they are made; otherwise how often the
        /// board reads them (behind a transaction-mode pooler, where notifications never come).
        var pollInterval: Duration? = nil
    }

    /// A message on the status line.
    struct StatusMessage: Equatable {
        var text: String
        var isError: Bool
        /// When it fades; nil: at the next key.
        var expiry: Double?
        /// Whether it names what other programs changed (which a newer such notice replaces).
        var isFromElsewhere = false
    }

    var mode = Mode.browsing
    var table = TableView()
    /// The "/" filter while it is typed or kept; nil without one.
    var filter: NameFilter?
    /// The team the cursor was on when the filter hid it, and the team the cursor went to
    /// instead: while the filter is typed and the cursor stays there, the hidden team gets it
    /// back when it shows again.
    var hiddenSelection: (id: RecordID, substitute: RecordID?)?
    /// A team this board added that the result does not hold yet (an add that makes a zone
    /// comes through the change log, after the write returns): the cursor goes to it when a
    /// batch brings it, unless a key moved on meanwhile.
    var arrivingSelection: RecordID?
    var status: StatusMessage?
    /// This board's own changes, for `u` and Ctrl-R.
    var ownChanges = OwnChanges()
    /// The changes asked of the store whose outcome has not come back, oldest first.
    var pendingWrites: [PendingWrite] = []
    /// The runs of taps queued on one team (`TapRun`), by the team's id, until the last is answered.
    var tapRuns: [RecordID: TapRun] = [:]
    /// Other programs' changes not yet named on the status line, because an error or a
    /// question holds it: they are named once it is free.
    var othersWaiting: OthersNotice?
    /// The server the board is on and whether its changes reach the board now; nil for a
    /// file of this machine (always live).
    var connection: Connection?
    /// The teams with the most wins, best first: one, or those tied with it, up to
    /// `leadersNamed` plus one (which says there are more). Empty while filtered or empty.
    var leaders: [Team] = []

    /// Why the board only watches (a spectator's board); nil when its keys may change teams.
    /// Then Enter, +, d, Delete and a double-click are refused at once, on the status line.
    var readOnly: ReadOnlyBoard?
    /// The team with the most wins (nil while filtered or empty).
    var leader: Team? { leaders.first }
    /// The size of the screen the board was last laid out in.
    var screenSize = (width: 80, height: 24)
    /// True once the user asked to quit.
    var wantsToQuit = false

    /// How long a message stays on the status line unless a key clears it sooner: a
    /// confirmation, an error, and a note that another program changed the board.
    static let confirmationSeconds = 4.0, errorSeconds = 8.0, changedElsewhereSeconds = 2.5
    /// How far one turn of the wheel scrolls.
    static let wheelLines = 3
    /// How many tied leaders the title names before it says "and others".
    static let leadersNamed = 3
    /// The smallest screen the board draws on.
    static let minimumSize = (width: 40, height: 10)

    /// The keys, as the help lists them.
    static let keyHelp: [KeyHelpPanel.Entry] = [
        .init(keys: "↑ ↓  k j", action: "move"),
        .init(keys: "PgUp PgDn  Ctrl-B Ctrl-F", action: "page"),
        .init(keys: "Home End  g G", action: "first or last team"),
        .init(keys: "Tab  Shift-Tab", action: "next zone, previous zone"),
        .init(keys: "Enter", action: "tap: one more win"),
        .init(keys: "+", action: "add a secret team"),
        .init(keys: "d  Delete", action: "delete the team (asks y/N)"),
        .init(keys: "e  u  Ctrl-R", action: "edit; undo this board's last change; redo"),
        .init(keys: "r  [  ]", action: "rename or merge the zone; move it up, down"),
        .init(keys: "/", action: "filter by name; Enter keeps, Esc clears"),
        .init(keys: "mouse", action: "click selects, double-click taps, the wheel scrolls"),
        .init(keys: "[WND]", action: "a secret team's badge: Wenderland, the sample's made-up country"),
        .init(keys: "?", action: "this help (↑ ↓ scroll it; q or Esc closes it)"),
        .init(keys: "Esc", action: "cancel: close the help, the dialog or the question, clear the filter; never quits"),
        .init(keys: "q  Ctrl-C", action: "quit"),
    ]

    /// What Esc says on the board, where it has nothing to cancel.
    static let howToQuit = "Esc cancels and clears; q quits."

    /// The widest the board's column gets: a badge, the longest name, its wins and the section
    /// index, with room to spare. A wider screen gives the rest to margins, so that a team's
    /// wins stay near its name.
    static let maximumContentWidth = 100

    /// The columns the board takes on a screen this wide: all of them, up to
    /// `maximumContentWidth`, centred.
    static func contentColumn(width: Int) -> (x: Int, width: Int) {
        let used = min(width, maximumContentWidth)
        return ((width - used) / 2, used)
    }

    /// The area of the screen the table takes: between the title line and the status line,
    /// in the board's column.
    static func tableArea(width: Int, height: Int) -> Rect {
        let column = contentColumn(width: width)
        return Rect(x: column.x, y: 1, width: column.width, height: height - 3)
    }

    // MARK: - Reading the mode

    var isEditingFilter: Bool {
        if case .filtering = mode { return true } else { return false }
    }

    var dialog: FormDialog? {
        switch mode {
        case .adding(let form), .editing(let form, _), .renamingZone(let form, _): form
        default: nil
        }
    }

    var help: KeyHelpPanel? {
        if case .help(let panel) = mode { return panel } else { return nil }
    }

    var isAskingToDelete: Bool {
        if case .confirmingDelete = mode { return true } else { return false }
    }

    /// Whether the status line asks a y/N question (a delete, a merge), which stays until answered.
    var isAskingQuestion: Bool {
        switch mode {
        case .confirmingDelete, .confirmingMerge: true
        default: false
        }
    }

    /// When the board next changes by itself (a flash ending, a message fading), if ever.
    var nextDeadline: Double? {
        [table.nextFlashExpiry, status?.expiry].compactMap { $0 }.min()
    }

    /// Whether a key would only edit the filter's text: a run of those is fetched once.
    func editsFilterText(_ key: Key) -> Bool {
        guard isEditingFilter else { return false }
        switch key {
        case .character, .backspace, .control("u"): return true
        default: return false
        }
    }
}

/// What the board reads of the live result: teams at places of the table, and places of
/// teams. `ScoreboardScreen` reads it from the results controller; tests from an array.
protocol BoardData {
    /// The sections of the result, as the table shows them.
    var tableSections: [TableSection] { get }
    /// The titles of the section index.
    var sectionIndexTitles: [String] { get }
    /// The number of teams in the result.
    var teamCount: Int { get }
    /// The id of the team at a place of the table.
    func id(at position: TablePosition) -> RecordID?
    /// The team at a place of the table; nil when it cannot be read.
    func team(at position: TablePosition) -> Team?
    /// The place of a team; nil when the result does not hold it.
    func position(of id: RecordID) -> TablePosition?
    /// The section a title of the section index shows.
    func section(forIndexTitle title: String, at index: Int) -> Int
    /// What identifies a section across changes: its zone's id, as text; nil past the sections.
    func sectionIdentifier(_ section: Int) -> String?
    /// Whether the filter waits for the names it reads (being read in the background).
    var isFilterPending: Bool { get }
}

extension BoardData {
    /// None waits by default.
    var isFilterPending: Bool { false }

    /// The team with the most wins: the best of the sections' first rows.
    var leader: Team? {
        tableSections.indices.compactMap { team(at: TablePosition(section: $0, row: 0)) }.min { $0.ranksAhead(of: $1) }
    }

    /// The leader and the teams with as many wins, best first, at most `limit`: of each
    /// section, its first rows while they have the leader's wins (a section is sorted by
    /// wins). Each section's first row is read once; the rows after it only in tied sections.
    func leaders(limit: Int) -> [Team] {
        let sections = tableSections
        let firsts = sections.indices.compactMap { section in team(at: TablePosition(section: section, row: 0)).map { (section, $0) } }
        guard let best = firsts.map(\.1).min(by: { $0.ranksAhead(of: $1) }) else { return [] }
        var tied: [Team] = []
        for (section, first) in firsts where first.wins == best.wins {
            tied.append(first)
            for row in 1..<max(1, min(limit, sections[section].rowCount)) {
                guard let team = team(at: TablePosition(section: section, row: row)), team.wins == best.wins else { break }
                tied.append(team)
            }
        }
        return Array(tied.sorted { $0.ranksAhead(of: $1) }.prefix(limit))
    }
}
