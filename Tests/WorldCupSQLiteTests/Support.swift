import Foundation
import TestSupport
import Testing
import WorldCup
import WorldCupSQLite

/// A scoreboard on a new database in `folder`, seeded with the repository's 32 teams.
func seededScoreboard(_ folder: TemporaryFolder) throws -> SQLiteTeamStore {
    try SQLiteTeamStore(databaseURL: folder.database, seedURL: Repository.seed)
}

/// The teams of the repository's seed, as JSON objects.
func seedObjects() throws -> [[String: Any]] {
    try JSONSerialization.jsonObject(with: Data(contentsOf: Repository.seed)) as! [[String: Any]]
}

/// Writes `objects` as a JSON seed file and returns its URL.
func writeSeed(_ objects: [[String: Any]], in folder: TemporaryFolder, name: String = "seed.json") throws -> URL {
    let url = folder.file(name)
    try JSONSerialization.data(withJSONObject: objects, options: [.prettyPrinted]).write(to: url)
    return url
}

/// Runs `body` and returns the WorldCupError it throws (recording an issue when it throws
/// nothing or something else).
func worldCupError(sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void) -> WorldCupError? {
    #expect(throws: WorldCupError.self, sourceLocation: sourceLocation) { try body() }
}
