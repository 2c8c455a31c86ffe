/// What a terminal shows for each colour, as RGB: a model of how a style looks on screen, to
/// measure and choose contrast. The reference is xterm with its default colours, whose
/// behaviour it follows: bold brightens a foreground of colours 0–7 to 8–15, and faint text
/// is drawn at two thirds of its colour.
public struct Palette: Hashable, Sendable {
    /// Whether the terminal's own background is dark or light.
    public enum Background: Hashable, Sendable, CaseIterable {
        /// White text on black (xterm with `-fg white -bg black`, and most terminals' default).
        case dark
        /// Black text on white (xterm's own default).
        case light
    }

    /// How many colours the terminal draws with.
    public var depth: ColorDepth
    /// The RGB of colours 0–15.
    public var ansi: [RGB]
    /// The colour of text without a foreground.
    public var defaultForeground: RGB
    /// The colour of cells without a background.
    public var defaultBackground: RGB
    /// Whether bold draws a foreground of colours 0–7 as 8–15 (xterm's `boldColors`, on by default).
    public var boldBrightens: Bool
    /// What faint (dim) text is drawn at: each channel of its colour times this.
    public var dimFactor: Double

    /// A palette; the defaults are xterm's.
    public init(depth: ColorDepth, ansi: [RGB] = Palette.xtermANSI, defaultForeground: RGB, defaultBackground: RGB,
                boldBrightens: Bool = true, dimFactor: Double = 2.0 / 3.0) {
        precondition(ansi.count == 16, "colours 0–15")
        self.depth = depth
        self.ansi = ansi
        self.defaultForeground = defaultForeground
        self.defaultBackground = defaultBackground
        self.boldBrightens = boldBrightens
        self.dimFactor = dimFactor
    }

    /// xterm's colours 0–15 as it ships them (black, red3, green3, yellow3, blue2, magenta3,
    /// cyan3, gray90, then gray50, red, green, yellow, #5C5CFF, magenta, cyan, white).
    public static let xtermANSI: [RGB] = [
        0x000000, 0xCD0000, 0x00CD00, 0xCDCD00, 0x0000EE, 0xCD00CD, 0x00CDCD, 0xE5E5E5,
        0x7F7F7F, 0xFF0000, 0x00FF00, 0xFFFF00, 0x5C5CFF, 0xFF00FF, 0x00FFFF, 0xFFFFFF,
    ].map(RGB.init(hex:))

    /// xterm's default colours at a depth, on a dark or light background.
    public static func xterm(_ depth: ColorDepth, background: Background = .dark) -> Palette {
        switch background {
        case .dark: Palette(depth: depth, defaultForeground: .white, defaultBackground: .black)
        case .light: Palette(depth: depth, defaultForeground: .black, defaultBackground: .white)
        }
    }

    /// The RGB of a colour number, 0–255.
    public func rgb(number: Int16) -> RGB {
        number < 16 ? ansi[Int(max(0, number))] : ColorDepth.indexedRGB(Int(number))
    }

    /// What a style shows: the colour of its text and of its cell, after bold, faint and
    /// reverse video have had their effect.
    public func appearance(of style: Style) -> (text: RGB, cell: RGB) {
        var text = defaultForeground
        if let foreground = style.foreground {
            var number = depth.number(for: foreground)
            if style.bold, boldBrightens, number < 8 { number += 8 }
            text = rgb(number: number)
        }
        var cell = style.background.map { rgb(number: depth.number(for: $0)) } ?? defaultBackground
        if style.reverse { swap(&text, &cell) }
        if style.dim { text = text.scaled(by: dimFactor) }
        return (text, cell)
    }

    /// The contrast ratio (WCAG 2) of a style's text against its cell.
    public func contrastRatio(of style: Style) -> Double {
        let shown = appearance(of: style)
        return shown.text.contrastRatio(with: shown.cell)
    }

    /// The most readable text on a background: black or white, whichever contrasts more
    /// with it here, and bold unless bold lowers the contrast (bold black is grey with
    /// eight colours). At least 4.58:1 on any background, since pure black and pure white
    /// are both at hand.
    public func readableText(on background: TerminalColor) -> Style {
        var best = Style(foreground: .pureWhite, background: background, bold: true)
        var bestRatio = contrastRatio(of: best)
        for foreground in [TerminalColor.pureBlack, .pureWhite] {
            for bold in [true, false] {
                let candidate = Style(foreground: foreground, background: background, bold: bold)
                let ratio = contrastRatio(of: candidate)
                if ratio > bestRatio + 1e-9 {
                    best = candidate
                    bestRatio = ratio
                }
            }
        }
        return best
    }
}
