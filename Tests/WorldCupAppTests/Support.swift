@testable import WorldCupApp
import Foundation
import LiveResults
import TerminalUI
import TestSupport
import Testing
import WorldCup
import WorldCupSQLite

/// A clock the tests move by hand, so flashes are deterministic.
final class FakeClock {
    var now: Double = 1000
}

/// A scoreboard on a fresh temporary database seeded with the 32 teams, and its screen.
/// Its folder is removed when the fixture goes away.
final class ScreenFixture {
    let folder: TemporaryFolder
    let scoreboard: SQLiteTeamStore
    let clock: FakeClock
    let screen: ScoreboardScreen

    /// `writesOffTheLoop`: the screen's writes run on a thread of their own, as in the app
    /// (`screen.finishWork()` waits for them); otherwise each `handle` returns with its outcome.
    init(colors: ColorDepth? = nil, background: Palette.Background = .dark, flags: FlagStyle = .badges, writesOffTheLoop: Bool = false) throws {
        folder = try TemporaryFolder(prefix: "worldcup-app-tests")
        scoreboard = try SQLiteTeamStore(databaseURL: folder.database, seed: Seed.bundled())
        let clock = FakeClock()
        self.clock = clock
        // The tests wait for the work themselves (`finishWork()`): nothing to wake.
        let workFinished: (@Sendable () -> Void)? = writesOffTheLoop ? { @Sendable () -> Void in } : nil
        screen = try ScoreboardScreen(scoreboard: scoreboard, colors: colors, background: background, flags: flags, clock: { clock.now },
                                      onWorkFinished: workFinished)
    }

    /// The database file.
    var databaseURL: URL { folder.database }

    deinit {
        folder.remove()
    }

    /// Renders the screen (80×24 unless told) and returns the grid.
    func render(width: Int = 80, height: Int = 24) -> Grid {
        screen.render(width: width, height: height).grid
    }

    /// Sends every character of a text as a key.
    func type(_ text: String) {
        for character in text { screen.handle(.character(character)) }
    }

    func press(_ key: Key, times: Int = 1) {
        for _ in 0..<times { screen.handle(key) }
    }

    /// A mouse action at a cell of the last rendered screen.
    func mouse(_ action: MouseEvent.Action, x: Int, y: Int) {
        screen.handle(.mouse(MouseEvent(action, x: x, y: y)))
    }
}

/// A board's data held in arrays: no database, no controller.
struct ArrayData: BoardData {
    var zones: [(name: String, teams: [Team])]
    /// Whether the filter waits for the names it reads.
    var isFilterPending = false

    var tableSections: [TableSection] { zones.map { TableSection(title: $0.name, rowCount: $0.teams.count) } }
    var sectionIndexTitles: [String] { zones.map { String($0.name.prefix(2)) } }
    var teamCount: Int { zones.reduce(0) { $0 + $1.teams.count } }

    func team(at position: TablePosition) -> Team? {
        guard zones.indices.contains(position.section), zones[position.section].teams.indices.contains(position.row) else { return nil }
        return zones[position.section].teams[position.row]
    }

    func id(at position: TablePosition) -> RecordID? { team(at: position)?.id }

    func position(of id: RecordID) -> TablePosition? {
        for (s, zone) in zones.enumerated() {
            if let row = zone.teams.firstIndex(where: { $0.id == id }) { return TablePosition(section: s, row: row) }
        }
        return nil
    }

    func section(forIndexTitle title: String, at index: Int) -> Int { sectionIndexTitles.firstIndex(of: title) ?? index }

    /// A zone's id is its place in `zones`, from 1.
    func sectionIdentifier(_ section: Int) -> String? { zones.indices.contains(section) ? String(section + 1) : nil }

    /// Two zones, three teams.
    static let sample = ArrayData(zones: [
        ("Africa", [Team(id: 1, teamName: "Algeria", qualifyingZone: "Africa", imageName: "algeria-flag"),
                    Team(id: 2, teamName: "Ghana", qualifyingZone: "Africa", imageName: "ghana-flag")]),
        ("Europe", [Team(id: 3, teamName: "Spain", qualifyingZone: "Europe", imageName: "spain-flag", wins: 2)]),
    ])
}

extension ArrayData {
    /// The 32 teams of the built-in seed (ids 1 to 32 in the seed's order), zones and names in
    /// byte order, as the board shows them with no wins: what `ScreenFixture` shows at first,
    /// without a database.
    static let seeded: ArrayData = {
        let teams = try! Seed.bundled().enumerated().map { index, seed in
            Team(id: RecordID(index + 1), teamName: seed.teamName, qualifyingZone: seed.qualifyingZone, imageName: seed.imageName, wins: seed.wins)
        }
        let bytesBefore = { (a: String, b: String) in Array(a.utf8).lexicographicallyPrecedes(Array(b.utf8)) }
        let zones = Dictionary(grouping: teams, by: \.qualifyingZone).sorted { bytesBefore($0.key, $1.key) }
        return ArrayData(zones: zones.map { zone, teams in (zone, teams.sorted { bytesBefore($0.teamName, $1.teamName) }) })
    }()
}

/// The board without its runtime: the model, its data in arrays and the view, so keys, modes
/// and drawing are tested without a database or a terminal. Time stands still at 0.
struct PureBoard {
    var model = BoardModel()
    var data: ArrayData
    let view = BoardView(theme: Theme(colors: nil), flagStyle: .badges)

    /// The board of `data`, laid out on an 80×24 screen, the cursor on the first team.
    init(_ data: ArrayData = .seeded) {
        self.data = data
        _ = model.update(.filtered(wanted: nil), data: data, now: 0)
        _ = model.update(.resized(width: 80, height: 24), data: data, now: 0)
    }

    /// Sends a key `times` times; returns the effects asked for, in order.
    @discardableResult
    mutating func press(_ key: Key, times: Int = 1) -> [BoardEffect] {
        (0..<times).flatMap { _ in model.update(.key(key), data: data, now: 0) }
    }

    /// Lays the board out on a screen of this size and draws it.
    mutating func render(width: Int = 80, height: Int = 24) -> (grid: Grid, caret: (x: Int, y: Int)?) {
        _ = model.update(.resized(width: width, height: height), data: data, now: 0)
        return view.render(model, data: data, now: 0)
    }

    /// The team under the cursor.
    var selectedTeam: Team? {
        model.table.cursor.flatMap { data.team(at: $0) }
    }
}

/// The cells the section index takes at the right edge of a screen this wide: a blank, a
/// title of two letters, a blank; none when the rows would keep fewer than 40 cells.
func indexWidth(_ width: Int) -> Int {
    // The documented rule (README: the index shows from 44 columns), not the production constant.
    width >= 44 ? 4 : 0
}

/// A line without the section index column.
func withoutIndex(_ line: String, width: Int) -> String {
    var kept = "", cells = 0
    for character in line {
        cells += DisplayText.width(String(character))
        if cells > width - indexWidth(width) { break }
        kept.append(character)
    }
    while kept.last == " " { kept.removeLast() }
    return kept
}

/// The section headers shown in the table area (between the title line and the status line).
func headers(_ grid: Grid) -> [String] {
    lines(grid)[1..<(grid.height - 2)].compactMap { line in
        let line = withoutIndex(line, width: grid.width)
        guard line.hasPrefix(" "), line.count > 1, line.dropFirst().first != " " else { return nil }
        return String(line.dropFirst())
    }
}

/// The y and text of the row that shows a team, found by its badge and title.
func row(_ name: String, in grid: Grid) -> (y: Int, line: String)? {
    for (y, line) in lines(grid).enumerated() where y > 0 && y < grid.height - 2 {
        if line.contains("] \(name)  ") { return (y, line) }
    }
    return nil
}

/// The teams in scoreboard order, as the seed lists them per zone.
let zoneOrder = ["Africa", "Asia", "Europe", "North, Central America & Caribbean", "South America"]
