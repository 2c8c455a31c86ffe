/// How text occupies terminal cells: display width, and what is safe to write.
///
/// Widths are decided here, from Unicode properties, not by the terminal: combining marks
/// take no cell, East Asian wide characters and emoji take two, everything else one.
/// Text is made safe before it is measured: control characters become visible symbols,
/// invisible format characters (bidi overrides, zero-width spaces) are dropped, and emoji
/// sequences that terminals disagree about become a placeholder of the width they take
/// where they are drawn whole: never another emoji or a letter that was not in the text.
public enum DisplayText {
    /// One grapheme ready for a cell: the text to write and the cells it takes (1 or 2).
    public struct Glyph: Hashable, Sendable {
        public var text: String
        public var width: Int
    }

    /// The glyphs of a text, made safe and measured.
    public static func glyphs(_ text: String) -> [Glyph] {
        var result: [Glyph] = []
        result.reserveCapacity(text.utf8.count)
        for character in text {
            guard let glyph = glyph(for: character) else { continue }
            // A placeholder is a glyph per cell: each is one character a terminal draws in one cell.
            if glyph.text == placeholder.text, glyph.width > 1 {
                result += Array(repeating: placeholder, count: glyph.width)
            } else {
                result.append(glyph)
            }
        }
        return result
    }

    /// What stands for one cell of an emoji sequence that terminals do not draw alike (a ZWJ
    /// sequence such as 🏴‍☠️, a tag sequence such as England's flag, a lone regional
    /// indicator): a shaded cell, as many as the sequence takes where it is drawn whole.
    public static let placeholder = Glyph(text: "\u{2592}", width: 1)

    /// The number of cells a text takes.
    public static func width(_ text: String) -> Int {
        glyphs(text).reduce(0) { $0 + $1.width }
    }

    /// Cuts a text to at most `width` cells, ending it with "…" when something was cut.
    public static func truncate(_ text: String, toWidth width: Int) -> [Glyph] {
        let all = glyphs(text)
        var total = all.reduce(0) { $0 + $1.width }
        guard total > width else { return all }
        guard width > 0 else { return [] }
        var kept = all
        total += 1  // the ellipsis
        while total > width, let last = kept.popLast() { total -= last.width }
        return kept + [Glyph(text: "…", width: 1)]
    }

    /// Splits text into lines of at most `width` cells, at spaces where it can, inside a word
    /// only when the word alone is wider.
    public static func wrap(_ text: String, toWidth width: Int) -> [String] {
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ", omittingEmptySubsequences: true).map(String.init) {
            let candidate = line.isEmpty ? word : line + " " + word
            if DisplayText.width(candidate) <= width {
                line = candidate
                continue
            }
            if !line.isEmpty { lines.append(line) }
            line = ""
            // A word wider than the line is cut between glyphs (one wider than the line still
            // gets a line of its own).
            var rest = DisplayText.glyphs(word)[...]
            while rest.reduce(0, { $0 + $1.width }) > width {
                var used = 0, count = 0
                for glyph in rest {
                    guard used + glyph.width <= width else { break }
                    used += glyph.width
                    count += 1
                }
                count = max(1, count)
                lines.append(rest.prefix(count).map(\.text).joined())
                rest = rest.dropFirst(count)
            }
            line = rest.map(\.text).joined()
        }
        if !line.isEmpty || lines.isEmpty { lines.append(line) }
        return lines
    }

    /// The first glyphs of a text that fit in `width` cells, without an ellipsis (a wide
    /// glyph that would cross the edge is left out whole).
    public static func prefix(_ text: String, width: Int) -> [Glyph] {
        var kept: [Glyph] = [], total = 0
        for glyph in glyphs(text) {
            guard total + glyph.width <= width else { break }
            kept.append(glyph)
            total += glyph.width
        }
        return kept
    }

    /// The safe glyph for one grapheme, or nil when it shows nothing.
    static func glyph(for character: Character) -> Glyph? {
        // Printable ASCII, most of what a screen shows, is safe and one cell as it is.
        if let ascii = character.asciiValue, ascii >= 0x20, ascii < 0x7F { return Glyph(text: String(character), width: 1) }
        let scalars = Array(character.unicodeScalars)
        guard let first = scalars.first else { return nil }
        if let picture = controlPicture(first) { return Glyph(text: picture, width: 1) }
        // A flag is two regional indicators, two cells wherever it is drawn (as a flag, or as
        // two boxed letters): it is kept whole. A lone indicator's width varies: a placeholder.
        if isRegionalIndicator(first) {
            let indicators = scalars.filter(isRegionalIndicator)
            guard indicators.count == 2 else { return Glyph(text: placeholder.text, width: 1) }
            return Glyph(text: String(String.UnicodeScalarView(indicators)), width: 2)
        }
        let visible = scalars.filter { !isInvisibleFormat($0) }
        guard let base = visible.first else { return nil }
        let baseWidth = scalarWidth(base)
        if baseWidth == 0 {
            // A mark with nothing to sit on: show it on a dotted circle.
            return Glyph(text: "\u{25CC}" + String(String.UnicodeScalarView(visible.prefix(4))), width: 1)
        }
        if baseWidth == 2 {
            if base.properties.isEmojiPresentation || base.properties.isEmoji {
                // ZWJ and tag sequences are one picture in some terminals and several in
                // others, and their first emoji alone means something else (🏴‍☠️ is not 🏴):
                // a placeholder. A skin tone only shades its emoji, which stays.
                if scalars.contains(where: { $0.value == 0x200D || (0xE0020...0xE007F).contains($0.value) }) {
                    return Glyph(text: placeholder.text, width: 2)
                }
                return Glyph(text: String(base), width: 2)
            }
            return Glyph(text: String(String.UnicodeScalarView(visible.prefix(5).filter { $0 == base || scalarWidth($0) == 0 })), width: 2)
        }
        // A base with combining marks; emoji-style selectors are dropped so the width stays 1.
        let marks = visible.dropFirst().filter { scalarWidth($0) == 0 && $0.value != 0xFE0F }
        return Glyph(text: String(String.UnicodeScalarView([base] + marks.prefix(4))), width: 1)
    }

    /// The emoji flag of a region, such as "DZ" for Algeria: its two regional indicators, as
    /// one glyph of two cells. Nil unless `regionCode` is two ASCII letters.
    public static func emojiFlag(regionCode: String) -> Glyph? {
        let letters = Array(regionCode.uppercased().unicodeScalars)
        guard letters.count == 2, letters.allSatisfy({ ("A"..."Z").contains($0) }) else { return nil }
        let indicators = letters.compactMap { Unicode.Scalar($0.value - 65 + 0x1F1E6) }
        return Glyph(text: String(String.UnicodeScalarView(indicators)), width: 2)
    }

    /// Whether scalars are exactly one emoji flag (two regional indicators).
    static func isEmojiFlag(_ scalars: [Unicode.Scalar]) -> Bool {
        scalars.count == 2 && scalars.allSatisfy(isRegionalIndicator)
    }

    static func controlPicture(_ scalar: Unicode.Scalar) -> String? {
        switch scalar.value {
        case 0x00..<0x20: return String(Unicode.Scalar(0x2400 + scalar.value)!)
        case 0x7F: return "\u{2421}"
        case 0x80..<0xA0: return "\u{FFFD}"
        default: return nil
        }
    }

    static func isRegionalIndicator(_ scalar: Unicode.Scalar) -> Bool {
        (0x1F1E6...0x1F1FF).contains(scalar.value)
    }

    /// Format characters that draw nothing but can confuse a terminal: bidi controls, zero-width spaces, ZWJ.
    static func isInvisibleFormat(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.generalCategory == .format || scalar.value == 0x200B
    }

    /// The cells one scalar takes on its own.
    static func scalarWidth(_ scalar: Unicode.Scalar) -> Int {
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format: return 0
        default: break
        }
        let value = scalar.value
        if (0x1160...0x11FF).contains(value) || (0xFE00...0xFE0F).contains(value) || (0x1F3FB...0x1F3FF).contains(value) { return 0 }
        if scalar.properties.isEmojiPresentation { return 2 }
        for range in wideRanges where range.contains(value) { return 2 }
        return 1
    }

    /// East Asian Wide and Fullwidth blocks.
    private static let wideRanges: [ClosedRange<UInt32>] = [
        0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF,
        0xA000...0xA4CF, 0xA960...0xA97F, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE10...0xFE19,
        0xFE30...0xFE6F, 0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x1F300...0x1F64F, 0x1F900...0x1F9FF,
        0x20000...0x2FFFD, 0x30000...0x3FFFD,
    ]
}
