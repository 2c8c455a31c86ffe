import Foundation

/// Where a controller learns of commits: the seam between a store and the in-memory result.
///
/// A store's feed queues one `TrackedChange` per commit it learns of (its own connection's,
/// and other connections' where the store can see them), calls its wake-up when something
/// waits, and hands the queue over when the controller asks, on the controller's thread.
protocol ChangeFeed: AnyObject {
    /// Removes and returns the changes committed since the last call, oldest first.
    func takeChanges() -> [TrackedChange]
    /// Looks for commits of other connections now, instead of at the next wake-up.
    func lookNow()
    /// Whether commits of other connections and processes reach the feed.
    var seesOtherConnections: Bool { get }
}
