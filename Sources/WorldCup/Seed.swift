import Foundation

/// One team as the sample's seed file describes it.
public struct SeedTeam: Codable, Hashable, Sendable {
    public var teamName: String
    public var qualifyingZone: String
    public var imageName: String
    public var wins: Int

    public init(teamName: String, qualifyingZone: String, imageName: String, wins: Int) {
        self.teamName = teamName
        self.qualifyingZone = qualifyingZone
        self.imageName = imageName
        self.wins = wins
    }
}

/// Reads seed files: JSON arrays of teams, trailing commas allowed as in the original sample.
public enum Seed {
    /// The seed that ships with the program: the repository's `seed.json`, the one copy there is,
    /// found from this source file's place so the binary finds it from any working directory.
    public static var defaultURL: URL? {
        let url = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent()  // Sources/WorldCup
            .deletingLastPathComponent()  // Sources
            .deletingLastPathComponent()  // the package root
            .appendingPathComponent("seed.json")
        return FileManager.default.fileExists(atPath: url.path) ? url : nil
    }

    /// Reads and checks the teams of a seed file.
    public static func load(from url: URL) throws -> [SeedTeam] {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw WorldCupError("Cannot read the seed file \(url.path): \(Self.reason(error))")
        }
        return try decode(data, source: url.path)
    }

    /// Decodes and checks seed JSON.
    public static func decode(_ data: Data, source: String = "the seed") throws -> [SeedTeam] {
        let decoder = JSONDecoder()
        decoder.allowsJSON5 = true
        let teams: [SeedTeam]
        do {
            teams = try decoder.decode([SeedTeam].self, from: data)
        } catch let error as DecodingError {
            throw WorldCupError("The seed file \(source) is not a list of teams: \(Self.describe(error))")
        }
        try validate(teams, source: source)
        return teams
    }

    static func validate(_ teams: [SeedTeam], source: String) throws {
        guard !teams.isEmpty else { throw WorldCupError("The seed file \(source) holds no teams.") }
        var seen = Set<String>()
        for (position, team) in teams.enumerated() {
            let entry = "entry \(position + 1) of \(source)"
            try TeamValidation.checkName(team.teamName, context: entry)
            try TeamValidation.checkZone(team.qualifyingZone, context: entry)
            guard team.wins >= 0 else { throw WorldCupError("The team “\(team.teamName)” in \(entry) has negative wins.") }
            guard seen.insert(Team.nameKey(TeamValidation.trimmed(team.teamName))).inserted else {
                throw WorldCupError("The team name “\(team.teamName)” appears twice in \(source).")
            }
        }
    }

    private static func describe(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context) -> String {
            let parts = context.codingPath.map { $0.intValue.map { "entry \($0 + 1)" } ?? $0.stringValue }
            return parts.isEmpty ? "" : " at " + parts.joined(separator: ", ")
        }
        switch error {
        case .dataCorrupted(let context):
            return context.codingPath.isEmpty ? "it is not valid JSON." : "bad value\(path(context))."
        case .keyNotFound(let key, let context):
            return "the field “\(key.stringValue)” is missing\(path(context))."
        case .typeMismatch(let type, let context), .valueNotFound(let type, let context):
            return "expected \(type == String.self ? "text" : type == Int.self ? "a whole number" : "\(type)")\(path(context))."
        @unknown default:
            return "it could not be decoded."
        }
    }

    private static func reason(_ error: any Error) -> String {
        let nsError = error as NSError
        if let posix = nsError.userInfo[NSUnderlyingErrorKey] as? NSError, posix.domain == NSPOSIXErrorDomain {
            return String(cString: strerror(Int32(posix.code))).lowercased() + "."
        }
        if nsError.domain == NSCocoaErrorDomain, nsError.code == NSFileReadNoSuchFileError { return "no such file." }
        return "it could not be read."
    }
}
