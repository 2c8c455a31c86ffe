import Foundation
import Testing
import TestSupport
import WorldCup

/// Files the tests read, found from this file's place in the repository.
enum Paths {
    /// Tests/WorldCupTests
    static let testDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    /// The package root.
    static let packageRoot = testDirectory.deletingLastPathComponent().deletingLastPathComponent()
    /// The repository's seed: 32 teams.
    static let seed = packageRoot.appendingPathComponent("seed.json")
    /// The original book's seed, byte for byte, trailing commas included: Tests/Fixtures.
    static let bookSeed = packageRoot.appendingPathComponent("Tests/Fixtures/book-seed.json")
}

extension TemporaryFolder {
    /// A database path inside the folder (which does not exist yet).
    var database: URL { file("WorldCup.sqlite") }
}

/// The teams of the repository's seed, as JSON objects.
func seedObjects() throws -> [[String: Any]] {
    try JSONSerialization.jsonObject(with: Data(contentsOf: Paths.seed)) as! [[String: Any]]
}

/// Writes `objects` as a JSON seed file and returns its URL.
func writeSeed(_ objects: [[String: Any]], in folder: TemporaryFolder, name: String = "seed.json") throws -> URL {
    let url = folder.file(name)
    try JSONSerialization.data(withJSONObject: objects, options: [.prettyPrinted]).write(to: url)
    return url
}

/// Whether a message is one sentence: not empty, starts with a capital, ends with a period,
/// one line, and no sentence ends inside it.
func isOneSentence(_ text: String) -> Bool {
    guard let first = text.first, first.isUppercase, text.hasSuffix("."), !text.contains("\n") else { return false }
    let body = text.dropLast()
    for terminator in [". ", "! ", "? "] where body.contains(terminator) { return false }
    return !body.hasSuffix(".")
}

/// Runs `body` and returns the WorldCupError it throws (recording an issue when it throws
/// nothing or something else).
func worldCupError(sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void) -> WorldCupError? {
    #expect(throws: WorldCupError.self, sourceLocation: sourceLocation) { try body() }
}
