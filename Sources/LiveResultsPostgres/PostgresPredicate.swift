import Foundation
import LiveResults
import PostgresNIO

/// A fetch request's predicate (such as `"wins > \(3)"`) as PostgreSQL text with numbered
/// parameters and their bindings.
///
/// A predicate writes its values as `?` placeholders; PostgreSQL numbers its own (`$1`). The
/// text is the same otherwise: write predicates in SQL both servers understand (identifiers
/// in double quotes, strings in single quotes).
struct PostgresPredicate: Sendable {
    /// The condition, with parameters numbered from the first one given at translation.
    let sql: String
    /// The values of its parameters, in order.
    let values: [ColumnValue]

    /// Translates `predicate`, numbering its parameters from `firstParameter`.
    init(_ predicate: ResultsPredicate, firstParameter: Int) throws {
        let text = predicate.sql
        let placeholders = try ResultsPredicate.placeholders(in: text)
        guard placeholders.count == predicate.arguments.count else {
            throw LiveResultsError(.database, "The predicate “\(text)” has \(placeholders.count) placeholders for \(predicate.arguments.count) arguments.")
        }
        // Each parameter says its type, so the server never has to guess it from the context
        // (an int4 column compared with an int8 value, a text value where the column is varchar).
        var typed = ""
        var rest = text.startIndex
        for (index, place) in placeholders.enumerated() {
            typed += text[rest..<place] + "$\(firstParameter + index)::" + Self.typeName(of: predicate.arguments[index])
            rest = text.index(after: place)
        }
        self.sql = typed + text[rest...]
        self.values = predicate.arguments
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
