import Foundation
import GRDB
import GRDBSQLite
import LiveResults

extension ColumnValue {
    /// The value of column `index` of a statement's current row, read as GRDB reads it (a text
    /// ends at its first NUL).
    @inline(__always)
    init(sqliteStatement statement: SQLiteStatement, index: CInt) {
        switch sqlite3_column_type(statement, index) {
        case SQLITE_NULL: self = .null
        case SQLITE_INTEGER: self = .integer(sqlite3_column_int64(statement, index))
        case SQLITE_FLOAT: self = .real(sqlite3_column_double(statement, index))
        case SQLITE_TEXT: self = .text(String(cString: sqlite3_column_text(statement, index)!))
        case SQLITE_BLOB:
            if let bytes = sqlite3_column_blob(statement, index) {
                self = .blob(Data(bytes: bytes, count: Int(sqlite3_column_bytes(statement, index))))
            } else {
                self = .blob(Data())
            }
        default: preconditionFailure("SQLite returned an unknown column type")
        }
    }

    /// GRDB's value of the same storage class.
    package init(_ value: DatabaseValue) {
        switch value.storage {
        case .null: self = .null
        case .int64(let int): self = .integer(int)
        case .double(let double): self = .real(double)
        case .string(let string): self = .text(string)
        case .blob(let data): self = .blob(data)
        }
    }
}

extension ColumnValue: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue {
        switch self {
        case .null: return .null
        case .integer(let int): return int.databaseValue
        case .real(let double): return double.databaseValue
        case .text(let string): return string.databaseValue
        case .blob(let data): return data.databaseValue
        }
    }

    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> ColumnValue? {
        ColumnValue(dbValue)
    }
}

extension ResultsPredicate {
    /// The predicate as GRDB's SQL literal, its arguments bound.
    var sqlLiteral: SQL {
        SQL(sql: sql, arguments: StatementArguments(arguments))
    }

    /// A predicate from GRDB's SQL literal (such as one with `\(Column("wins"))` or
    /// `\(literal:)` in it): its text and arguments as GRDB builds them, without a database
    /// of yours.
    public init(_ literal: SQL) throws {
        let (sql, arguments) = try Self.builder.read { db in try literal.build(db) }
        // StatementArguments keeps its values to itself: SQLite hands them back.
        let values: [ColumnValue] = try Self.builder.read { db in
            let count = try ResultsPredicate.placeholders(in: sql).count
            guard count > 0 else { return [] }
            let select = "SELECT " + Array(repeating: "?", count: count).joined(separator: ", ")
            guard let row = try Row.fetchOne(db, sql: select, arguments: arguments) else { return [] }
            return row.databaseValues.map { ColumnValue($0) }
        }
        self.init(sql: sql, arguments: values)
    }

    /// An empty in-memory SQLite database, to build GRDB's SQL literals.
    private static let builder: DatabaseQueue = {
        do {
            return try DatabaseQueue()
        } catch {
            preconditionFailure("An in-memory SQLite database could not be opened: \(error)")
        }
    }()
}
