import Testing
@testable import TerminalUI

/// Reading the terminal's background from `COLORFGBG` and from an OSC 11 answer.
@Suite("TerminalBackground: COLORFGBG and OSC 11 answers")
struct TerminalBackgroundTests {
    @Test("COLORFGBG's last number is the background: 7 and 9–15 are light, the others dark", arguments: [
        ("15;0", Palette.Background.dark), ("0;15", .light), ("0;7", .light), ("7;0", .dark), ("15;default;0", .dark), ("12;8", .dark),
    ])
    func colorFGBG(_ value: String, _ expected: Palette.Background) {
        #expect(TerminalBackground.fromColorFGBG(value) == expected)
    }

    @Test("COLORFGBG without a number says nothing", arguments: [nil, "", "default", "15;x"] as [String?])
    func colorFGBGWithout(_ value: String?) {
        #expect(TerminalBackground.fromColorFGBG(value) == nil)
    }

    @Test("An OSC 11 answer gives the background, with BEL or ST, with 2 or 4 hex digits a channel, before the device attributes", arguments: [
        ("\u{1B}]11;rgb:ffff/ffff/ffff\u{07}", Palette.Background.light),
        ("\u{1B}]11;rgb:0000/0000/0000\u{1B}\\\u{1B}[?64;1;2c", .dark),
        ("\u{1B}]11;rgb:fd/f6/e3\u{07}", .light),  // Solarized light
        ("\u{1B}]11;rgb:2828/2c2c/3434\u{07}\u{1B}[?1;2c", .dark),
    ])
    func osc11(_ answer: String, _ expected: Palette.Background) {
        #expect(TerminalBackground.fromOSC11Answer(Array(answer.utf8)) == expected)
    }

    @Test("No OSC 11 answer (only the device attributes, or garbage) says nothing", arguments: ["\u{1B}[?1;2c", "", "\u{1B}]11;rgb:zz/00/00\u{07}", "\u{1B}]11;rgb:ff/ff\u{07}"])
    func noAnswer(_ answer: String) {
        #expect(TerminalBackground.fromOSC11Answer(Array(answer.utf8)) == nil)
    }

    @Test("The device attributes answer ends the wait")
    func deviceAttributes() {
        #expect(TerminalBackground.endsWithDeviceAttributes(Array("\u{1B}]11;rgb:0/0/0\u{07}\u{1B}[?64;1;2c".utf8)))
        #expect(!TerminalBackground.endsWithDeviceAttributes(Array("\u{1B}]11;rgb:0/0/0\u{07}".utf8)))
        #expect(!TerminalBackground.endsWithDeviceAttributes(Array("abc".utf8)))
    }
}
