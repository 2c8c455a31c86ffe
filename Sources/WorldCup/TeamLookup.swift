import Foundation

extension Team {
    /// The key under which a person's typed name finds a team: case and accents folded as the
    /// board's filter and order fold them (`folded`), and the typographic apostrophes (’ ‘ ʼ)
    /// taken as the typewriter's ('), which a keyboard or a shell gives more readily.
    public static func lookupKey(_ name: String) -> String {
        String(folded(TeamValidation.trimmed(name)).map { apostrophes.contains($0) ? "'" : $0 })
    }

    /// The characters a person may type for an apostrophe.
    private static let apostrophes: Set<Character> = ["\u{2019}", "\u{2018}", "\u{02BC}"]
}

extension TeamStore {
    /// The team a person means by `name`, as the command line reads it: the team with this
    /// name (case and normalisation ignored) if there is one, else the one team whose name
    /// folds alike (`Team.lookupKey`: `cote d'ivoire` finds Côte d’Ivoire). Throws one
    /// sentence when none does, or when several do (then only the exact name tells them apart).
    public func team(meant name: String) throws -> Team {
        if let exact = try team(named: name) { return exact }
        let key = Team.lookupKey(name)
        // Read only when the exact name found nothing: a person's typo, not a hot path.
        let alike = try teams().filter { Team.lookupKey($0.teamName) == key }
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
