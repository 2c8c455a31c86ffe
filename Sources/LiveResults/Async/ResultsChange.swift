import Foundation

/// One element of ``ResultsController/changes()``: what changed in the result since the
/// previous element.
public enum ResultsChange: Hashable, Sendable {
    /// The exact events from the result before to the result after: apply them as a
    /// ``ResultsControllerDelegate`` would (deletes in the old result's index paths, inserts in
    /// the new one's). It may cover several commits; `origin` is ``ChangeOrigin/ownWrites``
    /// only when all of them were this controller's own writes.
    case batch(ChangeBatch, origin: ChangeOrigin)
    /// The controller could not tell what changed, or fetched afresh: reload everything
    /// (sections, counts and every visible row) from the controller.
    case reset
}
