import Foundation

extension TeamStore {
    /// The team a person means by `name`, as the command line reads it: the team with this
    /// name (case and normalisation ignored) if there is one, else the one team whose name
    /// folds alike, as the board's filter folds it (`Team.folded`: case, accents and the
    /// apostrophes; `cote d'ivoire` finds Côte d’Ivoire). Throws one sentence when none does,
    /// or when several do (then only the exact name tells them apart).
    public func team(meant name: String) throws -> Team {
        if let exact = try team(named: name) { return exact }
        let key = Team.folded(TeamValidation.trimmed(name))
        // Read only when the exact name found nothing: a person's typo, not a hot path.
        let teams = try teams()
        let alike = teams.filter { Team.folded($0.teamName) == key }
        let typed = "“\(WorldCupError.quotable(TeamValidation.trimmed(name)))”"
        switch alike.count {
        case 1:
            return alike[0]
        case 0:
            // A part of a name (`tap cote`), which the board's filter would find: the teams
            // whose names hold it, when they are few enough to name.
            let holding = key.isEmpty ? [] : teams.filter { Team.folded($0.teamName).contains(key) }
            guard (1...3).contains(holding.count) else { throw noTeam(named: name) }
            throw WorldCupError("There is no team named \(typed): did you mean \(Self.either(holding, more: 0))?")
        default:
            throw WorldCupError("\(typed) could be \(Self.either(alike.prefix(3), more: alike.count - 3)): give the exact name.")
        }
    }

    /// Teams' names quoted, as “A”, “B” or “C” (and `more` more, when there are).
    private static func either(_ teams: some Collection<Team>, more: Int) -> String {
        let names = teams.map { "“\(WorldCupError.quotable($0.teamName))”" }
        return more > 0 ? names.joined(separator: ", ") + " or \(more) more" : names.dropLast().joined(separator: ", ") + (names.count > 1 ? " or " : "") + names.last!
    }
}
