import TerminalUI
import WorldCup

/// How the scoreboard draws flags.
public enum FlagStyle: String, CaseIterable, Sendable {
    /// Three-letter badges on the flags' colours: the same width on every terminal (the default).
    case badges
    /// Emoji flags (two cells) for countries, badges for the rest.
    case emoji
}

/// A team's flag as a terminal can draw it: its three-letter code on its flag's colours,
/// or the emoji flag of its country.
public struct FlagBadge: Hashable, Sendable {
    public var code: String
    /// The flag's colours, one per letter, left to right (stripes or the main colours):
    /// exact colours for terminals with 256, each with a basic colour for terminals with eight.
    public var colors: [TerminalColor]
    /// The ISO 3166 code of the country whose emoji flag this is; nil when there is none
    /// made of two regional indicators (England, Scotland and Wales have tag sequences,
    /// which terminals draw even less alike, so they keep the badge).
    public var regionCode: String?

    public init(code: String, colors: [TerminalColor], regionCode: String? = nil) {
        self.code = code
        self.colors = colors
        self.regionCode = regionCode
    }

    /// The badge for an image name of the original sample, such as "brazil-flag".
    /// Unknown images get the first letters of the team name on a neutral badge.
    public static func forTeam(imageName: String, teamName: String) -> FlagBadge {
        if let known = known[imageName] { return known }
        let letters = teamName.uppercased().filter { $0.isLetter && $0.isASCII }
        let code = String((letters + "???").prefix(3))
        return FlagBadge(code: code, colors: [.white, .white, .white])
    }

    /// The badge drawn as three coloured cells (or plain letters in brackets without colour);
    /// with `.emoji`, the emoji flag when there is one, padded to the badge's width so names
    /// stay aligned. Each letter is black or white, whichever reads better on its stripe as
    /// a terminal with these colours shows it (xterm's colours the reference).
    /// - Parameter colors: the terminal's colours; nil draws without colour.
    public func spans(colors: ColorDepth?, style: FlagStyle = .badges) -> [Span] {
        let badge = badgeSpans(colors: colors)
        guard style == .emoji, let flag = regionCode.flatMap(DisplayText.emojiFlag(regionCode:)) else { return badge }
        let padding = max(0, badge.reduce(0) { $0 + $1.width } - flag.width)
        return [Span(glyphs: [flag]), Span(String(repeating: " ", count: padding))]
    }

    private func badgeSpans(colors depth: ColorDepth?) -> [Span] {
        guard let depth else { return [Span("[\(code)]", style: Style(bold: true))] }
        let palette = Palette.xterm(depth)
        return zip(code, colors).map { letter, stripe in
            Span(String(letter), style: palette.readableText(on: stripe))
        }
    }

    private static let known: [String: FlagBadge] = {
        typealias C = TerminalColor
        // The flags' own colours (as their governments or the usual references give them),
        // each with the basic colour a terminal with eight colours draws instead.
        func green(_ hex: UInt32) -> C { C(RGB(hex: hex), basic: .green) }
        func red(_ hex: UInt32) -> C { C(RGB(hex: hex), basic: .red) }
        func yellow(_ hex: UInt32) -> C { C(RGB(hex: hex), basic: .yellow) }
        func blue(_ hex: UInt32) -> C { C(RGB(hex: hex), basic: .blue) }
        let white = C.pureWhite
        let black = C.pureBlack
        let table: [(String, String, [C], String?)] = [
            ("algeria-flag", "ALG", [green(0x006233), white, red(0xD21034)], "DZ"),
            ("cameroon-flag", "CMR", [green(0x007A5E), red(0xCE1126), yellow(0xFCD116)], "CM"),
            ("ivory-coast-flag", "CIV", [yellow(0xF77F00), white, green(0x009E60)], "CI"),
            ("ghana-flag", "GHA", [red(0xCE1126), yellow(0xFCD116), green(0x006B3F)], "GH"),
            ("nigeria-flag", "NGA", [green(0x008751), white, green(0x008751)], "NG"),
            ("australia-flag", "AUS", [blue(0x012169), red(0xE4002B), blue(0x012169)], "AU"),
            ("iran-flag", "IRN", [green(0x239F40), white, red(0xDA0000)], "IR"),
            ("japan-flag", "JPN", [white, red(0xBC002D), white], "JP"),
            ("korea-flag", "KOR", [white, red(0xCD2E3A), blue(0x0047A0)], "KR"),
            ("costa-rica-flag", "CRC", [blue(0x002B7F), red(0xCE1126), blue(0x002B7F)], "CR"),
            ("honduras-flag", "HON", [blue(0x0073CF), white, blue(0x0073CF)], "HN"),
            ("mexico-flag", "MEX", [green(0x006847), white, red(0xCE1126)], "MX"),
            ("usa-flag", "USA", [blue(0x0A3161), red(0xB31942), white], "US"),
            ("belgium-flag", "BEL", [black, yellow(0xFDDA24), red(0xEF3340)], "BE"),
            ("bosnia-herzegovina-flag", "BIH", [blue(0x002395), yellow(0xFECB00), blue(0x002395)], "BA"),
            ("croatia-flag", "CRO", [red(0xFF0000), white, blue(0x171796)], "HR"),
            ("england-flag", "ENG", [white, red(0xCE1124), white], nil),
            ("france-flag", "FRA", [blue(0x0055A4), white, red(0xEF4135)], "FR"),
            ("germany-flag", "GER", [black, red(0xDD0000), yellow(0xFFCE00)], "DE"),
            ("greece-flag", "GRE", [blue(0x0D5EAF), white, blue(0x0D5EAF)], "GR"),
            ("italy-flag", "ITA", [green(0x009246), white, red(0xCE2B37)], "IT"),
            ("netherlands-flag", "NED", [red(0xAE1C28), white, blue(0x21468B)], "NL"),
            ("portugal-flag", "POR", [green(0x006600), red(0xFF0000), red(0xFF0000)], "PT"),
            ("russia-flag", "RUS", [white, blue(0x0039A6), red(0xD52B1E)], "RU"),
            ("spain-flag", "ESP", [red(0xAA151B), yellow(0xF1BF00), red(0xAA151B)], "ES"),
            ("switzerland-flag", "SUI", [red(0xDA291C), white, red(0xDA291C)], "CH"),
            ("argentina-flag", "ARG", [C(RGB(hex: 0x74ACDF), basic: .cyan), white, C(RGB(hex: 0x74ACDF), basic: .cyan)], "AR"),
            ("brazil-flag", "BRA", [green(0x009C3B), yellow(0xFFDF00), blue(0x002776)], "BR"),
            ("chile-flag", "CHI", [blue(0x0039A6), white, red(0xD52B1E)], "CL"),
            ("colombia-flag", "COL", [yellow(0xFCD116), blue(0x003893), red(0xCE1126)], "CO"),
            ("ecuador-flag", "ECU", [yellow(0xFFDD00), blue(0x034EA2), red(0xED1C24)], "EC"),
            ("uruguay-flag", "URU", [white, blue(0x0038A8), white], "UY"),
            // The secret teams' badge: the terminal's own magenta and cyan at every depth.
            (Team.secretImageName, "WND", [.magenta, .cyan, .magenta], nil),
        ]
        return Dictionary(uniqueKeysWithValues: table.map { ($0.0, FlagBadge(code: $0.1, colors: $0.2, regionCode: $0.3)) })
    }()
}
