import LiveResults
import TerminalUI
import WorldCup

/// The "/" filter: teams whose name contains a text, ignoring case, accents, Unicode
/// normalisation and which apostrophe, folded as the board's order folds names and the command
/// line finds a team (`Team.folded`, one rule): `/cote` and `/d'iv` find "Côte d’Ivoire",
/// `/ÉMOJI` finds "Emoji" and "Émoji".
///
/// A value type with no side effects: the screen hands `resultsFilter` to the controller,
/// which filters in memory (no query per key, even at a million teams). When the filter
/// opens, the screen has the controller read the names in the background
/// (`prepareFilter(inColumn:)`): the prompt shows and takes keys at once, the title says
/// "reading names…" meanwhile (a large board's names take long enough to read that a
/// frozen prompt would show), and the filter typed so far applies when the names are in.
struct NameFilter: Equatable {
    /// The column the filter reads: the name's sort key, which the database keeps beside each
    /// name and which starts with the folded name (so no column is folded at each key).
    static let column = "nameSortKey"

    /// The longest text the filter takes (as long as a team name can be).
    static let maximumLength = TeamValidation.maximumLength

    /// What the user typed. (Whether it is being typed is the board's mode.)
    private(set) var text = ""

    /// Whether the filter keeps every team (its text is empty).
    var keepsEverything: Bool { text.isEmpty }

    /// The controller's in-memory filter: the folded text inside the name's sort key (the
    /// folded name, then a U+0001 no text typed holds, then the name in lower case: what the
    /// text matches is in the folded name). The empty text keeps every team.
    var resultsFilter: ResultsFilter {
        .contains(Team.folded(text), inColumn: Self.column)
    }

    /// Where the text is in a name, in characters (the first place, as the filter finds it),
    /// for the board to highlight; nil for the empty text or a name that does not match.
    /// Each character is folded on its own, so a match in the folded name leads back to the
    /// characters it came from ("cote" in "Côte d’Ivoire": 0..<4).
    func match(in name: String) -> Range<Int>? {
        let needle = Array(Team.folded(text))
        guard !needle.isEmpty else { return nil }
        var folded: [Character] = [], owners: [Int] = []
        for (offset, character) in name.enumerated() {
            // ASCII folds by its case alone; Foundation's folding is for the rest (drawn rows only).
            for foldedCharacter in character.isASCII ? String(character.lowercased()) : Team.folded(String(character)) {
                folded.append(foldedCharacter)
                owners.append(offset)
            }
        }
        guard needle.count <= folded.count,
              let start = (0...(folded.count - needle.count)).first(where: { folded[$0..<$0 + needle.count].elementsEqual(needle) })
        else { return nil }
        return owners[start]..<owners[start + needle.count - 1] + 1
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
