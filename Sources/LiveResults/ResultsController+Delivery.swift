import Foundation

// Delivering batches to the delegate and the snapshot subscriber.

extension ResultsController {
    /// Tells the subscribers that the result was replaced wholesale.
    func deliverReset() {
        let reset = snapshot(reloading: Set(result.shown.allIDs))
        onSnapshot?(snapshot(reloading: reset.reloadedItemIdentifiers, reloadingSections: Set(reset.sectionIdentifiers)))
        delegate?.controllerDidResetContent(self)
        streams.deliver(.reset)
    }

    /// The snapshot after `batch`: the rows and sections it moved or updated are reloaded.
    func snapshot(after batch: ChangeBatch) -> ResultsSnapshot {
        let reloaded = batch.rowChanges.filter { $0.kind == .update || $0.kind == .move }.map(\.id)
        let sections = batch.sectionChanges.filter { $0.kind == .update || $0.kind == .move }.map(\.identifier)
        return snapshot(reloading: Set(reloaded), reloadingSections: Set(sections))
    }

    /// Hands one batch to the snapshot subscriber and the delegate: row by row, then whole.
    func deliver(_ batch: ChangeBatch, from origin: ChangeOrigin) {
        guard !batch.isEmpty else { return }
        streams.deliver(.batch(batch, origin: origin))
        if let onSnapshot { onSnapshot(snapshot(after: batch)) }
        guard let delegate else { return }
        delegate.controllerWillChangeContent(self)
        for change in batch.sectionChanges {
            // The section's count in the result it is in after the batch (none for a delete).
            let count = change.kind == .delete ? 0 : result.shown.rowCount(inSection: change.newIndex ?? change.index)
            let info = SectionInfo(name: change.name, identifier: change.identifier, indexTitle: sectionIndexTitle(forSectionName: change.name), numberOfObjects: count)
            delegate.controller(self, didChange: info, atSectionIndex: change.index, for: change.kind, newSectionIndex: change.newIndex)
        }
        for change in batch.rowChanges {
            delegate.controller(self, didChangeRecordWithID: change.id, at: change.indexPath, for: change.kind, newIndexPath: change.newIndexPath)
        }
        delegate.controllerDidChangeContent(self)
        delegate.controller(self, didChangeContentWith: batch, from: origin)
    }
}
