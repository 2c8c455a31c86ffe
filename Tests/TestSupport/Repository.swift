import Foundation

/// Files of the repository the tests read, found from this file's place in it.
public enum Repository {
    /// The package root (this file is Tests/TestSupport/Repository.swift).
    public static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    /// The repository's seed: 32 teams.
    public static let seed = root.appendingPathComponent("seed.json")
    /// The original book's seed, byte for byte, trailing commas included: Tests/Fixtures.
    public static let bookSeed = root.appendingPathComponent("Tests/Fixtures/book-seed.json")
}

/// Whether a message is one sentence: not empty, starts with a capital, ends with a period,
/// one line, and no sentence ends inside it.
public func isOneSentence(_ text: some StringProtocol) -> Bool {
    guard let first = text.first, first.isUppercase, text.hasSuffix("."), !text.contains("\n") else { return false }
    let body = text.dropLast()
    for terminator in [". ", "! ", "? "] where body.contains(terminator) { return false }
    return !body.hasSuffix(".")
}
