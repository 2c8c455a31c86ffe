import Foundation
import GRDB
import LiveResults
import LiveResultsSQLite

/// A World Cup team: one row of the `team` table.
///
/// The team's zone is a row of the `zone` table, named by `zoneID`. `qualifyingZone` is that
/// zone's name where a store read it with the team (`TeamStore.teams()`, `team(named:)`,
/// the changes it returns) or where a person typed it (an add, an edit, a seed); the table
/// has no such column, and a team read from the table alone (a results controller's record)
/// has it empty: the board titles a section from the controller's section instead.
public struct Team: Codable, Hashable, Sendable, FetchableRecord, MutablePersistableRecord {
    public static let databaseTableName = "team"

    /// The row id; nil until the team is saved.
    public var id: Int64?
    public var teamName: String
    /// The name of the team's zone, where the store joined it (see above).
    public var qualifyingZone: String
    /// The id of the team's zone (`Zone`); nil until the store has found or made it.
    public var zoneID: Int64?
    /// The name of the team's flag picture in the original sample, such as "algeria-flag".
    public var imageName: String
    public var wins: Int

    public init(id: Int64? = nil, teamName: String, qualifyingZone: String, imageName: String, wins: Int = 0, zoneID: Int64? = nil) {
        self.id = id
        self.zoneID = zoneID
        self.teamName = teamName
        self.qualifyingZone = qualifyingZone
        self.imageName = imageName
        self.wins = wins
    }

    /// The image name every secret team gets.
    public static let secretImageName = "wenderland-flag"

    /// The key under which team names are unique: case and Unicode normalisation ignored
    /// (accents kept: "Emoji" and "Émoji" are two teams; zones fold accents too, `Zone.nameKey`).
    public static func nameKey(_ name: String) -> String {
        name.precomposedStringWithCanonicalMapping.lowercased()
    }

    /// The key the board sorts names by, as people read them: the name with case and accents
    /// folded ("Åland" and "alpha" among the a's, before "Switzerland"), in one Unicode
    /// normalisation. Where folding took accents off, `nameKey` follows after a U+0001, which
    /// sorts before any character a name may hold: "Emoji" ("emoji") comes just before
    /// "Émoji" ("emoji\u{1}émoji"). So the key is unique, as `nameKey` is, and one text column
    /// orders the board completely; an unaccented name keeps a key as short as itself. Stored
    /// beside the name (`nameSortKey`), so SQLite and PostgreSQL order by its bytes, as the
    /// results controller does.
    public static func nameSortKey(_ name: String) -> String {
        let key = nameKey(name)
        let folded = folded(name)
        return folded == key ? folded : folded + "\u{1}" + key
    }

    /// A text as a person's typing finds a name, the one rule of the board's filter and the
    /// command line's lookup (`TeamStore.team(meant:)`): case and accents folded, in one Unicode
    /// normalisation, and the typographic apostrophes (’ ‘ ʼ) taken as the typewriter's ('),
    /// which a keyboard or a shell gives more readily ("Côte d’Ivoire" and "COTE D'IVOIRE" are
    /// "cote d'ivoire"). What `nameSortKey` starts with, and what the board's filter looks for
    /// in it (schema v11 and 8 folded the apostrophes of the keys already stored).
    public static func folded(_ text: String) -> String {
        let folded = foldedCaseAndAccents(text)
        guard folded.unicodeScalars.contains(where: typographicApostrophes.contains) else { return folded }
        return String(String.UnicodeScalarView(folded.unicodeScalars.map { typographicApostrophes.contains($0) ? "'" : $0 }))
    }

    /// The apostrophes `folded` takes as the typewriter's (').
    public static let typographicApostrophes: Set<Unicode.Scalar> = ["\u{2019}", "\u{2018}", "\u{02BC}"]

    /// A text with case and accents folded, in one Unicode normalisation ("Côte" and "COTE"
    /// are "cote"), apostrophes as they are: the zones' key (`Zone.nameKey`), stored as such.
    public static func foldedCaseAndAccents(_ text: String) -> String {
        text.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil).precomposedStringWithCanonicalMapping
    }

    /// Reads a row by column name (`Team.columns`); a value of the wrong type throws. (Not the
    /// `Decodable` way, which builds a decoder for every row, on the tap's path.)
    public init(row: Row) throws {
        try self.init(row: row, columns: Self.columns)
    }

    /// A team from a row of the table `columns` describes (`Team.columns`, or a test's copy).
    public init(row: Row, columns: [TeamColumn]) throws {
        self.init(teamName: "", qualifyingZone: "", imageName: "")
        for column in columns where column.read != nil {
            try column.assign(row.decode(ColumnValue.self, forColumn: column.name), to: &self)
        }
        // The zone's name, where the query joined it as `qualifyingZone`.
        qualifyingZone = row.hasColumn("qualifyingZone") ? try row.decode(forColumn: "qualifyingZone") : ""
    }

    public func encode(to container: inout PersistenceContainer) throws {
        Self.columns.encode(self, to: &container)
    }

    public mutating func didInsert(_ inserted: InsertionSuccess) {
        id = inserted.rowID
    }
}
