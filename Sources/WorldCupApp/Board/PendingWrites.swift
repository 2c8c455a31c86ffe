import LiveResults
import TerminalUI
import WorldCup

/// A change this board asked the store for, whose outcome has not come back yet: the store
/// works on it off the board's loop (`StoreWork`), and the board goes on meanwhile.
struct PendingWrite: Equatable {
    var effect: BoardEffect
    /// The team it changes, as the status line names it.
    var teamName: String
}

/// The taps of one team asked for while others of it were being saved: taps commute, so each
/// Enter queues behind the ones before instead of being refused, goes to the store in order,
/// and the row shows their sum at once. Kept until the last one is answered, to say in one
/// sentence how many did not count.
struct TapRun: Equatable {
    var teamName: String
    var asked = 0
    var failed = 0
    /// Why the last tap that did not count failed.
    var reason = ""

    /// What the status line says once the run's last tap is answered and some did not count.
    var failureSentence: String {
        guard asked > 1 else { return reason }
        let name = WorldCupError.quotable(teamName, limit: 40)
        let counted = failed == asked ? "None of \(name)'s \(asked) taps counted" : "\(failed) of \(name)'s \(asked) taps did not count"
        return "\(counted): \(Self.continuing(reason))"
    }

    /// A sentence made to follow a colon: its first letter in lower case, unless its first
    /// word has other capitals (PostgreSQL, a name).
    private static func continuing(_ sentence: String) -> String {
        guard let first = sentence.first, first.isUppercase,
              !sentence.dropFirst().prefix(while: { $0.isLetter }).contains(where: \.isUppercase) else { return sentence }
        return first.lowercased() + sentence.dropFirst()
    }
}

extension BoardEffect {
    /// What a write changes, for telling two changes of one team apart from others: the
    /// team's id, or for an add the name it takes (folded, as names are compared).
    enum Subject: Hashable {
        case team(RecordID)
        case name(String)
        case zone(Int64)
    }

    /// What the write changes; nil for the filter, or an undo or redo that names no team.
    var subject: Subject? {
        switch self {
        case .tap(let id), .delete(let id, _), .edit(let id, _, _, _): .team(id)
        case .add(let name, _): .name(Team.nameKey(TeamValidation.trimmed(name)))
        case .renameZone(let id, _, _), .moveZone(let id, _, _), .mergeZone(let id, _, _): .zone(id)
        case .undo(let change), .redo(let change): change.zone?.zoneID.map(Subject.zone) ?? change.teamID.map(Subject.team)
        case .filter: nil
        }
    }
}

extension BoardModel {
    /// Why `effect` must wait, in one sentence, while another change of its team is being
    /// saved; nil when it may go. A team takes one change at a time: a second one would be
    /// made on a team whose first change may yet fail.
    /// A tap is the exception: behind the team's taps being saved it queues (taps commute).
    func refusalWhilePending(_ effect: BoardEffect) -> String? {
        guard let subject = effect.subject, let same = pendingWrites.first(where: { $0.effect.subject == subject }) else { return nil }
        if case .tap(let id) = effect, !hasPendingChange(ofTeam: id, otherThanTaps: true) { return nil }
        return "\(Self.quoted(same.teamName))'s last change is still being saved: try again when it is."
    }

    /// Whether a change of the team `id` is being saved; `otherThanTaps`: one that is not a tap.
    private func hasPendingChange(ofTeam id: RecordID, otherThanTaps: Bool) -> Bool {
        pendingWrites.contains { $0.effect.subject == .team(id) && !(otherThanTaps && $0.effect == .tap(id)) }
    }

    /// How many taps of the team `id` are being saved: its row shows them at once.
    func pendingTaps(teamID id: RecordID) -> Int {
        pendingWrites.count { $0.effect == .tap(id) }
    }

    /// Whether `key` taps the team under the cursor and would queue behind its taps being
    /// saved (or go at once): it need not wait for the changes being saved (`keyWait`).
    func queuesATap(_ key: Key, data: some BoardData) -> Bool {
        guard case .browsing = mode, readOnly == nil, key == .enter, let id = selectedID(data) else { return false }
        return !hasPendingChange(ofTeam: id, otherThanTaps: true)
    }

    /// The outcome of one tap of a run came back: its change is recorded, and once the run's
    /// last tap is answered the status line says the team's wins, or how many taps did not count.
    mutating func finishTap(of id: RecordID, _ outcome: BoardEvent, now: Double) {
        var run = tapRuns[id] ?? TapRun(teamName: "the team", asked: 1)
        var wins: Team?
        switch outcome {
        case .tapped(let tap):
            recordOwn(tap)
            wins = tap.team
        case .failed(let message):
            run.failed += 1
            run.reason = message
        default:
            break
        }
        guard pendingTaps(teamID: id) == 0 else {
            tapRuns[id] = run
            return
        }
        tapRuns[id] = nil
        if run.failed > 0 {
            say(run.failureSentence, isError: true, for: Self.errorSeconds, now: now)
        } else if let team = wins {
            say("\(team.teamName): \(team.wins) \(team.wins == 1 ? "win" : "wins").", now: now)
        }
    }

    /// `u` and Ctrl-R wait for every change of this board being saved, as they take back or
    /// make again its last change, which is not known until then: says so and returns true
    /// while one is.
    mutating func undoWaitsForSaving(now: Double) -> Bool {
        guard let first = pendingWrites.first else { return false }
        say("\(Self.quoted(first.teamName))'s change is still being saved: undo and redo wait until it is.", isError: true, for: Self.errorSeconds, now: now)
        return true
    }

    /// Whether `key` may ask for a write now: Enter or a double-click on a team, `+`… on the
    /// board, Enter in a dialog, y to the delete question. (A read-only board's are refused
    /// at once.)
    func mayAskForWrite(_ key: Key) -> Bool {
        guard readOnly == nil else { return false }
        switch mode {
        case .adding, .editing: return key == .enter
        case .renamingZone: return key == .enter
        case .confirmingDelete, .confirmingMerge: return key == .character("y") || key == .character("Y")
        case .help, .filtering: return false
        case .browsing:
            if case .mouse(let event) = key { return event.action == .doubleClick }
            return Self.changesTeams(key)
        }
    }

    /// Whether an add is being saved (closing its dialog cancels nothing).
    var isSavingAnAdd: Bool {
        pendingWrites.contains { if case .add = $0.effect { true } else { false } }
    }

    /// Notes that the store is saving `effect` (the status line says so until its outcome).
    mutating func beginWrite(_ effect: BoardEffect, data: some BoardData) {
        let write = PendingWrite(effect: effect, teamName: Self.teamName(of: effect, data: data))
        pendingWrites.append(write)
        if case .tap(let id) = effect { tapRuns[id, default: TapRun(teamName: write.teamName)].asked += 1 }
    }

    /// The write `effect` came back: it is no longer pending.
    mutating func endWrite(_ effect: BoardEffect) {
        if let index = pendingWrites.firstIndex(where: { $0.effect == effect }) { pendingWrites.remove(at: index) }
    }

    /// Whether a change of the team with this id is being saved (its row shows it).
    func isSaving(teamID: RecordID) -> Bool {
        pendingWrites.contains { $0.effect.subject == .team(teamID) }
    }

    /// What the status line says while changes are being saved and it holds no message:
    /// "Saving Korea…", "Saving Korea and 2 other changes…" (taps queued on Korea are Korea's);
    /// nil when none is.
    var savingNote: String? {
        guard let first = pendingWrites.first else { return nil }
        let others = pendingWrites.count { $0.effect != first.effect }
        let more = others == 0 ? "" : " and \(others) other \(others == 1 ? "change" : "changes")"
        return "Saving \(Self.quoted(first.teamName))\(more)…"
    }

    /// The name of the team a write changes, as the board shows it now.
    private static func teamName(of effect: BoardEffect, data: some BoardData) -> String {
        switch effect {
        case .add(let name, _): return TeamValidation.trimmed(name)
        case .delete(_, let name), .renameZone(_, let name, _), .moveZone(_, let name, _), .mergeZone(_, let name, _): return name
        case .undo(let change), .redo(let change): return change.teamName
        case .tap(let id), .edit(let id, _, _, _):
            return data.position(of: id).flatMap { data.team(at: $0) }?.teamName ?? "the team"
        case .filter: return ""
        }
    }

    private static func quoted(_ name: String) -> String {
        WorldCupError.quotable(name, limit: 40)
    }
}
