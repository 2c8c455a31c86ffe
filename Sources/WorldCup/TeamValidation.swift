import Foundation

/// The rules every team name and zone obeys.
public enum TeamValidation {
    /// The longest name or zone, in characters.
    public static let maximumLength = 64

    /// The most Unicode scalars one character may stack up: room for any emoji sequence (the
    /// longest have ten), none for a letter buried under thousands of combining marks.
    public static let maximumScalarsPerCharacter = 16

    /// The text with white space and newlines trimmed from both ends.
    public static func trimmed(_ text: String) -> String {
        text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Checks a team name; `context` says where it came from.
    public static func checkName(_ name: String, context: String? = nil) throws {
        try check(name, what: "team name", context: context)
    }

    /// Checks a qualifying zone; `context` says where it came from.
    public static func checkZone(_ zone: String, context: String? = nil) throws {
        try check(zone, what: "qualifying zone", context: context)
    }

    /// Checks text that will be stored and shown: after trimming it must be non-empty, at most
    /// `maximumLength` characters, and free of control characters, line and paragraph
    /// separators, bidi controls and the replacement character that marks invalid UTF-8.
    static func check(_ text: String, what: String, context: String?) throws {
        let place = context.map { " in \($0)" } ?? ""
        let value = trimmed(text)
        guard !value.isEmpty else { throw WorldCupError("The \(what)\(place) is empty.") }
        guard value.count <= maximumLength else {
            throw WorldCupError("The \(what)\(place) is longer than \(maximumLength) characters.")
        }
        guard !value.unicodeScalars.contains(where: isUnsafe) else {
            throw WorldCupError("The \(what)\(place) contains control characters.")
        }
        guard !value.unicodeScalars.contains("\u{FFFD}") else {
            throw WorldCupError("The \(what)\(place) contains bytes that are not valid UTF-8 text.")
        }
        guard value.allSatisfy({ $0.unicodeScalars.count <= maximumScalarsPerCharacter }) else {
            throw WorldCupError("The \(what)\(place) stacks more than \(maximumScalarsPerCharacter) marks on one character.")
        }
    }

    /// Whether a terminal would act on this scalar rather than show it: C0 and C1 controls
    /// (escape sequences start with one), line and paragraph separators, and bidi controls.
    static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .control, .lineSeparator, .paragraphSeparator: return true
        default: return isBidiControl(scalar)
        }
    }

    /// Bidi embedding, override and isolate controls: invisible, and they reorder what follows.
    static func isBidiControl(_ scalar: Unicode.Scalar) -> Bool {
        (0x202A...0x202E).contains(scalar.value) || (0x2066...0x2069).contains(scalar.value)
    }
}

extension TeamValidation {
    /// The secret team an add makes of what a person typed: name and zone checked
    /// (`checkName`, `checkZone`) and trimmed, no wins. Throws the first rule broken.
    public static func newTeam(name: String, zone: String) throws -> Team {
        try checkName(name)
        try checkZone(zone)
        return Team(teamName: trimmed(name), qualifyingZone: trimmed(zone), imageName: Team.secretImageName)
    }

    /// The sentence for a name that another team has, ignoring case and normalisation;
    /// `existing` is that team's name as stored.
    public static func nameTaken(by existing: String) -> WorldCupError {
        WorldCupError("A team named “\(WorldCupError.quotable(existing))” already exists.")
    }

    /// Throws `nameTaken` when `holder` (the team with `team`'s name, ignoring case and
    /// normalisation, as the store found it) is another team than `team`. Both stores'
    /// adds and edits ask this; undos and redos ask `UndoPlan.checkName(heldBy:)`.
    public static func checkName(of team: Team, heldBy holder: Team?) throws {
        guard let holder, holder.id != team.id || team.id == nil else { return }
        throw nameTaken(by: holder.teamName)
    }
}

extension TeamValidation {
    /// `team` with what an edit typed: a new name, zone or number of wins (nil keeps the
    /// team's), checked and trimmed as an add's are; wins from 0 to `Seed.maximumWins`. A
    /// zone spelt in another case or normalisation than one of `zones` (the board's) takes
    /// its spelling. Throws the first rule broken, or when nothing would change.
    public static func edited(_ team: Team, name: String?, zone: String?, wins: Int?, zones: [String] = []) throws -> Team {
        var edited = team
        if let name {
            try checkName(name)
            edited.teamName = trimmed(name)
        }
        if let zone {
            try checkZone(zone)
            edited.qualifyingZone = Team.existingSpelling(ofZone: zone, among: zones) ?? trimmed(zone)
        }
        if let wins {
            guard (0...Seed.maximumWins).contains(wins) else {
                throw WorldCupError("The wins must be a whole number from 0 to \(Seed.maximumWins).")
            }
            edited.wins = wins
        }
        guard edited != team else {
            throw WorldCupError("\(WorldCupError.quotable(team.teamName)) already has that name, zone and wins, so nothing was changed.")
        }
        return edited
    }
}
