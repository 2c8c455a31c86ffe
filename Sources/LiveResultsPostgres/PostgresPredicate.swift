import Foundation
import GRDB
import LiveResults
import PostgresNIO

/// A fetch request's predicate (GRDB's `SQL`, such as `"wins > \(3)"`) as PostgreSQL text with
/// numbered parameters and their bindings.
///
/// GRDB writes a literal's values as `?` placeholders; PostgreSQL numbers its own (`$1`). The
/// text is the same otherwise: write predicates in SQL both servers understand (identifiers
/// in double quotes, strings in single quotes).
struct PostgresPredicate: Sendable {
    /// The condition, with parameters numbered from the first one given at translation.
    let sql: String
    /// The values of its parameters, in order.
    let values: [ColumnValue]

    /// Translates `predicate`, numbering its parameters from `firstParameter`.
    init(_ predicate: SQL, firstParameter: Int) throws {
        let (text, arguments) = try Self.builder.read { db in try predicate.build(db) }
        var sql = ""
        var count = 0
        var placeholders: [String.Index] = []
        var quote: Character?
        var previous: Character?
        for character in text {
            if let open = quote {
                if character == open { quote = nil }
            } else if character == "'" || character == "\"" {
                quote = character
            } else if character == "?" {
                placeholders.append(sql.endIndex)
                sql += "$\(firstParameter + count)"
                count += 1
                previous = character
                continue
            } else if previous == "?", character.isNumber {
                throw LiveResultsError(.database, "On PostgreSQL, a predicate's arguments must be positional (“?”), not numbered: “\(text)”.")
            }
            sql.append(character)
            previous = character
        }
        // StatementArguments keeps its values to itself: SQLite hands them back.
        let values: [ColumnValue] = try Self.builder.read { db in
            guard count > 0 else { return [] }
            let select = "SELECT " + Array(repeating: "?", count: count).joined(separator: ", ")
            guard let row = try Row.fetchOne(db, sql: select, arguments: arguments) else { return [] }
            return row.databaseValues.map { ColumnValue($0) }
        }
        // Each parameter says its type, so the server never has to guess it from the context
        // (an int4 column compared with an int8 value, a text value where the column is varchar).
        var typed = ""
        var rest = sql.startIndex
        for (index, place) in placeholders.enumerated() {
            let end = sql[place...].dropFirst().firstIndex { !$0.isNumber } ?? sql.endIndex
            typed += sql[rest..<end] + "::" + Self.typeName(of: values[index])
            rest = end
        }
        self.sql = typed + sql[rest...]
        self.values = values
    }

    /// The PostgreSQL type a value is bound as.
    private static func typeName(of value: ColumnValue) -> String {
        switch value {
        case .null, .text: return "text"
        case .integer: return "int8"
        case .real: return "float8"
        case .blob: return "bytea"
        }
    }

    /// An empty in-memory SQLite database, to build GRDB's SQL literals.
    private static let builder: DatabaseQueue = {
        do {
            return try DatabaseQueue()
        } catch {
            preconditionFailure("An in-memory SQLite database could not be opened: \(error)")
        }
    }()

    /// Appends the values to `bindings`, typed as PostgreSQL would read them.
    func bind(into bindings: inout PostgresBindings) {
        for value in values {
            switch value {
            case .null: bindings.appendNull()
            case .integer(let int): bindings.append(int)
            case .real(let double): bindings.append(double)
            case .text(let string): bindings.append(string)
            case .blob(let data): bindings.append([UInt8](data))
            }
        }
    }
}
