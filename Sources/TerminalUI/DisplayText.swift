/// How text occupies terminal cells: display width, and what is safe to write.
///
/// Widths are decided here, from Unicode properties, not by the terminal: combining marks
/// take no cell, East Asian wide characters and emoji take two, everything else one.
/// Text is made safe before it is measured: control characters become visible symbols,
/// invisible format characters (bidi overrides, zero-width spaces) are dropped, and emoji
/// sequences that terminals disagree about are reduced to a form they all draw the same way.
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
            if let glyph = glyph(for: character) { result.append(glyph) }
        }
        return result
    }

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

    /// The safe glyph for one grapheme, or nil when it shows nothing.
    static func glyph(for character: Character) -> Glyph? {
        // Printable ASCII, most of what a screen shows, is safe and one cell as it is.
        if let ascii = character.asciiValue, ascii >= 0x20, ascii < 0x7F { return Glyph(text: String(character), width: 1) }
        let scalars = Array(character.unicodeScalars)
        guard let first = scalars.first else { return nil }
        if let picture = controlPicture(first) { return Glyph(text: picture, width: 1) }
        // Regional indicator pairs (flags) are drawn as their two letters: terminals disagree on flag widths.
        if isRegionalIndicator(first) {
            let letters = scalars.filter(isRegionalIndicator).map { Character(Unicode.Scalar($0.value - 0x1F1E6 + 65)!) }
            return Glyph(text: String(letters), width: letters.count)
        }
        let visible = scalars.filter { !isInvisibleFormat($0) }
        guard let base = visible.first else { return nil }
        let baseWidth = scalarWidth(base)
        if baseWidth == 0 {
            // A mark with nothing to sit on: show it on a dotted circle.
            return Glyph(text: "\u{25CC}" + String(String.UnicodeScalarView(visible.prefix(4))), width: 1)
        }
        if baseWidth == 2 {
            // Emoji sequences (ZWJ families, skin tones) vary between terminals: keep the base emoji.
            if base.properties.isEmojiPresentation || base.properties.isEmoji {
                return Glyph(text: String(base), width: 2)
            }
            return Glyph(text: String(String.UnicodeScalarView(visible.prefix(5).filter { $0 == base || scalarWidth($0) == 0 })), width: 2)
        }
        // A base with combining marks; emoji-style selectors are dropped so the width stays 1.
        let marks = visible.dropFirst().filter { scalarWidth($0) == 0 && $0.value != 0xFE0F }
        return Glyph(text: String(String.UnicodeScalarView([base] + marks.prefix(4))), width: 1)
    }

    /// The emoji flag of a region, such as "DZ" for Algeria: its two regional indicators, as
    /// one glyph of two cells. Names never show flags (`glyphs` spells them out, because
    /// terminals disagree about their width); this is for callers that opt in.
    /// Nil unless `regionCode` is two ASCII letters.
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
