import TerminalUI

/// The drawn badges of the teams, kept between frames: a badge's colours are chosen by
/// comparing contrasts in Oklab (`Palette.readableText`), far too slow to do for every row of
/// every frame (it was most of a frame's cost while other programs commit in a storm).
/// Bounded: it forgets everything once it holds `capacity` badges (a huge board scrolled).
final class BadgeCache {
    static let capacity = 4_096
    private var spans: [FlagBadge: [Span]] = [:]

    /// The spans of `badge`, drawn once per badge.
    func spans(of badge: FlagBadge, draw: (FlagBadge) -> [Span]) -> [Span] {
        if let known = spans[badge] { return known }
        if spans.count >= Self.capacity { spans.removeAll(keepingCapacity: true) }
        let drawn = draw(badge)
        spans[badge] = drawn
        return drawn
    }
}
