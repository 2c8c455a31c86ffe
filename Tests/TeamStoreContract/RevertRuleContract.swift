import Foundation
import Testing
import WorldCup

/// The undo and redo rules are written once (`RevertingStore`): a rule edited in that one
/// place is the rule of every store. Checked by editing one (the author's latest, with the
/// clause that passes over a refused entry taken out) and running the edit on a store.
public enum RevertRuleContract {
    /// A refused undo is passed over by the rule as written; the edited rule, given once,
    /// picks it again on whichever store runs it.
    package static func oneEditIsEveryStoresRule<Store: RevertingStore>(_ open: (_ author: String) throws -> Store) throws {
        let fan = try open("fan@laptop"), guest = try open("guest@pc")
        let ghana = try #require(try fan.team(named: "Ghana"))
        _ = try fan.recordedTap(teamID: ghana.id!)
        _ = try guest.edit(teamID: ghana.id!, name: nil, zone: nil, wins: 0)
        let refused = "Ghana has no win left to take back"
        #expect(sentence { try fan.undoLast() }?.hasPrefix(refused) == true)
        #expect(sentence { try fan.undoLast() } == "There is nothing of fan@laptop's to undo.", "the rule as written passes over it")
        // The one edit: a refused entry is no longer passed over.
        let edited = { (author: String) in Revert.undo.latest(author: author).replacingOccurrences(of: " AND NOT refused", with: "") }
        #expect(Revert.undo.latest(author: "?").contains(" AND NOT refused"), "the clause the edit takes out is in the rule")
        #expect(sentence { try fan.revertLatestEntry(.undo, picking: edited) }?.hasPrefix(refused) == true, "the edited rule picks it again")
        _ = try guest.edit(teamID: ghana.id!, name: nil, zone: nil, wins: 1)
        let undo = try fan.revertLatestEntry(.undo, picking: edited)
        let after = try fan.team(named: "Ghana")
        #expect(undo.undid == .tap && after?.wins == 0, "and takes it back once it can be")
    }

    static func sentence(_ body: () throws -> Void) -> String? {
        do { try body() } catch { return "\(error)" }
        return nil
    }
}
