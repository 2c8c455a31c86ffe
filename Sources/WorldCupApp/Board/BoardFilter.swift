import TerminalUI

/// The "/" filter: its keys, and the effect that applies it as it is typed.
extension BoardModel {
    /// "/": starts typing the filter, or goes back to the one already typed. A new filter asks
    /// for the names at once, with the empty text, so that they are read before the first character.
    mutating func openFilter(data: some BoardData) -> [BoardEffect] {
        mode = .filtering
        guard filter == nil else { return [] }
        filter = NameFilter()
        return [filterEffect(data: data)]
    }

    /// A key while the filter is typed: editing keys change it, Enter keeps it, Esc clears it.
    /// Returns nil for keys the table should handle (moving, paging, the mouse).
    mutating func handleFilter(_ key: Key, data: some BoardData) -> [BoardEffect]? {
        guard var typed = filter else { return nil }
        switch key {
        case .enter:
            mode = .browsing
            // The team the filter chose instead of a hidden one is the user's choice now.
            hiddenSelection = nil
            if typed.text.isEmpty {
                filter = nil
                return [filterEffect(data: data)]
            }
        case .escape:
            return clearFilter(data: data)
        case .character, .backspace, .control("u"):
            if typed.edit(key) {
                filter = typed
                return [filterEffect(data: data)]
            }
        default:
            return nil
        }
        return []
    }

    mutating func clearFilter(data: some BoardData) -> [BoardEffect] {
        let hadFilter = filter != nil
        filter = nil
        mode = .browsing
        return hadFilter ? [filterEffect(data: data)] : []
    }

    /// The effect that applies the filter as it is: the cursor stays on its team when it still matches,
    /// and a team the filter hid while it was typed gets the cursor back when it shows again.
    private func filterEffect(data: some BoardData) -> BoardEffect {
        var wanted = selectedID(data)
        if let hiddenSelection, hiddenSelection.substitute == wanted { wanted = hiddenSelection.id }
        return .filter(filter, wanted: wanted)
    }
}
