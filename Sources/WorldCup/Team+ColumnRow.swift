import LiveResults

/// A team read from any store's row (`ColumnRow`): how a results controller on PostgreSQL
/// decodes its records, column by column as `init(row:)` reads GRDB's.
extension Team: ColumnRowRecord {
    public init(row: some ColumnRow) throws {
        id = try row.decode(column: "id")
        teamName = try row.decode(column: "teamName")
        // The zone's name, where the query joined it as `qualifyingZone`.
        qualifyingZone = row["qualifyingZone"] == nil ? "" : try row.decode(column: "qualifyingZone")
        zoneID = try row.decode(column: "zoneID")
        imageName = try row.decode(column: "imageName")
        wins = try row.decode(column: "wins")
    }
}
