import Foundation

/// A filter's column read on a thread of its own (`ResultsController.prepareFilter(inColumn:)`),
/// so that the controller's thread (a screen) goes on while a million values are read.
///
/// The values go into the slots the index had when the read began (`slots`): the controller
/// records the rows it changes meanwhile (`touched`), whose slot or value the read may have
/// missed, and reads those again when it takes the column (`ResultsController.filterColumn(_:)`).
final class FilterColumnLoad: @unchecked Sendable {
    /// The column being read.
    let column: String
    /// Each id's slot when the read began.
    let slots: KeyStore.SlotMap
    /// The rows the controller changed since the read began. (The controller's thread only.)
    var touched = Set<RecordID>()

    private let lock = NSLock()
    private var outcome: Result<TextColumn, any Error>?
    private var cancelled = false

    /// Starts reading `column` of `table` from `store` into the slots of `slots`; `notify` is
    /// called (on the reading thread) when the read is over, unless it was cancelled.
    init(column: String, table: String, store: any ResultsStore, slots: KeyStore.SlotMap, notify: @escaping @Sendable () -> Void) {
        self.column = column
        self.slots = slots
        // The stores read from any thread (GRDB's pool or queue, postgres-nio's connection).
        nonisolated(unsafe) let store = store
        Thread.detachNewThread { [self] in
            let outcome = Result { try Self.read(column, of: table, from: store, into: slots, stopping: { self.isCancelled }) }
            lock.withLock { self.outcome = outcome }
            if !isCancelled { notify() }
        }
    }

    /// The column, or the error that ended the read; nil while it is being read.
    var result: Result<TextColumn, any Error>? {
        lock.withLock { outcome }
    }

    /// Stops the read at its next row; nothing is delivered.
    func cancel() {
        lock.withLock { cancelled = true }
    }

    private var isCancelled: Bool {
        lock.withLock { cancelled }
    }

    /// Reads every row's value of `column` into its slot (a row without one, newer than
    /// `slots`, is left out), then sets the values in slot order (`TextColumn.Loader`).
    /// `stopping` is asked now and then whether to give up (it then throws `CancellationError`).
    static func read(_ column: String, of table: String, from store: any ResultsStore, into slots: KeyStore.SlotMap,
                     stopping: () -> Bool = { false }) throws -> TextColumn {
        var values = TextColumn.Loader(slotCount: slots.slotCount, expectedBytes: 16 * slots.slotCount)
        var rows = 0
        try store.forEachText(inColumn: column, table: table, ids: nil) { id, value in
            rows += 1
            if rows % 65_536 == 0, stopping() { throw CancellationError() }
            guard let slot = slots.slot(for: id) else { return }
            try values.add(value, at: slot)
        }
        return try values.column()
    }
}
