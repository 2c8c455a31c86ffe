import LiveResults
import TerminalUI
import WorldCup

/// The "/" filter: teams whose name contains a text, ignoring case and Unicode normalisation.
///
/// A value type with no side effects: the screen hands `resultsFilter` to the controller,
/// which filters in memory (no query per key, even at a million teams).
struct NameFilter: Equatable {
    /// The longest text the filter takes (as long as a team name can be).
    static let maximumLength = TeamValidation.maximumLength

    /// What the user typed. (Whether it is being typed is the board's mode.)
    private(set) var text = ""

    /// Whether the filter keeps every team (its text is empty).
    var keepsEverything: Bool { text.isEmpty }

    /// The controller's in-memory filter: the folded text inside the folded name (`nameKey`,
    /// which the database keeps beside each name). The empty text keeps every team.
    var resultsFilter: ResultsFilter {
        .contains(Team.nameKey(text), inColumn: "nameKey")
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
