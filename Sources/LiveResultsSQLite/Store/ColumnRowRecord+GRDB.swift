import GRDB
import LiveResults

extension ColumnRowRecord where Self: FetchableRecord {
    /// A GRDB record decoded from any store's row as from SQLite's, by `init(row: Row)`: so
    /// `extension Player: ColumnRowRecord {}` is all a GRDB record needs on PostgreSQL.
    public init(row: some ColumnRow) throws {
        try self.init(row: Row(Dictionary(uniqueKeysWithValues: row.columnNames.map { ($0, row[$0] as (any DatabaseValueConvertible)?) })))
    }
}
