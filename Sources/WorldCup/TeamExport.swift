import Foundation

/// The teams as text for other programs: JSON (the shape `list --json` prints and `--seed`
/// reads) or CSV (a header, then one line per team).
public enum TeamExport {
    /// The formats, as `worldcup export` names them.
    public enum Format: String, CaseIterable, Sendable {
        case csv
        case json
    }

    /// The columns, in the order CSV writes them: the keys of JSON's objects and of a seed.
    public static let columns = ["teamName", "qualifyingZone", "imageName", "wins"]

    /// `teams` in `format`, in the order given (the board's, from `TeamStore.teams()`).
    public static func data(_ teams: [Team], as format: Format) throws -> Data {
        switch format {
        case .json: try json(teams)
        case .csv: Data(csv(teams).utf8)
        }
    }

    /// A pretty-printed JSON array of objects, keys sorted (so that two exports diff line by
    /// line), ending with a newline.
    public static func json(_ teams: [Team]) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let seeds = teams.map { SeedTeam(teamName: $0.teamName, qualifyingZone: $0.qualifyingZone, imageName: $0.imageName, wins: $0.wins) }
        return try encoder.encode(seeds) + Data("\n".utf8)
    }

    /// CSV as RFC 4180 writes it: a header line, then one line per team, lines ended by CRLF;
    /// a field holding a comma, a double quote, a line break or space at either end is put
    /// in double quotes, its double quotes doubled.
    public static func csv(_ teams: [Team]) -> String {
        var text = columns.joined(separator: ",") + "\r\n"
        for team in teams {
            text += [team.teamName, team.qualifyingZone, team.imageName, String(team.wins)].map(csvField).joined(separator: ",") + "\r\n"
        }
        return text
    }

    /// One CSV field, quoted when it must be.
    static func csvField(_ text: String) -> String {
        let mustQuote = text.unicodeScalars.contains { $0 == "," || $0 == "\"" || $0 == "\r" || $0 == "\n" }
            || text.first?.isWhitespace == true || text.last?.isWhitespace == true
        return mustQuote ? "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : text
    }
}
