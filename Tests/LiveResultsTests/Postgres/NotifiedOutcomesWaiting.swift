import Foundation
@testable import LiveResultsPostgres

// What a feed did with the notifications it heard, for the suites of the notified path.

/// The feed's count of notifications applied, read, skipped, now.
func outcomes(_ feed: PostgresChangeFeed) -> NotifiedOutcomes {
    feed.notifiedOutcomes.withLockedValue { $0 }
}

/// Waits up to `seconds` for `condition` about the feed's notifications to hold; whether it did.
func notified(_ feed: PostgresChangeFeed, within seconds: Double = 10, _ condition: (NotifiedOutcomes) -> Bool) async throws -> Bool {
    let deadline = ContinuousClock.now + .seconds(seconds)
    while !condition(outcomes(feed)) {
        guard ContinuousClock.now < deadline else { return false }
        try await Task.sleep(for: .milliseconds(10))
    }
    return true
}
