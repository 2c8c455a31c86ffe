// The generator itself is shared with the benchmark; every test that imports TestSupport sees it.
@_exported import SeededRandom

/// What the tests draw from a seeded generator, in their own words.
extension SplitMix64 {
    /// A number of `range`, each as likely.
    public mutating func int(_ range: Range<Int>) -> Int {
        Int.random(in: range, using: &self)
    }

    /// A number of `range`, each as likely.
    public mutating func int(_ range: ClosedRange<Int>) -> Int {
        Int.random(in: range, using: &self)
    }

    /// True with the given probability (0 to 1).
    public mutating func chance(_ probability: Double) -> Bool {
        Double.random(in: 0..<1, using: &self) < probability
    }

    /// One of `elements` (not empty), each as likely.
    public mutating func pick<T>(_ elements: [T]) -> T {
        elements[int(0..<elements.count)]
    }
}
