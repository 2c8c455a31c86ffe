import LiveResults
import TerminalUI
import WorldCup

/// The "/" filter: teams whose name contains a text, ignoring case and Unicode normalisation.
///
/// A value type with no side effects: the screen hands `resultsFilter` to the controller,
/// which filters in memory (no query per key, even at a million teams). When the filter
/// opens, the screen has the controller read the names in the background
/// (`prepareFilter(inColumn:)`): the prompt shows and takes keys at once, the title says
/// "reading names…" meanwhile (a large board's names take long enough to read that a
/// frozen prompt would show), and the filter typed so far applies when the names are in.
struct NameFilter: Equatable {
    /// The column the filter reads: the folded name, which the database keeps beside each name.
    static let column = "nameKey"

    /// The longest text the filter takes (as long as a team name can be).
    static let maximumLength = TeamValidation.maximumLength

    /// What the user typed. (Whether it is being typed is the board's mode.)
    private(set) var text = ""

    /// Whether the filter keeps every team (its text is empty).
    var keepsEverything: Bool { text.isEmpty }

    /// The controller's in-memory filter: the folded text inside the folded name (`nameKey`,
    /// which the database keeps beside each name). The empty text keeps every team.
    var resultsFilter: ResultsFilter {
        .contains(Team.nameKey(text), inColumn: Self.column)
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
