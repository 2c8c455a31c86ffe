import TerminalUI

/// How the board picks its colours: for a dark or a light background, or as the terminal
/// says (`--theme`, `WORLDCUP_THEME`).
public enum ThemeChoice: String, CaseIterable, Sendable {
    case dark, light
    /// The terminal's answer to OSC 11 or `COLORFGBG`; dark when it gives none.
    case auto

    /// The background to draw for: `auto` asks the terminal (before curses starts).
    public func background(colorFGBG: String?) -> Palette.Background {
        switch self {
        case .dark: .dark
        case .light: .light
        case .auto: TerminalBackground.detect(environment: colorFGBG) ?? .dark
        }
    }
}

/// The scoreboard's look. Text uses the terminal's own foreground and background, and
/// colours only for accents (the title, zone headers, section index, messages), chosen for
/// the background: on a dark one the light colours, on a light one the dark ones, each at
/// 4.5:1 or better in xterm's palette. Bold brightens colours 0–7 in xterm, so the light
/// theme's accents are bold only where the brighter colour still reads on white.
struct Theme {
    /// The terminal's colours; nil without colour.
    let colors: ColorDepth?
    /// The background the accents are chosen for.
    let background: Palette.Background
    var usesColor: Bool { colors != nil }

    init(colors: ColorDepth?, background: Palette.Background = .dark) {
        self.colors = colors
        self.background = background
    }

    private var isLight: Bool { background == .light }

    var title: Style { Style(foreground: usesColor ? (isLight ? .blue : .cyan) : nil, bold: true) }
    var status: Style { Style(foreground: usesColor ? (isLight ? .blue : .green) : nil) }
    var error: Style { Style(foreground: usesColor ? .red : nil, bold: !(usesColor && isLight)) }
    var footer: Style { Style(reverse: true) }
    /// Dialogs and the help: reverse video on a dark background (a light box). On a light
    /// background reverse video is a black box, which does not fit: there a light grey box in
    /// the terminal's own text colour (which bold does not lighten), its fields white.
    var dialog: Style { usesColor && isLight ? Style(background: Self.lightDialogGrey) : Style(reverse: true) }
    var dialogField: Style { Style(underline: true) }
    /// The keys in the key help.
    var helpKeys: Style { usesColor && isLight ? Style(background: Self.lightDialogGrey, bold: true) : Style(bold: true, reverse: true) }
    /// The light theme's dialog background: the grey ramp's 254, or basic white (xterm's
    /// light grey) with eight colours.
    private static let lightDialogGrey = TerminalColor(RGB(hex: 0xE4E4E4), basic: .white)
    /// A prefilled field's suggestion, which typing replaces: highlighted like a selection.
    var dialogSelection: Style { usesColor ? Style(foreground: .black, background: .cyan) : Style(reverse: true, underline: true) }

    var table: TableTheme {
        TableTheme(
            header: Style(foreground: usesColor ? (isLight ? .magenta : .yellow) : nil, bold: !(usesColor && isLight), underline: !usesColor || isLight),
            row: .plain,
            detail: Style(dim: true),
            cursor: Style(bold: true, reverse: true),
            flash: usesColor ? Style(foreground: .black, background: .yellow) : Style(bold: true, underline: true),
            index: Style(foreground: usesColor ? (isLight ? .blue : .cyan) : nil, bold: true)
        )
    }
}
