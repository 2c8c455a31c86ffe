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
    /// The flag's colours, one per letter, left to right (stripes or the main colours).
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
    /// stay aligned.
    public func spans(usesColor: Bool, style: FlagStyle = .badges) -> [Span] {
        let badge = badgeSpans(usesColor: usesColor)
        guard style == .emoji, let flag = regionCode.flatMap(DisplayText.emojiFlag(regionCode:)) else { return badge }
        let padding = max(0, badge.reduce(0) { $0 + $1.width } - flag.width)
        return [Span(glyphs: [flag]), Span(String(repeating: " ", count: padding))]
    }

    private func badgeSpans(usesColor: Bool) -> [Span] {
        guard usesColor else { return [Span("[\(code)]", style: Style(bold: true))] }
        return zip(code, colors).map { letter, color in
            Span(String(letter), style: Style(foreground: Self.contrast(for: color), background: color, bold: true))
        }
    }

    private static func contrast(for background: TerminalColor) -> TerminalColor {
        switch background {
        case .white, .yellow, .cyan, .green: return .black
        default: return .white
        }
    }

    private static let known: [String: FlagBadge] = {
        typealias C = TerminalColor
        let table: [(String, String, [C], String?)] = [
            ("algeria-flag", "ALG", [.green, .white, .red], "DZ"),
            ("cameroon-flag", "CMR", [.green, .red, .yellow], "CM"),
            ("ivory-coast-flag", "CIV", [.yellow, .white, .green], "CI"),
            ("ghana-flag", "GHA", [.red, .yellow, .green], "GH"),
            ("nigeria-flag", "NGA", [.green, .white, .green], "NG"),
            ("australia-flag", "AUS", [.blue, .red, .blue], "AU"),
            ("iran-flag", "IRN", [.green, .white, .red], "IR"),
            ("japan-flag", "JPN", [.white, .red, .white], "JP"),
            ("korea-flag", "KOR", [.white, .red, .blue], "KR"),
            ("costa-rica-flag", "CRC", [.blue, .red, .blue], "CR"),
            ("honduras-flag", "HON", [.blue, .white, .blue], "HN"),
            ("mexico-flag", "MEX", [.green, .white, .red], "MX"),
            ("usa-flag", "USA", [.blue, .red, .white], "US"),
            ("belgium-flag", "BEL", [.black, .yellow, .red], "BE"),
            ("bosnia-herzegovina-flag", "BIH", [.blue, .yellow, .blue], "BA"),
            ("croatia-flag", "CRO", [.red, .white, .blue], "HR"),
            ("england-flag", "ENG", [.white, .red, .white], nil),
            ("france-flag", "FRA", [.blue, .white, .red], "FR"),
            ("germany-flag", "GER", [.black, .red, .yellow], "DE"),
            ("greece-flag", "GRE", [.blue, .white, .blue], "GR"),
            ("italy-flag", "ITA", [.green, .white, .red], "IT"),
            ("netherlands-flag", "NED", [.red, .white, .blue], "NL"),
            ("portugal-flag", "POR", [.green, .red, .red], "PT"),
            ("russia-flag", "RUS", [.white, .blue, .red], "RU"),
            ("spain-flag", "ESP", [.red, .yellow, .red], "ES"),
            ("switzerland-flag", "SUI", [.red, .white, .red], "CH"),
            ("argentina-flag", "ARG", [.cyan, .white, .cyan], "AR"),
            ("brazil-flag", "BRA", [.green, .yellow, .blue], "BR"),
            ("chile-flag", "CHI", [.blue, .white, .red], "CL"),
            ("colombia-flag", "COL", [.yellow, .blue, .red], "CO"),
            ("ecuador-flag", "ECU", [.yellow, .blue, .red], "EC"),
            ("uruguay-flag", "URU", [.white, .blue, .white], "UY"),
            (Team.secretImageName, "WND", [.magenta, .cyan, .magenta], nil),
        ]
        return Dictionary(uniqueKeysWithValues: table.map { ($0.0, FlagBadge(code: $0.1, colors: $0.2, regionCode: $0.3)) })
    }()
}
