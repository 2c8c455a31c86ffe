import Foundation
import WorldCup

extension SQLiteTeamStore {
    /// Checks the database at `url` completely without writing to it or creating it: the
    /// cheap checks every opening makes, then SQLite's `PRAGMA quick_check` over the whole
    /// file. Throws one sentence when there is no database there, or when it is damaged or
    /// belongs to another program. Returns what was found (with the number of teams).
    public static func check(databaseURL url: URL) throws -> DatabaseInspection {
        let shown = WorldCupError.quotable(url.path)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
            throw WorldCupError("There is no database at \(shown).")
        }
        guard !isDirectory.boolValue else {
            throw WorldCupError("The database path \(shown) is a folder, not a file.")
        }
        return try DatabaseFile.inspect(url, thorough: true, countTeams: true)
    }

    /// One sentence on the condition of the database at `url`, after a full check, for a
    /// person about to replace it (`worldcup reset`).
    public static func condition(ofDatabaseAt url: URL) -> String {
        let shown = WorldCupError.quotable(url.path)
        do {
            let found = try check(databaseURL: url)
            if found.isNew { return "The file \(shown) is empty." }
            let teams = found.teamCount.map { $0 == 1 ? "1 team" : "\($0) teams" } ?? "no teams yet"
            return "The database \(shown) passed its check and holds \(teams)."
        } catch {
            // The refusal's hint about reset is moot here.
            let sentence = "\(error)"
            return sentence.hasSuffix(DatabaseFile.untouched + ".") ? String(sentence.dropLast(DatabaseFile.untouched.count + 3)) + "." : sentence
        }
    }
}
