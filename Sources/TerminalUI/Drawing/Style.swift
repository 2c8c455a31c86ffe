/// How a cell is drawn: colours (nil: the terminal's default) and attributes.
public struct Style: Hashable, Sendable {
    public var foreground: TerminalColor?
    public var background: TerminalColor?
    public var bold: Bool
    public var reverse: Bool
    public var dim: Bool
    public var underline: Bool

    public init(foreground: TerminalColor? = nil, background: TerminalColor? = nil, bold: Bool = false, reverse: Bool = false, dim: Bool = false, underline: Bool = false) {
        self.foreground = foreground
        self.background = background
        self.bold = bold
        self.reverse = reverse
        self.dim = dim
        self.underline = underline
    }

    /// The terminal's default look.
    public static let plain = Style()

    /// The same style without colours, for terminals (or users) without them.
    public var withoutColor: Style {
        var style = self
        style.foreground = nil
        style.background = nil
        return style
    }
}

/// Text in one style, measured into glyphs.
public struct Span: Hashable, Sendable {
    /// The glyphs to draw, made safe and measured.
    public var glyphs: [DisplayText.Glyph]
    public var style: Style

    /// Text, made safe and measured by `DisplayText.glyphs`.
    public init(_ text: String, style: Style = .plain) {
        self.init(glyphs: DisplayText.glyphs(text), style: style)
    }

    /// Glyphs drawn as they are, such as an `emojiFlag`.
    public init(glyphs: [DisplayText.Glyph], style: Style = .plain) {
        self.glyphs = glyphs
        self.style = style
    }

    /// The text the glyphs show.
    public var text: String { glyphs.map(\.text).joined() }

    /// The cells the span takes.
    public var width: Int { glyphs.reduce(0) { $0 + $1.width } }
}
