import GRDB
import TerminalUI
import WorldCup

/// The "/" filter: teams whose name contains a text, ignoring case and Unicode normalisation.
///
/// A value type with no side effects: the screen turns `predicate` into a fetch request.
struct NameFilter: Equatable {
    /// The longest text the filter takes (as long as a team name can be).
    static let maximumLength = TeamValidation.maximumLength

    /// What the user typed. (Whether it is being typed is the board's mode.)
    private(set) var text = ""

    /// The condition on the `team` table: the folded text inside the folded name (`nameKey`),
    /// bound as an argument. Nil when the text is empty: every team matches.
    var predicate: SQL? {
        text.isEmpty ? nil : "instr(nameKey, \(Team.nameKey(text))) > 0"
    }

    /// Applies an editing key; returns whether the text changed.
    mutating func edit(_ key: Key) -> Bool {
        switch key {
        case .character(let character) where text.count < Self.maximumLength:
            text.append(character)
        case .backspace where !text.isEmpty:
            text.removeLast()
        case .control("u") where !text.isEmpty:
            text = ""
        default:
            return false
        }
        return true
    }
}
