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
        let alike = try teams().filter { Team.folded($0.teamName) == key }
        let typed = "“\(WorldCupError.quotable(TeamValidation.trimmed(name)))”"
        switch alike.count {
        case 1:
            return alike[0]
        case 0:
            throw noTeam(named: name)
        default:
            let names = alike.prefix(3).map { "“\(WorldCupError.quotable($0.teamName))”" }
            let list = alike.count > 3 ? names.joined(separator: ", ") + " or \(alike.count - 3) more" : names.dropLast().joined(separator: ", ") + " or " + names.last!
            throw WorldCupError("\(typed) could be \(list): give the exact name.")
        }
    }
}
