import GRDB
import Synchronization

/// A row of the watched table, whichever it is. A record type names its table statically
/// (`TableRecord.databaseTableName`); a program watching a table known in advance declares a
/// struct with its columns instead, as the Getting Started article does.
struct WatchedRow: FetchableRecord, TableRecord {
    /// The table named on the command line, set once before the controller is made.
    private static let name = Mutex("")

    static var tableName: String {
        get { name.withLock { $0 } }
        set { name.withLock { $0 = newValue } }
    }

    static var databaseTableName: String { tableName }

    /// The row's values, by column.
    let row: Row

    init(row: Row) {
        self.row = row.copy()
    }
}
