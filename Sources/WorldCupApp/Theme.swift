import TerminalUI

/// The scoreboard's look: readable on dark and light backgrounds, because it uses the
/// terminal's own foreground and background for text and colours only for accents.
struct Theme {
    /// The terminal's colours; nil without colour.
    let colors: ColorDepth?
    var usesColor: Bool { colors != nil }

    var title: Style { Style(foreground: usesColor ? .cyan : nil, bold: true) }
    var status: Style { Style(foreground: usesColor ? .green : nil) }
    var error: Style { Style(foreground: usesColor ? .red : nil, bold: true) }
    var footer: Style { Style(reverse: true) }
    var dialog: Style { Style(reverse: true) }
    var dialogField: Style { Style(underline: true) }
    /// The keys in the key help.
    var helpKeys: Style { Style(bold: true, reverse: true) }
    /// A prefilled field's suggestion, which typing replaces: highlighted like a selection.
    var dialogSelection: Style { usesColor ? Style(foreground: .black, background: .cyan) : Style(reverse: true, underline: true) }

    var table: TableTheme {
        TableTheme(
            header: Style(foreground: usesColor ? .yellow : nil, bold: true, underline: !usesColor),
            row: .plain,
            detail: Style(dim: true),
            cursor: Style(bold: true, reverse: true),
            flash: usesColor ? Style(foreground: .black, background: .yellow) : Style(bold: true, underline: true),
            index: Style(foreground: usesColor ? .cyan : nil, bold: true)
        )
    }
}
