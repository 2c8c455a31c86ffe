/// A request's condition on its table's columns: SQL text with `?` placeholders, and the values
/// bound to them in order.
///
/// Write it as a string with interpolated values, which become bound arguments, never text:
/// `"wins > \(3) AND name <> \(name)"`. Interpolate SQL text itself with `\(sql:)`. Write SQL that
/// both SQLite and PostgreSQL understand when the request may run on either (identifiers in
/// double quotes, strings in single quotes, positional `?` placeholders).
public struct ResultsPredicate: Hashable, Sendable, ExpressibleByStringInterpolation {
    /// The condition, with a `?` for each argument.
    public var sql: String
    /// The values of the placeholders, in order.
    public var arguments: [ColumnValue]

    /// A condition with `?` placeholders and their values.
    public init(sql: String, arguments: [any ColumnValueConvertible] = []) {
        self.sql = sql
        self.arguments = arguments.map(\.columnValue)
    }

    public init(stringLiteral sql: String) {
        self.init(sql: sql)
    }

    public init(stringInterpolation: StringInterpolation) {
        self.sql = stringInterpolation.sql
        self.arguments = stringInterpolation.arguments
    }

    /// Builds a predicate: literal text as SQL, interpolated values as bound arguments.
    public struct StringInterpolation: StringInterpolationProtocol {
        var sql = ""
        var arguments: [ColumnValue] = []

        public init(literalCapacity: Int, interpolationCount: Int) {
            sql.reserveCapacity(literalCapacity + interpolationCount)
            arguments.reserveCapacity(interpolationCount)
        }

        public mutating func appendLiteral(_ literal: String) {
            sql += literal
        }

        /// A value, bound as an argument (`?`).
        public mutating func appendInterpolation(_ value: some ColumnValueConvertible) {
            sql += "?"
            arguments.append(value.columnValue)
        }

        /// SQL text, inserted as it is.
        public mutating func appendInterpolation(sql text: String) {
            sql += text
        }

        /// Another predicate, its text inserted and its arguments bound in place.
        public mutating func appendInterpolation(_ predicate: ResultsPredicate) {
            sql += predicate.sql
            arguments += predicate.arguments
        }
    }
}

extension ResultsPredicate {
    /// Where the positional placeholders (`?`) of SQL text are, outside quotes; throws when one
    /// is numbered (`?1`), which only SQLite understands.
    package static func placeholders(in text: String) throws -> [String.Index] {
        var places: [String.Index] = []
        var quote: Character?
        var previous: Character?
        for index in text.indices {
            let character = text[index]
            defer { previous = character }
            if let open = quote {
                if character == open { quote = nil }
            } else if character == "'" || character == "\"" {
                quote = character
            } else if character == "?" {
                places.append(index)
            } else if previous == "?", character.isNumber {
                throw LiveResultsError(.database, "A predicate's arguments must be positional (“?”), not numbered: “\(text)”.")
            }
        }
        return places
    }
}
