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

    /// Whether the filter keeps every team (its text is empty).
    var keepsEverything: Bool { text.isEmpty }

    /// The condition on the `team` table, in the store's SQL: the folded text inside the
    /// folded name (`nameKey`). Nil when the text is empty: every team matches.
    func predicate(in store: any TeamStore) -> SQL? {
        text.isEmpty ? nil : store.nameContains(text)
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
