import WorldCup

/// Naming other programs' changes on the status line: `fan@laptop: Brazil +1 win.` for one,
/// `5 changes by fan@laptop and guest@pc.` for a burst.
enum OthersChanges {
    /// How many authors a burst's sentence names before it says "and N others".
    static let authorsNamed = 2

    /// The sentence for `entries` (oldest first), written by other programs.
    static func sentence(_ entries: [HistoryEntry]) -> String {
        guard entries.count > 1 else {
            return entries.first.map { "\(WorldCupError.quotable($0.by, limit: 40)): \($0.change.summary)" } ?? "Updated by another program."
        }
        var authors: [String] = []
        for entry in entries where !authors.contains(entry.by) { authors.append(entry.by) }
        let named = authors.prefix(authors.count > authorsNamed + 1 ? authorsNamed : authors.count).map { WorldCupError.quotable($0, limit: 40) }
        let others = authors.count - named.count
        let list: String
        if others > 0 {
            list = named.joined(separator: ", ") + " and \(others) others"
        } else if named.count > 1 {
            list = named.dropLast().joined(separator: ", ") + " and " + named.last!
        } else {
            list = named[0]
        }
        return "\(entries.count) changes by \(list)."
    }
}

extension BoardModel {
    /// Says who made the changes another program just committed, unless the status line holds
    /// a question or an error.
    mutating func showOthersChanges(_ entries: [HistoryEntry], now: Double) {
        guard !isAskingToDelete, status?.isError != true else { return }
        say(OthersChanges.sentence(entries), for: Self.changedElsewhereSeconds, now: now)
    }
}

/// Reads who made the changes other programs committed: the history's entries since the
/// last look that this board's store did not write.
final class OthersChangesReader {
    private let store: any TeamStore
    /// The newest history entry looked at.
    private var lastSeen: Int64
    /// The most entries read at one look (a burst beyond it is named at the next look).
    static let limit = 1000

    init(store: any TeamStore) {
        self.store = store
        lastSeen = (try? store.history(limit: 1).first?.id) ?? 0
    }

    /// The event for changes from elsewhere just shown: named when the history says who made
    /// them, else the plain note.
    func event() -> BoardEvent {
        guard let entries = try? store.history(after: lastSeen, limit: Self.limit) else { return .changedElsewhere }
        if let last = entries.last?.id { lastSeen = last }
        let others = entries.filter { !store.ownEntries.contains($0.id) }
        return others.isEmpty ? .changedElsewhere : .changedBy(others)
    }
}
