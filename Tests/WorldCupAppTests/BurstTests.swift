import Foundation
import GRDB
import Testing
import LiveResults
import LiveResultsSQLite
import TerminalUI
import TestSupport
import WorldCup
@testable import WorldCupApp

@Suite("ScoreboardScreen: bursts of commits from another process")
struct BurstTests {
    /// The team names of the rows on a grid, top to bottom.
    static func shownNames(_ grid: Grid) -> [String] {
        lines(grid).compactMap { line -> String? in
            guard line.hasPrefix("  [") || line.hasPrefix("▶ ["), let close = line.firstIndex(of: "]") else { return nil }
            let rest = line[line.index(close, offsetBy: 2)...]
            guard let end = rest.range(of: "  ") else { return nil }
            return String(rest[..<end.lowerBound])
        }
    }

    @Test("Multi-row commits of another connection, read at once, leave the screen equal to a fresh list")
    func burstFromAnotherConnection() throws {
        let fixture = try ScreenFixture()
        // Another connection to the file, like another process's.
        let other = try DatabaseQueue(path: fixture.databaseURL.path)
        fixture.press(.down, times: 2) // Ghana
        #expect(fixture.screen.selectedTeam?.teamName == "Ghana")
        try other.write { db in
            // Cameroon goes; Algeria is renamed past Ghana and Ivory Coast: a move to the same row.
            try db.execute(sql: "DELETE FROM team WHERE teamName = 'Cameroon'")
            try db.execute(sql: "UPDATE team SET teamName = 'Kenya', nameKey = 'kenya', nameSortKey = 'kenya' WHERE teamName = 'Algeria'")
            try db.execute(sql: "UPDATE team SET wins = 3 WHERE teamName IN ('Japan', 'Spain')")
        }
        try other.write { db in
            // A new zone, and a REPLACE on the unique folded name: Korea is replaced.
            try db.execute(sql: """
                UPDATE zone SET position = position + 1 WHERE position >= 4;
                INSERT INTO zone (name, nameKey, position) VALUES ('Oceania', 'oceania', 4);
                INSERT OR REPLACE INTO team (teamName, zoneID, imageName, wins, nameKey, nameSortKey)
                VALUES ('KOREA', (SELECT id FROM zone WHERE nameKey = 'oceania'), 'wenderland-flag', 1, 'korea', 'korea')
                """)
        }
        for _ in 0..<5 { try other.write { try $0.execute(sql: "UPDATE team SET wins = wins + 1 WHERE teamName = 'Ghana'") } }
        try fixture.screen.controller.refresh()

        let grid = fixture.render(width: 80, height: 60)
        let fresh = try fixture.scoreboard.teams().map(\.teamName)
        #expect(Self.shownNames(grid) == fresh)
        #expect(fresh.contains("KOREA") && !fresh.contains("Korea") && !fresh.contains("Cameroon"))
        #expect(fixture.screen.selectedTeam?.teamName == "Ghana", "the cursor stays on its team")
        #expect(drawingProblems(grid).isEmpty)
    }
}
