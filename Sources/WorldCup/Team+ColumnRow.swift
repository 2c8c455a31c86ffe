import LiveResults

/// A team read from any store's row (`ColumnRow`): how a results controller on PostgreSQL
/// decodes its records, column by column (`Team.columns`) as `init(row:)` reads GRDB's.
extension Team: ColumnRowRecord {
    public init(row: some ColumnRow) throws {
        try self.init(columnRow: row, columns: Self.columns)
    }

    /// A team from a row of the table `columns` describes (`Team.columns`, or a test's copy).
    public init(columnRow row: some ColumnRow, columns: [TeamColumn]) throws {
        self.init(teamName: "", qualifyingZone: "", imageName: "")
        for column in columns where column.read != nil {
            try column.assign(row.decode(column: column.name), to: &self)
        }
        // The zone's name, where the query joined it as `qualifyingZone`.
        qualifyingZone = row["qualifyingZone"] == nil ? "" : try row.decode(column: "qualifyingZone")
    }
}
