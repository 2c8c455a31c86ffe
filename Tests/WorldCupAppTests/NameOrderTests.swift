import Foundation
import Testing
import TerminalUI
import TestSupport
import WorldCup
@testable import WorldCupApp

/// Names and zones as people read them, on the screen: names sorted with case and accents
/// folded, and a zone typed in another case joining the board's spelling.
@Suite("ScoreboardScreen: names and zones as people read them")
struct NameOrderTests {
    @Test("alpha, Åland, Émoji and Switzerland show in the order people read them, ties by their bytes")
    func namesInReadingOrder() throws {
        let fixture = try ScreenFixture()
        // Switzerland, of the seed, moves to the new zone with the others.
        try fixture.scoreboard.delete(named: "Switzerland")
        for name in ["Switzerland", "Émoji", "alpha", "Emoji", "Åland"] { try fixture.scoreboard.add(name: name, zone: "Zed") }
        try fixture.screen.controller.refresh()
        let text = lines(fixture.render(width: 80, height: 60))
        let zed = try #require(text.firstIndex(of: " Zed"))
        let rows = text[(zed + 1)...].prefix(5).map { $0.dropFirst(2).replacingOccurrences(of: "[WND] ", with: "").split(separator: " ").first.map(String.init) }
        #expect(rows == ["Åland", "alpha", "Emoji", "Émoji", "Switzerland"], "\(text[zed...])")
    }

    @Test("A zone typed in another case shows the board's spelling as it is typed, and the team joins that section")
    func zoneInAnotherCase() throws {
        let fixture = try ScreenFixture()
        _ = fixture.render()
        fixture.fillAddDialog(name: "Egypt", zone: "africa")
        #expect(fixture.screen.dialog?.message == "Joins the zone “Africa”, as the board spells it.")
        #expect(fixture.screen.dialog?.messageIsHint == true, "a hint, not drawn as an error")
        fixture.press(.backspace)
        #expect(fixture.screen.dialog?.message == nil, "“afric” is no zone of the board")
        fixture.type("A")
        #expect(fixture.screen.dialog?.message == "Joins the zone “Africa”, as the board spells it.")
        fixture.press(.enter)
        #expect(fixture.screen.dialog == nil)
        #expect(fixture.screen.status?.text == "Added Egypt to Africa.")
        #expect(fixture.screen.controller.sections.map(\.name).filter { $0.lowercased() == "africa" } == ["Africa"])
        #expect(try fixture.scoreboard.team(named: "egypt")?.qualifyingZone == "Africa")
        // The exact spelling needs no hint.
        fixture.fillAddDialog(name: "Sudan", zone: "Africa")
        #expect(fixture.screen.dialog?.message == nil)
    }
}
