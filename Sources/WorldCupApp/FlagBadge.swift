import TerminalUI
import WorldCup

/// A team's flag as a terminal can draw it: its three-letter code on its flag's colours.
public struct FlagBadge: Hashable, Sendable {
    public var code: String
    /// The flag's colours, one per letter, left to right (stripes or the main colours).
    public var colors: [TerminalColor]

    /// The badge for an image name of the original sample, such as "brazil-flag".
    /// Unknown images get the first letters of the team name on a neutral badge.
    public static func forTeam(imageName: String, teamName: String) -> FlagBadge {
        if let known = known[imageName] { return known }
        let letters = teamName.uppercased().filter { $0.isLetter && $0.isASCII }
        let code = String((letters + "???").prefix(3))
        return FlagBadge(code: code, colors: [.white, .white, .white])
    }

    /// The badge drawn as three coloured cells (or plain letters in brackets without colour).
    public func spans(usesColor: Bool) -> [Span] {
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
        let table: [(String, String, [C])] = [
            ("algeria-flag", "ALG", [.green, .white, .red]),
            ("cameroon-flag", "CMR", [.green, .red, .yellow]),
            ("ivory-coast-flag", "CIV", [.yellow, .white, .green]),
            ("ghana-flag", "GHA", [.red, .yellow, .green]),
            ("nigeria-flag", "NGA", [.green, .white, .green]),
            ("australia-flag", "AUS", [.blue, .red, .blue]),
            ("iran-flag", "IRN", [.green, .white, .red]),
            ("japan-flag", "JPN", [.white, .red, .white]),
            ("korea-flag", "KOR", [.white, .red, .blue]),
            ("costa-rica-flag", "CRC", [.blue, .red, .blue]),
            ("honduras-flag", "HON", [.blue, .white, .blue]),
            ("mexico-flag", "MEX", [.green, .white, .red]),
            ("usa-flag", "USA", [.blue, .red, .white]),
            ("belgium-flag", "BEL", [.black, .yellow, .red]),
            ("bosnia-herzegovina-flag", "BIH", [.blue, .yellow, .blue]),
            ("croatia-flag", "CRO", [.red, .white, .blue]),
            ("england-flag", "ENG", [.white, .red, .white]),
            ("france-flag", "FRA", [.blue, .white, .red]),
            ("germany-flag", "GER", [.black, .red, .yellow]),
            ("greece-flag", "GRE", [.blue, .white, .blue]),
            ("italy-flag", "ITA", [.green, .white, .red]),
            ("netherlands-flag", "NED", [.red, .white, .blue]),
            ("portugal-flag", "POR", [.green, .red, .red]),
            ("russia-flag", "RUS", [.white, .blue, .red]),
            ("spain-flag", "ESP", [.red, .yellow, .red]),
            ("switzerland-flag", "SUI", [.red, .white, .red]),
            ("argentina-flag", "ARG", [.cyan, .white, .cyan]),
            ("brazil-flag", "BRA", [.green, .yellow, .blue]),
            ("chile-flag", "CHI", [.blue, .white, .red]),
            ("colombia-flag", "COL", [.yellow, .blue, .red]),
            ("ecuador-flag", "ECU", [.yellow, .blue, .red]),
            ("uruguay-flag", "URU", [.white, .blue, .white]),
            (Team.secretImageName, "WND", [.magenta, .cyan, .magenta]),
        ]
        return Dictionary(uniqueKeysWithValues: table.map { ($0.0, FlagBadge(code: $0.1, colors: $0.2)) })
    }()
}
