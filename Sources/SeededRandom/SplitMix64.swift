/// SplitMix64: a small, fast, seedable random number generator, so that every run of a seed
/// draws the same numbers (the benchmark taps the same teams, a test replays the same case).
///
/// Inlinable, so that a caller in another module draws at the cost of a few instructions.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    @usableFromInline var state: UInt64

    /// A generator whose numbers follow from `seed` alone.
    @inlinable
    public init(seed: UInt64) {
        state = seed
    }

    /// The next 64 random bits.
    @inlinable
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
