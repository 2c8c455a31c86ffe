import Foundation

/// A value of a sort, section or predicate column, in SQLite's storage classes: what the index
/// sorts and sections by, whichever store read it.
///
/// Two values are equal exactly when SQLite's BINARY comparison says so:
/// canonically equivalent strings with different bytes are different values; 1 and 1.0 are one.
public enum ColumnValue: Sendable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob(Data)

    /// Whether the value is NULL.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }
}

extension ColumnValue: Hashable {
    public static func == (a: ColumnValue, b: ColumnValue) -> Bool {
        SQLiteOrdering.compare(a, b) == 0
    }

    public func hash(into hasher: inout Hasher) {
        switch self {
        case .null:
            hasher.combine(0)
        case .integer(let int):
            // 1 and 1.0 are equal, so they hash alike.
            hasher.combine(Double(int))
        case .real(let double):
            hasher.combine(double)
        case .text(var string):
            hasher.combine(2)
            string.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        case .blob(let data):
            hasher.combine(3)
            data.withUnsafeBytes { hasher.combine(bytes: $0) }
        }
    }
}

extension ColumnValue: CustomStringConvertible {
    public var description: String {
        switch self {
        case .null: return "NULL"
        case .integer(let int): return String(int)
        case .real(let double): return String(double)
        case .text(let string): return String(reflecting: string)
        case .blob(let data): return "x'" + data.map { String(format: "%02x", $0) }.joined() + "'"
        }
    }
}

/// A Swift value that stands for a column value: a predicate's argument, a key in tests.
public protocol ColumnValueConvertible {
    var columnValue: ColumnValue { get }
}

extension ColumnValue: ColumnValueConvertible {
    public var columnValue: ColumnValue { self }
}

extension Int64: ColumnValueConvertible {
    public var columnValue: ColumnValue { .integer(self) }
}

extension Int: ColumnValueConvertible {
    public var columnValue: ColumnValue { .integer(Int64(self)) }
}

extension Int32: ColumnValueConvertible {
    public var columnValue: ColumnValue { .integer(Int64(self)) }
}

extension Bool: ColumnValueConvertible {
    /// SQLite stores booleans as the integers 0 and 1.
    public var columnValue: ColumnValue { .integer(self ? 1 : 0) }
}

extension Double: ColumnValueConvertible {
    public var columnValue: ColumnValue { .real(self) }
}

extension String: ColumnValueConvertible {
    public var columnValue: ColumnValue { .text(self) }
}

extension Substring: ColumnValueConvertible {
    public var columnValue: ColumnValue { .text(String(self)) }
}

extension Data: ColumnValueConvertible {
    public var columnValue: ColumnValue { .blob(self) }
}

extension Optional: ColumnValueConvertible where Wrapped: ColumnValueConvertible {
    public var columnValue: ColumnValue { self?.columnValue ?? .null }
}
