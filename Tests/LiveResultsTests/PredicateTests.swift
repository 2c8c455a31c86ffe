import Foundation
import GRDB
import LiveResults
import LiveResultsSQLite
import Testing

@Suite("ResultsPredicate: interpolated values bound, GRDB literals carried over")
struct PredicateTests {
    @Test("Interpolated values become arguments, never text; \\(sql:) inserts text")
    func interpolation() {
        let name = "O'Brien"
        let predicate: ResultsPredicate = "wins > \(3) AND name <> \(name) AND \(sql: "\"zone\"") IS NOT \(Optional<String>.none)"
        #expect(predicate.sql == "wins > ? AND name <> ? AND \"zone\" IS NOT ?")
        #expect(predicate.arguments == [.integer(3), .text("O'Brien"), .null])
    }

    @Test("A GRDB SQL literal keeps its text and its arguments in order")
    func fromGRDB() throws {
        let literal: SQL = "\(Column("wins")) > \(2) AND name = \("Ghana")"
        let predicate = try ResultsPredicate(literal)
        #expect(predicate.sql == "\"wins\" > ? AND name = ?")
        #expect(predicate.arguments == [.integer(2), .text("Ghana")])
    }

    @Test("Placeholders are found outside quotes only; a numbered one is refused in one sentence")
    func placeholders() throws {
        let text = "name = '?' AND \"a?\" = ? AND wins > ?"
        #expect(try ResultsPredicate.placeholders(in: text).map { text.distance(from: text.startIndex, to: $0) } == [22, 35])
        #expect(throws: LiveResultsError.self) { try ResultsPredicate.placeholders(in: "wins > ?1") }
    }
}
