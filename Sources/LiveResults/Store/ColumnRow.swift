import Foundation

/// A record's row as a store hands it over: each column's value by name, in the core's own
/// value type, whichever database it came from. Each store implements it for its own rows, so
/// a record decodes the same way from SQLite and from PostgreSQL.
public protocol ColumnRow {
    /// The value of the column named `column`; nil when the row has no such column.
    subscript(_ column: String) -> ColumnValue? { get }
    /// The names of the row's columns.
    var columnNames: [String] { get }
}

extension ColumnRow {
    /// The value of the column named `column` as a `Value`; throws, in one sentence naming
    /// the column, when the row has no such column or its value is not a `Value`.
    public func decode<Value: ColumnValueDecodable>(_ type: Value.Type = Value.self, column: String) throws -> Value {
        guard let value = self[column] else {
            throw LiveResultsError(.unknownColumn(column), "The row has no column named “\(column)”.")
        }
        guard let decoded = Value(columnValue: value) else {
            throw LiveResultsError(.database, "The column “\(column)” holds \(value), which is not a \(Value.self).")
        }
        return decoded
    }
}

/// A record a controller can read from any store: named by its table, decoded from a
/// `ColumnRow`. (On SQLite, GRDB's `FetchableRecord & TableRecord` does as well; with
/// LiveResultsSQLite imported, such a record is a `ColumnRowRecord` by declaring it so.)
public protocol ColumnRowRecord {
    /// The table the records live in.
    static var databaseTableName: String { get }
    /// The record of `row`, which holds every column of the table.
    init(row: some ColumnRow) throws
}

/// A Swift value a column value converts to: what `ColumnRow.decode(_:column:)` reads.
public protocol ColumnValueDecodable {
    /// The value of `columnValue`; nil when it holds another kind of value.
    init?(columnValue: ColumnValue)
}

extension ColumnValue: ColumnValueDecodable {
    public init?(columnValue: ColumnValue) { self = columnValue }
}

extension Int64: ColumnValueDecodable {
    public init?(columnValue: ColumnValue) {
        guard case .integer(let int) = columnValue else { return nil }
        self = int
    }
}

extension Int: ColumnValueDecodable {
    public init?(columnValue: ColumnValue) {
        guard case .integer(let int) = columnValue, let exact = Int(exactly: int) else { return nil }
        self = exact
    }
}

extension Bool: ColumnValueDecodable {
    public init?(columnValue: ColumnValue) {
        guard case .integer(let int) = columnValue else { return nil }
        self = int != 0
    }
}

extension Double: ColumnValueDecodable {
    public init?(columnValue: ColumnValue) {
        switch columnValue {
        case .real(let double): self = double
        case .integer(let int): self = Double(int)
        default: return nil
        }
    }
}

extension String: ColumnValueDecodable {
    public init?(columnValue: ColumnValue) {
        guard case .text(let string) = columnValue else { return nil }
        self = string
    }
}

extension Data: ColumnValueDecodable {
    public init?(columnValue: ColumnValue) {
        guard case .blob(let data) = columnValue else { return nil }
        self = data
    }
}

extension Optional: ColumnValueDecodable where Wrapped: ColumnValueDecodable {
    /// NULL is nil; any other value decodes as `Wrapped` does (nil for the optional when it cannot).
    public init?(columnValue: ColumnValue) {
        if columnValue.isNull {
            self = .none
        } else if let wrapped = Wrapped(columnValue: columnValue) {
            self = .some(wrapped)
        } else {
            return nil
        }
    }
}

/// The columns a store has read for a record, by name: the row every store hands over.
package struct RecordColumnRow: ColumnRow {
    package let columns: RecordColumns

    package init(_ columns: RecordColumns) { self.columns = columns }

    package subscript(_ column: String) -> ColumnValue? { columns[column] }
    package var columnNames: [String] { Array(columns.keys) }
}
