import LiveResults
import PostgresNIO

// Whole records: read by id (`PostgresResultsStore.recordLoader`), or taken from a write's
// answer (`WrittenRows`), each decoded the one way SQLite would hand its row over.
extension PostgresKeyQuery.Statements {
    /// The record's columns as a write's RETURNING reads them from `table`, the row written:
    /// qualified, since the other tables of a write may have columns of the same names.
    func recordSelection(from table: String) -> String {
        recordCells.map { cell in
            let column = PostgresSQL.identifier(cell.name)
            return table + "." + column + (cell.type == nil ? "::text" : "") + " AS " + column
        }.joined(separator: ", ")
    }

    /// A record's columns from the next `recordCells.count` cells (`recordSelection`'s).
    func decodeRecord(_ cells: inout PostgresRow.Iterator) throws -> RecordColumns {
        var columns = RecordColumns(minimumCapacity: recordCells.count)
        for cell in recordCells {
            guard let next = cells.next() else { break }
            columns[cell.name] = try PostgresKeyQuery.recordValue(next)
        }
        return columns
    }
}

extension PostgresKeyQuery {
    /// A record's cell as SQLite would hand it over: the key types as the key query
    /// reads them, anything else as the text the query cast it to.
    static func recordValue(_ cell: PostgresCell) throws -> ColumnValue {
        if supportedTypes[cell.dataType.rawValue] != nil { return try value(cell) }
        return try cell.decode(String?.self).columnValue
    }

    /// A record decoded (`ColumnRowRecord`) from its columns' values.
    static func record<Record: ColumnRowRecord>(_ type: Record.Type, from columns: RecordColumns) throws -> Record {
        try Record(row: RecordColumnRow(columns))
    }
}
