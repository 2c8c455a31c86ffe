@testable import WorldCupApp
import TestSupport
import Testing
import WorldCup

// The filter finds names as people type them: case, accents and apostrophes folded, as the
// command line's lookup folds them.
extension FilterTests {
    @Test("Matching folds accents as the board's order does: /emoji, /cote and /ÉMOJI find Émoji and Côte d’Ivoire")
    func foldsAccents() throws {
        let fixture = try ScreenFixture()
        for name in ["\u{C9}moji", "Emoji", "C\u{F4}te d\u{2019}Ivoire", "Cote Bleue"] {
            try fixture.scoreboard.add(name: name, zone: "Africa")
        }
        fixture.screen.processChanges()
        for (typed, expected) in [("emoji", ["Emoji", "\u{C9}moji"]), ("\u{C9}MOJI", ["Emoji", "\u{C9}moji"]), ("E\u{301}mo", ["Emoji", "\u{C9}moji"]),
                                  ("cote", ["Cote Bleue", "C\u{F4}te d\u{2019}Ivoire"]), ("C\u{D4}TE D", ["C\u{F4}te d\u{2019}Ivoire"]), ("IVO", ["C\u{F4}te d\u{2019}Ivoire", "Ivory Coast"])] {
            fixture.press(.character("/"))
            fixture.type(typed)
            #expect(try shownNames(fixture) == expected, "/\(typed)")
            fixture.press(.escape)
        }
    }

    @Test("The filter folds the apostrophes ' ’ ‘ ʼ as the command line finds a team: one rule (Team.folded), highlighted where typed")
    func foldsApostrophesAsTheCommandLine() throws {
        let fixture = try ScreenFixture()
        for name in ["C\u{F4}te d\u{2019}Ivoire", "Cote d'Or", "O\u{2018}Brien"] {
            try fixture.scoreboard.add(name: name, zone: "Africa")
        }
        fixture.screen.processChanges()
        for (typed, expected) in [("d'iv", ["C\u{F4}te d\u{2019}Ivoire"]), ("D\u{2019}IV", ["C\u{F4}te d\u{2019}Ivoire"]), ("d\u{2BC}o", ["Cote d'Or"]),
                                  ("cote d\u{2018}", ["C\u{F4}te d\u{2019}Ivoire", "Cote d'Or"]), ("o'b", ["O\u{2018}Brien"])] {
            fixture.press(.character("/"))
            fixture.type(typed)
            #expect(try shownNames(fixture) == expected, "/\(typed)")
            // Each name shown is the one the command line finds by the same text.
            for name in expected { #expect(try fixture.scoreboard.team(meant: name.replacingOccurrences(of: "\u{2019}", with: "'")).teamName == name) }
            fixture.press(.escape)
        }
        fixture.press(.character("/"))
        fixture.type("d'i")
        let grid = fixture.render()
        let row = try #require((0..<grid.height).first { lines(grid)[$0].contains("C\u{F4}te d\u{2019}Ivoire") })
        let line = lines(grid)[row]
        let x = try #require(line.range(of: "C\u{F4}te").map { line.distance(from: line.startIndex, to: $0.lowerBound) })
        // "Côte " plain, "d’I" underlined, "voire" plain.
        #expect((x..<x + 13).map { grid[$0, row].style.underline } == (0..<13).map { (5..<8).contains($0) })
    }

    @Test("What the filter found is highlighted where it is in the name, accents and all")
    func highlightsTheMatch() throws {
        let fixture = try ScreenFixture()
        try fixture.scoreboard.add(name: "C\u{F4}te d\u{2019}Ivoire", zone: "Africa")
        fixture.screen.processChanges()
        fixture.press(.character("/"))
        fixture.type("te d")
        let grid = fixture.render()
        let row = try #require((0..<grid.height).first { lines(grid)[$0].contains("C\u{F4}te d\u{2019}Ivoire") })
        let x = try #require(lines(grid)[row].range(of: "C\u{F4}te").map { lines(grid)[row].distance(from: lines(grid)[row].startIndex, to: $0.lowerBound) })
        let emphasised = (x..<x + 13).map { grid[$0, row].style.underline }
        // "Cô" plain, "te d" underlined, "’Ivoire" plain.
        #expect(emphasised == [false, false, true, true, true, true, false, false, false, false, false, false, false], "\(emphasised)")
        #expect(grid[x + 2, row].style.bold)
        fixture.press(.escape)
        let plain = fixture.render()
        let plainRow = try #require((0..<plain.height).first { lines(plain)[$0].contains("C\u{F4}te d\u{2019}Ivoire") })
        #expect(!(0..<plain.width).contains { plain[$0, plainRow].style.underline }, "no highlight without a filter")
    }
}
