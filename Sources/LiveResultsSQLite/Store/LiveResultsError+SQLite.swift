import GRDB
import LiveResults

extension LiveResultsError {
    /// Runs `body`, turning the database's errors into `LiveResultsError`s a person can read.
    static func readable<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as DatabaseError {
            if let message = error.message, message.hasPrefix("no such column: ") {
                let column = String(message.dropFirst("no such column: ".count))
                throw LiveResultsError(.unknownColumn(column), "The fetch request names a column that does not exist: “\(column)”.")
            }
            throw LiveResultsError(.database, "The database could not run the fetch request: \(error.message ?? "\(error.resultCode)").")
        }
    }
}
