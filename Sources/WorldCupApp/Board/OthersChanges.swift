import Synchronization
import WorldCup

/// Other programs' changes to name on the status line: `fan@laptop: Brazil +1 win.` for one,
/// `5 changes by fan@laptop and guest@pc.` for a burst, `32+ changes, the latest by
/// fan@laptop.` for a storm read in part, `Updated by another program.` when the history names
/// nobody.
struct OthersNotice: Equatable {
    /// How many changes are named (none: changes the history does not name).
    private(set) var count = 0
    /// Their authors, each once, in the order they first changed the board.
    private(set) var authors: [String] = []
    /// The change, when there is exactly one.
    private(set) var only: HistoryEntry?
    /// Whether there were more changes than those counted (a storm, read in part).
    private(set) var more = false

    /// How many authors a burst's sentence names before it says "and N others".
    static let authorsNamed = 2

    /// The notice of `entries` (oldest first), written by other programs, and of `more`
    /// before them when told; none: changes the history does not name.
    init(_ entries: [HistoryEntry] = [], more: Bool = false) {
        count = entries.count
        self.more = more && !entries.isEmpty
        only = entries.count == 1 && !more ? entries[0] : nil
        for entry in entries where !authors.contains(entry.by) { authors.append(entry.by) }
    }

    /// This notice and `later` as one: the changes of both, the authors of both.
    func merged(with later: OthersNotice) -> OthersNotice {
        var merged = self
        merged.count += later.count
        merged.more = more || later.more
        merged.only = merged.count == 1 && !merged.more ? (only ?? later.only) : nil
        for author in later.authors where !merged.authors.contains(author) { merged.authors.append(author) }
        return merged
    }

    /// The sentence of the status line.
    var sentence: String {
        if let only { return "\(WorldCupError.quotable(only.by, limit: 40)): \(only.change.summary)" }
        guard count > 0, !authors.isEmpty else { return "Updated by another program." }
        let named = authors.prefix(authors.count > Self.authorsNamed + 1 ? Self.authorsNamed : authors.count).map { WorldCupError.quotable($0, limit: 40) }
        let others = authors.count - named.count
        let list: String
        if others > 0 {
            list = named.joined(separator: ", ") + " and \(others) others"
        } else if named.count > 1 {
            list = named.dropLast().joined(separator: ", ") + " and " + named.last!
        } else {
            list = named[0]
        }
        return more ? "\(count)+ changes, the latest by \(list)." : "\(count) changes by \(list)."
    }
}

extension BoardModel {
    /// Says who made the changes other programs just committed; while the status line holds
    /// a question or an error, keeps them behind it (`showOthersWaiting`), never dropped.
    mutating func showOthersChanges(_ notice: OthersNotice, now: Double) {
        // What this board did, asked or failed to do is said first: others' changes wait behind
        // it (their rows have moved meanwhile), and a newer notice of theirs replaces an older.
        if isAskingQuestion || status.map({ $0.isError || !$0.isFromElsewhere }) == true {
            othersWaiting = othersWaiting.map { $0.merged(with: notice) } ?? notice
            return
        }
        say(notice.sentence, for: Self.changedElsewhereSeconds, fromElsewhere: true, now: now)
    }

    /// Names the changes of others kept behind an error or a question, once the status line
    /// is free of it.
    mutating func showOthersWaiting(now: Double) {
        guard status == nil, let waiting = othersWaiting else { return }
        othersWaiting = nil
        say(waiting.sentence, for: Self.changedElsewhereSeconds, fromElsewhere: true, now: now)
    }
}

/// Reads who made the changes other programs committed: the history's newest entries since
/// the last look that this board's store did not write. A look reads at most `limit` entries,
/// however many commits came since the last: in a storm the newest are named, and the
/// sentence says there were more. Used where the store's work runs (`StoreWork`), one look
/// at a time.
final class OthersChangesReader: Sendable {
    private let store: any TeamStore
    /// The newest history entry looked at or named from a note (`entries(fromNotes:)`, on the
    /// board's loop, while a look may run where the store's work runs).
    private let lastSeen: Mutex<Int64>
    /// The most entries read at one look.
    static let limit = 32

    /// Names nothing older than the newest entry at `startFromNewest()`.
    init(store: any TeamStore) {
        self.store = store
        lastSeen = Mutex(0)
    }

    /// Takes the history's newest entry as seen: what came before the board opened is never
    /// named. Where the store's work runs, ahead of every look, not on the loop: across a
    /// network, a read the board's first rows need not wait for.
    func startFromNewest() {
        let newest = (try? store.history(limit: 1).first?.id) ?? 0
        lastSeen.withLock { $0 = max($0, newest) }
    }

    /// The entries of others that the notes of a batch from elsewhere list, oldest first (none
    /// when every one was this board's own), without a read; nil when the notes cannot say
    /// (a commit without one, a store whose notifications carry none): the history is read.
    func entries(fromNotes notes: [String]) -> [HistoryEntry]? {
        guard !notes.isEmpty else { return nil }
        var entries: [HistoryEntry] = []
        for note in notes {
            guard let listed = HistoryRow.entries(inNote: note) else { return nil }
            entries += listed
        }
        // Named now: a later look does not name them again.
        if let newest = entries.map(\.id).max() { lastSeen.withLock { $0 = max($0, newest) } }
        return entries.filter { !store.ownEntries.contains($0.id) }
    }

    /// The event for changes from elsewhere just shown: named when the history says who made
    /// them, else the plain note; nil when every entry since the last look is this board's
    /// own (its change came back through the change log, as a zone's change on PostgreSQL
    /// does: the board said what it did already).
    func event() -> BoardEvent? {
        guard let newest = try? store.history(limit: Self.limit) else { return .changedElsewhere }
        let seen = lastSeen.withLock { $0 }
        let unseen = newest.prefix { $0.id > seen }
        // Every entry since the last look was read when the look reached back to it.
        let more = unseen.count == Self.limit && unseen.last.map { $0.id > seen + 1 } == true
        if let first = unseen.first?.id { lastSeen.withLock { $0 = max($0, first) } }
        let others = unseen.reversed().filter { !store.ownEntries.contains($0.id) }
        if others.isEmpty { return unseen.isEmpty ? .changedElsewhere : nil }
        return .changedBy(others, more: more)
    }
}
