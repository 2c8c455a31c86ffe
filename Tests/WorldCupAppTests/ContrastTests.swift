import Foundation
import Testing
import TerminalUI
import TestSupport
import WorldCup
@testable import WorldCupApp

/// The badges of every team the app knows: the seed's 32 (England among them), the secret
/// team's, and a team whose image is unknown.
private func allBadges() throws -> [FlagBadge] {
    let seed = try Seed.bundled()
    #expect(seed.count == 32)
    return seed.map { FlagBadge.forTeam(imageName: $0.imageName, teamName: $0.teamName) }
        + [FlagBadge.forTeam(imageName: Team.secretImageName, teamName: "Wakanda"),
           FlagBadge.forTeam(imageName: "atlantis-flag", teamName: "Atlantis")]
}

/// The palettes the app draws with, as xterm shows them, on a dark and a light background.
private let palettes: [(name: String, palette: Palette)] = ColorDepth.allCases.flatMap { depth in
    Palette.Background.allCases.map { background in
        ("\(depth == .eight ? "8 colours" : "256 colours"), \(background) background", Palette.xterm(depth, background: background))
    }
}

/// The level of WCAG 2 (AA) for text: 4.5:1.
private let readable = 4.5

@Suite("Contrast: every badge letter and every text on the board can be read")
struct ContrastTests {
    @Test("Every letter of every badge reaches 4.5:1 against its stripe, in 8 and 256 colours")
    func badgeLetters() throws {
        let badges = try allBadges()
        #expect(badges.contains { $0.code == "ENG" })
        #expect(badges.contains { $0.code == "WND" })
        for (name, palette) in palettes {
            var lowest = (ratio: Double.infinity, what: "")
            for badge in badges {
                let spans = badge.spans(colors: palette.depth)
                #expect(spans.map(\.text).joined() == badge.code)
                for (span, stripe) in zip(spans, badge.colors) {
                    #expect(span.style.background == stripe)
                    let ratio = palette.contrastRatio(of: span.style)
                    let shown = palette.appearance(of: span.style)
                    let what = "\(badge.code): \(span.text) is \(shown.text) on \(shown.cell), \(String(format: "%.2f", ratio)):1"
                    #expect(ratio >= readable, "\(name): \(what)")
                    if ratio < lowest.ratio { lowest = (ratio, what) }
                }
            }
            print("lowest badge contrast, \(name): \(lowest.what)")
        }
    }

    @Test("Each letter takes the foreground with the higher contrast on its stripe")
    func blackOrWhite() throws {
        for badge in try allBadges() {
            for depth in ColorDepth.allCases {
                let palette = Palette.xterm(depth)
                for (span, stripe) in zip(badge.spans(colors: depth), badge.colors) {
                    let other: TerminalColor = span.style.foreground == .pureBlack ? .pureWhite : .pureBlack
                    #expect([TerminalColor.pureBlack, .pureWhite].contains(span.style.foreground))
                    for bold in [false, true] {
                        let alternative = Style(foreground: other, background: stripe, bold: bold)
                        #expect(palette.contrastRatio(of: span.style) >= palette.contrastRatio(of: alternative), "\(badge.code): \(span.text) at \(depth)")
                    }
                }
            }
        }
    }

    @Test("With 256 colours the flags take their colours from the cube and the ramp; with eight, the basic ones")
    func flagColours() throws {
        for badge in try allBadges() where badge.code != "WND" && badge.code != "ATL" {
            for stripe in badge.colors {
                #expect(stripe.exact != nil, "\(badge.code)")
                #expect(ColorDepth.indexed256.number(for: stripe) >= 16, "\(badge.code)")
                #expect((0...7).contains(ColorDepth.eight.number(for: stripe)), "\(badge.code)")
            }
        }
    }

    /// Every cell with text on a screen: its text and style.
    private func textCells(_ grid: Grid) -> [(x: Int, y: Int, text: String, style: Style)] {
        var cells: [(Int, Int, String, Style)] = []
        for y in 0..<grid.height {
            for x in 0..<grid.width {
                let cell = grid[x, y]
                guard !cell.isContinuation, !cell.text.allSatisfy(\.isWhitespace) else { continue }
                cells.append((x, y, cell.text, cell.style))
            }
        }
        return cells
    }

    /// Checks every text cell of a screen, accents on the terminal's own background included,
    /// in the palette of the background its theme was chosen for.
    private func checkReadable(_ grid: Grid, _ state: String, depth: ColorDepth, background: Palette.Background,
                               sourceLocation: SourceLocation = #_sourceLocation) -> Double {
        var lowest = Double.infinity
        for (name, palette) in palettes where palette.depth == depth && palette == Palette.xterm(depth, background: background) {
            for cell in textCells(grid) {
                let ratio = palette.contrastRatio(of: cell.style)
                lowest = min(lowest, ratio)
                #expect(ratio >= readable, "\(state), \(name): “\(cell.text)” at (\(cell.x), \(cell.y)) \(String(format: "%.2f", ratio)):1", sourceLocation: sourceLocation)
            }
        }
        return lowest
    }

    @Test("The board, the cursor row, a flash, the dim win counts, the title, headers, section index, messages and the dialog stay readable, in the dark and the light theme",
          arguments: ColorDepth.allCases, Palette.Background.allCases)
    func screen(depth: ColorDepth, background: Palette.Background) throws {
        let fixture = try ScreenFixture(colors: depth, background: background)
        func checkReadable(_ grid: Grid, _ state: String, depth: ColorDepth, sourceLocation: SourceLocation = #_sourceLocation) -> Double {
            self.checkReadable(grid, "\(state) (\(background) theme)", depth: depth, background: background, sourceLocation: sourceLocation)
        }
        var lowest = checkReadable(fixture.render(width: 100, height: 34), "the board", depth: depth)
        // A message on the status line, and an error.
        fixture.press(.escape)
        lowest = min(lowest, checkReadable(fixture.render(width: 100, height: 34), "a message", depth: depth))
        fixture.press(.character("d"))
        lowest = min(lowest, checkReadable(fixture.render(width: 100, height: 34), "a question", depth: depth))
        fixture.press(.character("n"))

        // A tap moves Nigeria up; moving on leaves its row flashing without the cursor.
        fixture.press(.down, times: 4)
        fixture.press(.enter)
        fixture.press(.down)
        let flashing = fixture.render(width: 100, height: 34)
        let nigeria = try #require(lines(flashing).firstIndex { $0.contains(" Nigeria ") && $0.contains("Wins:") })
        #expect(flashing[40, nigeria].style == fixture.screen.theme.table.flash)
        #expect(lines(flashing)[nigeria].contains("Wins: 1"))
        lowest = min(lowest, checkReadable(flashing, "a flash", depth: depth))

        // The add dialog with an error in it.
        fixture.fillAddDialog(name: "Algeria", zone: nil)
        fixture.press(.enter)
        let dialog = fixture.render(width: 100, height: 34)
        #expect(fixture.screen.dialog?.message != nil)
        lowest = min(lowest, checkReadable(dialog, "the add dialog", depth: depth))
        fixture.press(.escape)

        fixture.press(.character("?"))
        lowest = min(lowest, checkReadable(fixture.render(width: 100, height: 34), "the key help", depth: depth))
        print("lowest screen contrast, \(depth), \(background) theme: \(String(format: "%.2f", lowest)):1")
    }
}
