/// A store's reads and writes that undo and redo are made of, so that their rules (which entry
/// the author's latest is, how a revert is checked, planned, refused and marked) are written
/// once, in this protocol's extension, and each store gives only its SQL. Every requirement
/// runs inside one write (`Session`: SQLite's transaction, PostgreSQL's connection with the
/// write's id), which `revertWrite` opens.
package protocol RevertingStore: TeamStore {
    /// What a store reads and writes through inside one write.
    associatedtype Session

    /// Runs `body` as one write (after refusing on a read-only board). `body`'s answer is
    /// committed either way: a rule's refusal leaves its entry marked refused.
    func revertWrite(_ body: (Session) throws -> Result<TeamChange, Refusal>) throws -> Result<TeamChange, Refusal>
    /// Runs `attempt` until it answers: nil means the team or the entry changed between the
    /// read and the write (a store whose write cannot be raced never sees nil).
    func settled(_ session: Session, _ attempt: () throws -> TeamChange?) throws -> TeamChange

    /// The entry with this id, if the history still has it.
    func entry(id: Int64, in session: Session) throws -> HistoryEntry?
    /// The first history row `query` finds (`Revert.latest`'s text, given the store's
    /// placeholder for the author, which the store binds to its author).
    func firstEntry(_ query: (_ author: String) -> String, in session: Session) throws -> HistoryEntry?
    /// Runs `statement` (`HistorySQL`'s text, given the store's placeholder for the nth of
    /// `ids`, from 1) with `ids` bound.
    func execute(_ statement: (_ placeholder: (Int) -> String) -> String, _ ids: [Int64], in session: Session) throws
    /// The author of the entry with this id, if the history still has it.
    func author(ofEntry id: Int64, in session: Session) throws -> String?
    /// The team with this id, if any, with its zone's name.
    func team(id: Int64, in session: Session) throws -> Team?
    /// The team whose folded name is `key` (`Team.nameKey`), if any.
    func team(nameKey key: String, in session: Session) throws -> Team?
    /// Sets `team`'s zone to the one its `qualifyingZone` names, made if gone.
    func placeInZone(_ team: inout Team, in session: Session) throws
    /// Writes `plan` (its team placed in its zone) recorded as `change`, taking back the
    /// entry `reverting`; the change as written with its entry's id, or nil when the team or
    /// the entry changed since they were read.
    func write(_ plan: UndoPlan, current: Team?, change: TeamChange, reverting: Int64, in session: Session) throws -> TeamChange?

    /// Makes the plan `decide` makes of the zone `zoneID` as it is, with its history entry,
    /// in one write (after refusing on a read-only board).
    func zoneWrite(_ zoneID: Int64, decide: (Zone, Session) throws -> ZonePlan) throws -> TeamChange
    /// How many zones there are.
    func zoneCount(in session: Session) throws -> Int
    /// Runs `body` on `entry` as the store must for a zone's revert (PostgreSQL: in a
    /// transaction under the zone table's lock, the entry read again under it).
    func zoneRevert(_ entry: HistoryEntry, in session: Session, _ body: (HistoryEntry) throws -> TeamChange) throws -> TeamChange?
    /// The zone with this id, if any.
    func zone(id: Int64, in session: Session) throws -> Zone?
    /// The zone whose folded name is `key` (`Zone.nameKey`), if any.
    func zone(nameKey key: String, in session: Session) throws -> Zone?
    /// Whether any of these teams is in another zone than `zoneID`.
    func teamsLeft(_ teamIDs: [Int64], zone zoneID: Int64, in session: Session) throws -> Bool
    /// Writes a zone's plan; returns what it wrote.
    func apply(_ plan: ZonePlan, in session: Session) throws -> ZoneChange
    /// Writes a zone's revert's history entry, taking back `reverts`; returns its id.
    func record(zoneChange change: TeamChange, reverts: Int64, in session: Session) throws -> Int64
}

/// The history statements undo, redo and the pruning run, as both stores run them (quoted
/// names and `<>` read the same on SQLite and PostgreSQL); each store gives its placeholders.
package enum HistorySQL {
    /// The pruning, for the write whose entry (`newest`, an expression of its id) has an id
    /// that is a multiple of `HistoryEntry.pruneInterval`: it deletes the entries more than
    /// `HistoryEntry.retainedCount` before it that are also older than the kept time
    /// (`keptSince`, the store's expression for now less `HistoryEntry.retainedSeconds`),
    /// found by reading up from the oldest so the work is about the entries deleted.
    /// `sparing` (a placeholder) is an entry never deleted: the one an undo or a redo marks
    /// in the same statement (one statement must not change a row twice).
    package static func pruning(newest: String, keptSince: String, sparing: String? = nil) -> String {
        """
        DELETE FROM history WHERE \(newest) % \(HistoryEntry.pruneInterval) = 0
            AND id <= \(newest) - \(HistoryEntry.retainedCount)
            AND id < coalesce((SELECT id FROM history WHERE at >= \(keptSince) ORDER BY id LIMIT 1), 9223372036854775807)
            \(sparing.map { "AND id <> \($0)" } ?? "")
        """
    }

    /// Marks the entry (the first id) refused, so `undoLast` and `redoLast` pass over it.
    package static func markRefused(_ id: (Int) -> String) -> String {
        "UPDATE history SET refused = true WHERE id = \(id(1))"
    }

    /// Marks the entry (the second id) taken back by the entry the first id names.
    package static func markTakenBack(_ id: (Int) -> String) -> String {
        #"UPDATE history SET "undoneBy" = \#(id(1)) WHERE id = \#(id(2)) AND "undoneBy" IS NULL"#
    }
}

extension Revert {
    /// The rest of the query (after its SELECT) that finds the author's latest entry this
    /// revert may take (`author`, the placeholder): for an undo, their latest change not taken
    /// back and not refused; for a redo, their latest undo not taken back nor refused made
    /// after their latest change (a new change ends what may be redone).
    package func latest(author: String) -> String {
        switch self {
        case .undo:
            return #"""
                FROM history WHERE author = \#(author) AND action <> 'undo' AND "undoneBy" IS NULL AND NOT refused ORDER BY id DESC LIMIT 1
                """#
        case .redo:
            return #"""
                FROM history WHERE author = \#(author) AND action = 'undo' AND "undoneBy" IS NULL AND NOT refused
                AND id > coalesce((SELECT max(id) FROM history WHERE author = \#(author) AND action <> 'undo' AND reverts IS NULL), 0)
                ORDER BY id DESC LIMIT 1
                """#
        }
    }
}

extension RevertingStore {
    /// Takes back (or makes again) the entry with this id (`TeamStore.revert(_:entryID:)`).
    package func revertEntry(_ revert: Revert, entryID: Int64) throws -> TeamChange {
        try self.revert(revert) { session in try entry(id: entryID, in: session) ?? Revert.missing(entryID) }
    }

    /// Takes back (or makes again) the author's latest entry the revert may take
    /// (`TeamStore.revertLatest(_:)`).
    package func revertLatestEntry(_ revert: Revert) throws -> TeamChange {
        try revertLatestEntry(revert, picking: revert.latest(author:))
    }

    /// Takes back (or makes again) the entry `rule` (the text `Revert.latest` gives) picks as
    /// the author's latest: a rule edited in one place is the rule of every store.
    package func revertLatestEntry(_ revert: Revert, picking rule: (_ author: String) -> String) throws -> TeamChange {
        try self.revert(revert, orderly: true) { session in
            guard let entry = try firstEntry(rule, in: session) else { throw Refusal(revert.nothingLeft(author)) }
            return entry
        }
    }

    /// Makes `edit` of the zone `zoneID` by the zone's rules (`TeamStore.changeZone`).
    package func zoneEdit(_ zoneID: Int64, _ edit: ZoneEdit) throws -> TeamChange {
        try zoneWrite(zoneID) { zone, session in
            switch edit {
            case .rename(let name):
                let plan = try ZonePlan.renaming(zone, to: name)
                try plan.checkName(heldBy: self.zone(nameKey: Zone.nameKey(TeamValidation.trimmed(name)), in: session), reverting: nil)
                return plan
            case .move(let position):
                return try ZonePlan.moving(zone, to: position, zoneCount: zoneCount(in: session))
            case .merge(let target):
                return try ZonePlan.merging(zone, into: self.zone(id: target, in: session))
            }
        }
    }

    /// Takes back (or makes again) the entry `pick` finds, in one write: by its plan,
    /// recording the undo or redo and marking the entry taken back. A rule's refusal marks
    /// the entry refused, committed, and is then thrown (not as a failure of the store);
    /// `orderly` (the entry was picked as the author's latest) adds how to reach it again by its id.
    private func revert(_ revert: Revert, orderly: Bool = false, pick: (Session) throws -> HistoryEntry) throws -> TeamChange {
        try revertWrite { session -> Result<TeamChange, Refusal> in
            do {
                return .success(try settled(session) { try apply(revert, of: pick(session), session) })
            } catch var refusal as Refusal {
                if let refused = refusal.entryID {
                    try execute(HistorySQL.markRefused, [refused], in: session)
                    if orderly { refusal = refusal.appending(revert.passedOver(refused)) }
                }
                return .failure(refusal)
            }
        }.get()
    }

    /// Takes `entry` back (an undo) or makes the change its undo took back again (a redo);
    /// nil when the team or the entry changed between the read and the write.
    private func apply(_ revert: Revert, of entry: HistoryEntry, _ session: Session) throws -> TeamChange? {
        try revert.check(entry, author: author)
        try refuseIfReverted(entry, session)
        if entry.change.isZoneChange { return try applyToZone(revert, of: entry, session) }
        let current = try entry.change.teamID.flatMap { try team(id: $0, in: session) }
        var plan: UndoPlan
        do {
            plan = try revert.plan(entry, current: current)
            if let name = plan.nameTaken {
                try revert.refusing(entry) { try plan.checkName(heldBy: team(nameKey: Team.nameKey(name), in: session)) }
            }
        } catch let refusal as Refusal {
            // The team was read after the entry: another program may have taken the entry
            // back between the two reads (its change is then what the rule saw). Then that is
            // the answer; otherwise the rule's refusal stands.
            if let again = try self.entry(id: entry.id, in: session) { try refuseIfReverted(again, session) }
            throw refusal
        }
        var change = revert.change(entry, plan: plan, current: current)
        // The zone a team brought back or edited back goes to, by its name (made again if
        // gone), with that zone's spelling now: the entry records the row as written.
        switch plan {
        case .insert(var team):
            try placeInZone(&team, in: session)
            (plan, change.after) = (.insert(team), team)
        case .restore(var team):
            try placeInZone(&team, in: session)
            (plan, change.after) = (.restore(team), team)
        case .takeWin, .giveWin, .delete:
            break
        }
        return try write(plan, current: current, change: change, reverting: entry.id, in: session)
    }

    /// Takes back (or makes again) `entry`, a zone's change, by the zone's rules
    /// (`Revert.zonePlan`), recording it and marking the entry.
    private func applyToZone(_ revert: Revert, of entry: HistoryEntry, _ session: Session) throws -> TeamChange? {
        try zoneRevert(entry, in: session) { claimed in
            try refuseIfReverted(claimed, session)
            let recorded = entry.change.zone ?? ZoneChange(before: nil, after: nil)
            let current = try recorded.zoneID.flatMap { try zone(id: $0, in: session) }
            let into = try recorded.into?.id.flatMap { try zone(id: $0, in: session) }
            var teamsLeft = false
            if let into, let intoID = into.id, !recorded.teamIDs.isEmpty {
                teamsLeft = try self.teamsLeft(recorded.teamIDs, zone: intoID, in: session)
            }
            let plan = try revert.zonePlan(entry, current: current, into: into, teamsLeft: teamsLeft)
            if let name = plan.nameTaken {
                try revert.refusing(entry) { try plan.checkName(heldBy: zone(nameKey: Zone.nameKey(name), in: session), reverting: revert) }
            }
            var change = revert.zoneChange(entry, wrote: try apply(plan, in: session))
            let id = try record(zoneChange: change, reverts: entry.id, in: session)
            try execute(HistorySQL.markTakenBack, [id, entry.id], in: session)
            change.entryID = id
            return change
        }
    }

    /// Throws the refusal for an entry taken back already, naming who did.
    private func refuseIfReverted(_ entry: HistoryEntry, _ session: Session) throws {
        guard let undoneBy = entry.undoneBy else { return }
        throw entry.alreadyReverted(by: try author(ofEntry: undoneBy, in: session) ?? "someone")
    }
}
