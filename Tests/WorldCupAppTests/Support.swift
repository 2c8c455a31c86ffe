import Foundation
import Testing
import LiveResults
import TerminalUI
import TestSupport
import WorldCup
@testable import WorldCupApp

/// A clock the tests move by hand, so flashes are deterministic.
final class FakeClock {
    var now: Double = 1000
}

/// A scoreboard on a fresh temporary database seeded with the 32 teams, and its screen.
/// Its folder is removed when the fixture goes away.
final class ScreenFixture {
    let folder: TemporaryFolder
    let scoreboard: TeamStore
    let clock: FakeClock
    let screen: ScoreboardScreen

    init(colors: ColorDepth? = nil, flags: FlagStyle = .badges) throws {
        folder = try TemporaryFolder(prefix: "worldcup-app-tests")
        scoreboard = try TeamStore(databaseURL: folder.database, seed: Seed.bundled())
        let clock = FakeClock()
        self.clock = clock
        screen = try ScoreboardScreen(scoreboard: scoreboard, colors: colors, flags: flags, clock: { clock.now })
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
