import Foundation
import LiveResults
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

/// Turning postgres-nio's errors into LiveResults' one-sentence errors.
package enum PostgresErrors {
    /// The error as a `LiveResultsError` (an unknown column keeps its kind, as on SQLite).
    static func readable(_ error: any Error) -> any Error {
        if error is LiveResultsError { return error }
        if let error = error as? LiveResultsPostgresError { return LiveResultsError(.database, error.description) }
        if let error = error as? PSQLError {
            if let message = error.serverInfo?[.message] {
                // 42703: undefined_column, `column "x" does not exist`.
                if error.serverInfo?[.sqlState] == "42703", let column = message.split(separator: "\"").dropFirst().first {
                    return LiveResultsError(.unknownColumn(String(column)), "The fetch request names a column that does not exist: “\(column)”.")
                }
                return LiveResultsError(.database, "The database could not run the fetch request: \(message).")
            }
            return LiveResultsError(.database, "The PostgreSQL server could not be reached: \(connectionProblem(error)).")
        }
        return LiveResultsError(.database, "The PostgreSQL server could not be reached: \(error).")
    }

    /// Whether the server said the error ends the connection (FATAL: terminated by an
    /// administrator, shutting down), before the connection is seen closed.
    package static func endsConnection(_ error: any Error) -> Bool {
        guard let error = error as? PSQLError, let info = error.serverInfo else { return false }
        return info[.severity] == "FATAL" || info[.severity] == "PANIC" || info[.sqlState]?.hasPrefix("08") == true
    }

    /// A few words on why a connection failed, without the query or the password.
    static func connectionProblem(_ error: PSQLError) -> String {
        if let underlying = error.underlying { return String(describing: underlying) }
        switch error.code {
        case .serverClosedConnection, .clientClosedConnection: return "the connection was closed"
        case .connectionError: return "the connection failed"
        default: return String(describing: error.code)
        }
    }
}
