import Foundation
import PostgresNIO

/// An error of LiveResults on PostgreSQL, with one sentence a person can read.
public struct LiveResultsPostgresError: Error, Equatable, CustomStringConvertible, Sendable {
    /// One sentence describing the failure.
    public var description: String

    init(_ description: String) {
        self.description = description
    }
}

/// SQL spellings of names and values that cannot be bound (trigger and function bodies).
enum PostgresSQL {
    /// `name` as a quoted identifier: `"a""b"` for `a"b`.
    static func identifier(_ name: String) -> String {
        "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// The server's message for a failed query (PSQLError hides it from its description), or
    /// the error's own description.
    static func message(of error: any Error) -> String {
        if let error = error as? PSQLError, let message = error.serverInfo?[.message] { return message }
        return String(describing: error)
    }

    /// `text` as a string literal (standard_conforming_strings: backslashes are plain).
    static func literal(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
    }
}
