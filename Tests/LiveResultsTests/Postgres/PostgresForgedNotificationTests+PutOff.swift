import Foundation
@testable import LiveResults
@testable import LiveResultsPostgres
import PostgresNIO
import PostgresSupport
import Testing

extension PostgresForgedNotificationTests {
    /// Commits that no answer vouches for: a role that may only read commits through a function
    /// that runs as the table's owner (SECURITY DEFINER), each time from a new connection, so a
    /// new sender whose answer says "not a writer". No answer gives a question back, and past
    /// the questions' burst the next question waits for the budget; what waits for it is read
    /// at once meanwhile, as a hint, not seconds later.
    @Test func commitsNoAnswerVouchesForAreEachShownAtOnce() async throws {
        try await withAttack { attack in
            try await attack.database.run("""
                CREATE FUNCTION bump(target bigint) RETURNS void LANGUAGE sql SECURITY DEFINER SET search_path = public
                AS 'UPDATE item SET score = (SELECT max(score) + 1 FROM item) WHERE id = target'
                """, "GRANT EXECUTE ON FUNCTION bump(bigint) TO \(attack.watcherRole)")
            // Each a question of its own (one sender each: the last was answered by the next
            // commit), far quicker than the questions' budget refills.
            let rounds = HintBudget.burst * 3
            let before = try await attack.database.allRows()
            for round in 0..<rounds {
                let command = try await TestServer.connect(attack.watcherConfiguration)
                try await command.query("SELECT bump(\(attack.ids[round % attack.ids.count]))", logger: TestServer.logger)
                try await command.close()
                try await Task.sleep(for: .milliseconds(10))
            }
            let after = try await attack.database.allRows()
            try #require(after != before, "the function did not change the table")
            // At once: what waited for a question put off to the budget's next second would be
            // seconds late.
            #expect(try await notified(attack.feed, within: 0.5) { $0.untrusted == rounds }, "every commit read as a hint: \(outcomes(attack.feed))")
            #expect(try await attack.controller.processChanges(forUpTo: 0.5) {
                attack.controller.layout == expectedLayout(after)
            }, "\(outcomes(attack.feed))")
            #expect(outcomes(attack.feed).applied == 0, "\(outcomes(attack.feed))")
        }
    }
}
