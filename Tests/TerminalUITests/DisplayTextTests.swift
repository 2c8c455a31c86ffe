import Testing
@testable import TerminalUI
import TestSupport

/// The text the glyphs would write, joined.
func joined(_ glyphs: [DisplayText.Glyph]) -> String {
    glyphs.map(\.text).joined()
}

/// The cells the glyphs take.
func cells(_ glyphs: [DisplayText.Glyph]) -> Int {
    glyphs.reduce(0) { $0 + $1.width }
}

@Suite("DisplayText: widths and safe glyphs")
struct DisplayTextTests {
    @Test("Display widths", arguments: [
        ("", 0),
        ("a", 1),
        ("Hello", 5),
        ("日本", 4),
        ("한국", 4),
        ("Ａ", 2),  // fullwidth A
        ("😀", 2),
        ("e\u{301}", 1),  // e + combining acute
        ("Z\u{301}\u{302}\u{303}\u{304}\u{305}\u{306}\u{307}", 1),  // zalgo
        ("👨‍👩‍👧‍👦", 2),  // ZWJ family: a placeholder of two cells
        ("🏴‍☠️", 2),  // ZWJ: pirate flag
        ("🏴󠁧󠁢󠁥󠁮󠁧󠁿", 2),  // tag sequence: England's flag
        ("👍🏽", 2),  // skin tone
        ("🇫🇷", 2),  // flag: two regional indicators, two cells
        ("🇫🇷🇩🇪", 4),
        ("Côte d’Ivoire", 13),
    ])
    func width(_ text: String, _ expected: Int) {
        #expect(DisplayText.width(text) == expected)
        #expect(cells(DisplayText.glyphs(text)) == expected)
    }

    @Test("Every glyph takes one or two cells")
    func glyphWidthsAreOneOrTwo() {
        let text = "aé日😀👨‍👩‍👧‍👦🇫🇷\u{1B}\u{301}x\u{9B}❤️1️⃣🏴󠁧󠁢󠁥󠁮󠁧󠁿"
        for glyph in DisplayText.glyphs(text) {
            #expect(glyph.width == 1 || glyph.width == 2, "\(glyph)")
        }
    }

    @Test("A combining mark stays on its base letter")
    func combiningMark() {
        let glyphs = DisplayText.glyphs("e\u{301}")
        #expect(glyphs == [DisplayText.Glyph(text: "e\u{301}", width: 1)])
    }

    @Test("A lone combining mark is shown on a dotted circle")
    func loneCombiningMark() {
        let glyphs = DisplayText.glyphs("\u{301}")
        #expect(glyphs.count == 1)
        #expect(glyphs.first?.width == 1)
        #expect(glyphs.first?.text.unicodeScalars.first == "\u{25CC}")
        #expect(glyphs.first?.text.unicodeScalars.dropFirst().first == "\u{301}")
    }

    @Test("At most four combining marks are kept on a base")
    func zalgoIsCapped() {
        let glyphs = DisplayText.glyphs("Z\u{301}\u{302}\u{303}\u{304}\u{305}\u{306}\u{307}")
        #expect(glyphs.count == 1)
        #expect(glyphs.first?.text.unicodeScalars.count == 5)
    }

    @Test("ZWJ and tag sequences become a placeholder of two cells, never their first emoji", arguments: ["👨‍👩‍👧‍👦", "🏴‍☠️", "🏳️‍🌈", "🏴󠁧󠁢󠁥󠁮󠁧󠁿"])
    func sequencesTerminalsDrawDifferently(_ sequence: String) {
        #expect(DisplayText.glyphs(sequence) == [DisplayText.placeholder, DisplayText.placeholder])
        #expect(joined(DisplayText.glyphs(sequence + " Pirates")) == "\u{2592}\u{2592} Pirates")
    }

    @Test("A skin-tone modifier is dropped")
    func skinTone() {
        #expect(DisplayText.glyphs("👍🏽") == [DisplayText.Glyph(text: "👍", width: 2)])
    }

    @Test("A flag is kept whole, two cells; a lone regional indicator is a placeholder, never a letter")
    func flags() {
        #expect(DisplayText.glyphs("🇫🇷") == [DisplayText.Glyph(text: "🇫🇷", width: 2)])
        #expect(joined(DisplayText.glyphs("Émoji 🇫🇷")) == "Émoji 🇫🇷")
        #expect(DisplayText.width("🇫🇷 vs 🇩🇪") == 8)
        #expect(DisplayText.glyphs("\u{1F1EB}") == [DisplayText.placeholder])
        #expect(!joined(DisplayText.glyphs("x\u{1F1EB}")).contains("F"))
    }

    @Test("Emoji presentation selectors do not widen a narrow character")
    func variationSelector() {
        let glyphs = DisplayText.glyphs("❤️")
        #expect(glyphs.count == 1)
        #expect(glyphs.first?.width == 1)
        #expect(glyphs.first?.text.unicodeScalars.contains("\u{FE0F}") == false)
    }

    @Test("Control characters become visible placeholders", arguments: [
        ("\u{1B}", "\u{241B}"),  // ESC → ␛
        ("\n", "\u{240A}"),  // LF → ␊
        ("\t", "\u{2409}"),  // TAB → ␉
        ("\r", "\u{240D}"),  // CR → ␍
        ("\0", "\u{2400}"),  // NUL → ␀
        ("\u{7}", "\u{2407}"),  // BEL → ␇
        ("\u{7F}", "\u{2421}"),  // DEL → ␡
        ("\u{9B}", "\u{FFFD}"),  // C1 CSI → �
        ("\u{85}", "\u{FFFD}"),  // C1 NEL → �
    ])
    func controlPictures(_ control: String, _ picture: String) {
        let glyphs = DisplayText.glyphs(control)
        #expect(glyphs == [DisplayText.Glyph(text: picture, width: 1)])
    }

    @Test("No control or format character survives in any glyph", arguments: [
        "\u{1B}[31mRed\u{1B}[0m",
        "line\nbreak\r\nand\ttab",
        "del\u{7F}ete",
        "c1\u{9B}31m\u{85}\u{90}\u{9F}",
        "\u{1B}]0;title\u{7}",
        "\u{202E}gnp.exe",
        "a\u{2066}b\u{2069}c\u{200B}d\u{FEFF}e\u{200E}f\u{200F}",
        "👨‍👩‍👧‍👦🏴󠁧󠁢󠁥󠁮󠁧󠁿",
        "\u{1B}\u{301}",
        "\r\n",
    ])
    func nothingRawSurvives(_ text: String) {
        for glyph in DisplayText.glyphs(text) {
            #expect(!glyph.text.unicodeScalars.contains(where: isUnsafe), "raw scalar in \(glyph.text.unicodeScalars.map { String($0.value, radix: 16) })")
            #expect(!glyph.text.isEmpty)
        }
    }

    @Test("An escape sequence is shown, not obeyed")
    func escapeSequenceIsVisible() {
        let glyphs = DisplayText.glyphs("\u{1B}[31mRed\u{1B}[0m")
        #expect(joined(glyphs) == "\u{241B}[31mRed\u{241B}[0m")
        #expect(cells(glyphs) == 12)
    }

    @Test("Bidi overrides and invisible format characters are dropped")
    func bidiDropped() {
        #expect(DisplayText.glyphs("\u{202E}").isEmpty)
        #expect(DisplayText.width("\u{202E}") == 0)
        #expect(joined(DisplayText.glyphs("abc\u{202E}def")) == "abcdef")
        #expect(DisplayText.width("abc\u{202E}def") == 6)
        #expect(joined(DisplayText.glyphs("a\u{2066}b\u{2069}c\u{200B}d\u{FEFF}e")) == "abcde")
    }

    // MARK: - Truncation

    @Test("Text that fits is not truncated")
    func truncateFits() {
        #expect(DisplayText.truncate("abc", toWidth: 3) == DisplayText.glyphs("abc"))
        #expect(DisplayText.truncate("日本", toWidth: 4) == DisplayText.glyphs("日本"))
        #expect(DisplayText.truncate("", toWidth: 0).isEmpty)
    }

    @Test("Text that does not fit ends with an ellipsis")
    func truncateCuts() {
        #expect(joined(DisplayText.truncate("abcdef", toWidth: 4)) == "abc…")
        #expect(joined(DisplayText.truncate("abcdef", toWidth: 1)) == "…")
        #expect(DisplayText.truncate("abcdef", toWidth: 0).isEmpty)
        #expect(DisplayText.truncate("abcdef", toWidth: -3).isEmpty)
    }

    @Test("A wide character at the boundary is dropped whole")
    func truncateWideBoundary() {
        // 日本語 is 6 cells; 4 cells leave room for 日 and the ellipsis, not half of 本.
        let cut = DisplayText.truncate("日本語", toWidth: 4)
        #expect(joined(cut) == "日…")
        #expect(cells(cut) == 3)
        #expect(joined(DisplayText.truncate("日本語", toWidth: 5)) == "日本…")
        #expect(joined(DisplayText.truncate("日本語", toWidth: 2)) == "…")
    }

    @Test("Truncation never exceeds the width", arguments: [
        "日本語テキスト",
        "a日b本c😀d",
        "👨‍👩‍👧‍👦🇫🇷x🇩🇪y",
        "e\u{301}e\u{301}日e\u{301}",
        "\u{1B}[31m赤\u{1B}[0m",
        "North, Central America & Caribbean",
    ], Array(0...16))
    func truncateNeverExceeds(_ text: String, _ width: Int) {
        let cut = DisplayText.truncate(text, toWidth: width)
        let used = cells(cut)
        #expect(used <= max(0, width))
        if DisplayText.width(text) > width, width > 0 {
            #expect(cut.last?.text == "…")
            // At most one cell is lost, to a wide character that did not fit.
            #expect(used >= width - 1)
        } else if width > 0 {
            #expect(cut == DisplayText.glyphs(text))
        }
    }

    @Test("A 200-character name is cut to the width")
    func longName() {
        let name = String(repeating: "Abcdefghij", count: 20)
        #expect(name.count == 200)
        let cut = DisplayText.truncate(name, toWidth: 30)
        #expect(cells(cut) == 30)
        #expect(joined(cut) == String(name.prefix(29)) + "…")

        let wide = String(repeating: "漢", count: 200)
        #expect(DisplayText.width(wide) == 400)
        #expect(cells(DisplayText.truncate(wide, toWidth: 31)) == 31)
        #expect(joined(DisplayText.truncate(wide, toWidth: 31)) == String(repeating: "漢", count: 15) + "…")
        #expect(cells(DisplayText.truncate(wide, toWidth: 30)) == 29)
    }
}
