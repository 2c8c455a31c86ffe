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
    /// The largest seed file read, in bytes: 4 MiB, room for some 40,000 teams. A larger file
    /// is refused before it is read (an endless one as soon as it passes the limit), so no
    /// seed can exhaust memory or time.
    public static let maximumFileSize = 4 << 20

    /// The most wins a seed may give a team; taps can never overflow from there.
    public static let maximumWins = 1_000_000_000

    /// The name errors give the seed that ships with the program.
    public static let bundledName = "the built-in seed"

    /// The seed that ships with the program: the repository's `seed.json` (the one copy there
    /// is), built into the binary by the EmbedSeed plugin, so an installed `worldcup` seeds a new
    /// database from any folder.
    public static func bundled() throws -> [SeedTeam] {
        try decode(Data(embeddedJSON.utf8), source: bundledName)
    }

    /// Reads and checks the teams of a seed file.
    public static func load(from url: URL) throws -> [SeedTeam] {
        try decode(contents(of: url), source: WorldCupError.quotable(url.path))
    }

    /// Decodes and checks seed JSON; `source` names it in errors.
    public static func decode(_ data: Data, source: String = "the seed") throws -> [SeedTeam] {
        func notJSON(_ problem: JSONSyntax.Problem) -> WorldCupError {
            WorldCupError("The seed file \(source) is not valid JSON: expected \(problem.expected) at line \(problem.line), column \(problem.column).")
        }
        // Foundation's JSON5 reader traps (a crash, not an error) on some invalid UTF-8, such as
        // [{\u{FF}\u{FF}a: 1}], and on some malformed numbers, such as 0x0x3 (found by
        // Fuzz/fuzz-seed, Swift 6.3), so it reads only what our own scan finds well-formed.
        // That scan also gives what the decoder never says: the line and column.
        let bytes = [UInt8](data)
        if let problem = JSONSyntax.invalidUTF8(in: bytes) ?? JSONSyntax.firstProblem(in: bytes) { throw notJSON(problem) }
        let decoder = JSONDecoder()
        decoder.allowsJSON5 = true
        let teams: [SeedTeam]
        do {
            teams = try decoder.decode([SeedTeam].self, from: data)
        } catch DecodingError.dataCorrupted(let context) where context.codingPath.isEmpty {
            // Well-formed, yet "not valid JSON": the decoder says so of a number an Int cannot hold.
            if let entry = fractionalWins(in: data, decoder: decoder) {
                throw WorldCupError("The seed file \(source) is not a list of teams: expected a whole number at entry \(entry + 1), wins.")
            }
            throw WorldCupError("The seed file \(source) is not valid JSON.")
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
            try TeamValidation.check(team.imageName, what: "image name", context: entry)
            // Checked, but untrimmed: "\nBrazil" would break the message's line.
            let name = TeamValidation.trimmed(team.teamName)
            guard team.wins >= 0 else { throw WorldCupError("The team “\(name)” in \(entry) has negative wins.") }
            guard team.wins <= maximumWins else {
                throw WorldCupError("The team “\(name)” in \(entry) has more than \(maximumWins) wins.")
            }
            guard seen.insert(Team.nameKey(name)).inserted else {
                throw WorldCupError("The team name “\(name)” appears twice in \(source).")
            }
        }
    }

    /// The index of the first team whose wins are a number but not a whole one an Int holds.
    private static func fractionalWins(in data: Data, decoder: JSONDecoder) -> Int? {
        struct Wins: Decodable { var wins: Double? }
        let entries = try? decoder.decode([Wins].self, from: data)
        return entries?.firstIndex { entry in
            entry.wins.map { $0.rounded() != $0 || Int(exactly: $0) == nil } ?? false
        }
    }

    /// The bytes of a seed file, refusing folders and files over `maximumFileSize`.
    static func contents(of url: URL) throws -> Data {
        let path = WorldCupError.quotable(url.path)
        func unreadable() -> WorldCupError {
            WorldCupError("Cannot read the seed file \(path): \(WorldCupError.phrase(errno: errno)).")
        }
        let file = open(url.path, O_RDONLY | O_CLOEXEC)
        guard file >= 0 else { throw unreadable() }
        defer { close(file) }
        var status = stat()
        guard fstat(file, &status) == 0 else { throw unreadable() }
        if status.st_mode & S_IFMT == S_IFDIR { throw WorldCupError("The seed file \(path) is a folder, not a file.") }
        let limit = "the \(maximumFileSize >> 20) MB limit for seed files"
        if status.st_mode & S_IFMT == S_IFREG, status.st_size > maximumFileSize {
            let megabytes = (Int(status.st_size) + (1 << 20) - 1) >> 20
            throw WorldCupError("The seed file \(path) is \(megabytes) MB, over \(limit).")
        }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = read(file, &buffer, buffer.count)
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else { throw unreadable() }
            if count == 0 { return data }
            data.append(contentsOf: buffer[..<count])
            guard data.count <= maximumFileSize else { throw WorldCupError("The seed file \(path) is over \(limit).") }
        }
    }

    private static func describe(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context) -> String {
            let parts = context.codingPath.map { $0.intValue.map { "entry \($0 + 1)" } ?? $0.stringValue }
            return parts.isEmpty ? "" : " at " + parts.joined(separator: ", ")
        }
        func name(_ type: Any.Type) -> String {
            switch type {
            case is String.Type: "text"
            case is Int.Type: "a whole number"
            case is SeedTeam.Type, is [String: Any].Type: "a team with teamName, qualifyingZone, imageName and wins"
            case is [SeedTeam].Type, is [Any].Type: "a list of teams (a JSON array)"
            default: "a different kind of value"
            }
        }
        switch error {
        case .dataCorrupted(let context):
            return "bad value\(path(context))."
        case .keyNotFound(let key, let context):
            return "the field “\(key.stringValue)” is missing\(path(context))."
        case .typeMismatch(let type, let context), .valueNotFound(let type, let context):
            return "expected \(name(type))\(path(context))."
        @unknown default:
            return "it could not be decoded."
        }
    }
}
