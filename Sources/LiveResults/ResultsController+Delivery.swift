import Foundation

// Delivering batches to the delegate and the snapshot subscriber.

extension ResultsController {
    /// Tells the subscribers that the result was replaced wholesale.
    func deliverReset() {
        onSnapshot?(snapshot(reloading: Set(result.shown.allIDs)))
        delegate?.controllerDidResetContent(self)
        streams.deliver(.reset)
    }

    /// Hands one batch to the snapshot subscriber and the delegate: row by row, then whole.
    func deliver(_ batch: ChangeBatch, from origin: ChangeOrigin) {
        guard !batch.isEmpty else { return }
        streams.deliver(.batch(batch, origin: origin))
        if let onSnapshot {
            let reloaded = batch.rowChanges.filter { $0.kind == .update || $0.kind == .move }.map(\.id)
            onSnapshot(snapshot(reloading: Set(reloaded)))
        }
        guard let delegate else { return }
        delegate.controllerWillChangeContent(self)
        for change in batch.sectionChanges {
            let count = change.kind == .insert ? result.shown.rowCount(inSection: change.index) : 0
            let info = SectionInfo(name: change.name, indexTitle: sectionIndexTitle(forSectionName: change.name), numberOfObjects: count)
            delegate.controller(self, didChange: info, atSectionIndex: change.index, for: change.kind)
        }
        for change in batch.rowChanges {
            delegate.controller(self, didChangeRecordWithID: change.id, at: change.indexPath, for: change.kind, newIndexPath: change.newIndexPath)
        }
        delegate.controllerDidChangeContent(self)
        delegate.controller(self, didChangeContentWith: batch, from: origin)
    }
}
