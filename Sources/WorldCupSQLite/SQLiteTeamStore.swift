import Foundation
import GRDB
import LiveResults
import LiveResultsSQLite
import WorldCup

/// The teams in a SQLite file, the embedded default: opens the database, seeds it once, and
/// changes teams.
///
/// Every change is one short transaction; a tap is a single `UPDATE ... SET wins = wins + 1`,
/// so taps from several processes all count. Changes go through `liveResultsWrite`, so a
/// board's controller reads the changed row inside the transaction.
public final class SQLiteTeamStore: TeamStore {
    /// The database, in WAL mode.
    public let database: DatabasePool
    /// `.asked` when the file was opened read-only (`--read-only`): its connections cannot
    /// write, and the store refuses every change at once.
    public let readOnly: ReadOnlyBoard?
    /// Who this store's changes are recorded under, in the history.
    public let author: String
    /// The history entries this store wrote, so a board names only others' changes.
    public let ownEntries = OwnEntries()

    /// Opens (creating it with its folder when needed) the database at `url`, brings its schema
    /// up to date, and imports the seed at `seedURL` if the database holds no team yet.
    ///
    /// The seed, when given, is read and checked before the database is touched, so a bad seed
    /// is always reported and leaves the database exactly as it was (or absent).
    public convenience init(databaseURL url: URL, seedURL: URL?, author: String = Author.machineDefault()) throws {
        try self.init(databaseURL: url, seed: seedURL.map(Seed.load(from:)), author: author)
    }

    /// Opens (creating it with its folder when needed) the database at `url`, brings its schema
    /// up to date, and imports `seed` (already checked, such as `Seed.bundled()`) if the
    /// database holds no team yet. Changes are recorded under `author`.
    public init(databaseURL url: URL, seed: [SeedTeam]?, author: String = Author.machineDefault()) throws {
        database = try DatabaseFile.openPool(at: url)
        readOnly = nil
        self.author = author
        try DatabaseFile.migrate(database)
        if let seed, try !isSeeded() {
            try importSeed(seed)
        }
    }

    /// Opens the existing database at `url` so that nothing can be written to it (SQLite's
    /// read-only connections: no migration, no seed, no checkpoint), for a board that only
    /// watches; it still follows other programs' commits. Throws one sentence, having
    /// created nothing, when there is no database there yet or its schema is older than
    /// this program's (a board that may write brings it up to date).
    public init(readOnlyDatabaseURL url: URL) throws {
        database = try DatabaseFile.openReadOnlyPool(at: url)
        readOnly = .asked
        author = Author.machineDefault()
    }

    /// Moves the write-ahead log into the database file and empties it. SQLite does so when
    /// the last connection closes; a board's connections are still held, for a moment, by the
    /// change feed being torn down as the process exits, and a log left with commits in it is
    /// what the next opening takes for the trace of a crash (and then reads the whole file).
    /// When another program holds the log, it is left to that program.
    public func finish() {
        guard readOnly == nil else { return }
        _ = try? database.writeWithoutTransaction { db in try db.checkpoint(.truncate) }
    }

    /// Whether a seed was ever imported, or teams exist anyway.
    public func isSeeded() throws -> Bool {
        try DatabaseFile.readable { try database.read(Self.isSeeded) }
    }

    /// Whether a seed was ever imported, or teams exist anyway: `EXISTS`, not a count of the
    /// teams, which reads a whole index at every launch (its time grows with the board, and
    /// from a cold disk it is the launch's longest wait).
    private static func isSeeded(_ db: Database) throws -> Bool {
        try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM seedImport) OR EXISTS (SELECT 1 FROM team)") ?? false
    }

    /// Imports teams in one transaction, all or none, if no seed was imported before and the
    /// database holds no team. Returns whether anything was imported.
    @discardableResult
    public func importSeed(_ teams: [SeedTeam]) throws -> Bool {
        try DatabaseFile.readable {
            try database.write { db in
                guard try !Self.isSeeded(db) else { return false }
                try Self.insertSeed(teams, db)
                return true
            }
        }
    }

    /// Records the seed's import and inserts its teams (and their zones), in the caller's transaction.
    static func insertSeed(_ teams: [SeedTeam], _ db: Database) throws {
        try db.execute(sql: "INSERT INTO seedImport (id, importedAt) VALUES (1, CURRENT_TIMESTAMP)")
        for seed in teams {
            var team = Team(teamName: TeamValidation.trimmed(seed.teamName), qualifyingZone: TeamValidation.trimmed(seed.qualifyingZone), imageName: seed.imageName, wins: seed.wins)
            try placeInZone(&team, db)
            try team.insert(db)
        }
    }

    /// The number of teams.
    public func teamCount() throws -> Int {
        try DatabaseFile.readable { try database.read { try Team.fetchCount($0) } }
    }

    /// Every team, in scoreboard order (`Team.boardOrder`): zone, then most wins, then name as
    /// people read it (case and accents folded), then the name's bytes.
    public func teams() throws -> [Team] {
        try DatabaseFile.readable {
            try database.read { db in
                try Team.fetchAll(db, sql: "\(Schema.teamsWithZone) ORDER BY \(Schema.boardOrderSQL)")
            }
        }
    }

    /// The team with this name (case ignored), if any.
    public func team(named name: String) throws -> Team? {
        try DatabaseFile.readable {
            try database.read { db in
                try Self.team(nameKey: Team.nameKey(TeamValidation.trimmed(name)), db)
            }
        }
    }

    public var location: String { database.path }

    public func makeController(fetchRequest: ResultsRequest<Team>, sections: RelatedSections, cacheName: String?, cacheDirectory: URL?) -> ResultsController<Team> {
        ResultsController(database: database, fetchRequest: fetchRequest, sections: sections,
                          cacheName: cacheName, cacheDirectory: cacheDirectory)
    }

    public func damage(in error: any Error) -> WorldCupError? {
        DatabaseFile.damage(in: error, path: database.path)
    }

    /// Adds one win to a team, atomically. Returns the tap with its history entry's id.
    @discardableResult
    public func recordedTap(teamID: Int64) throws -> TeamChange {
        try recordedWrite { db in
            // A cached statement: preparing it (with the change log's triggers) would cost more than running it.
            let statement = try db.cachedStatement(sql: Team.tapStatement)
            // GRDB steps it (its observers see the change) through a cursor of the first
            // column; the team is read where the statement stands.
            let returned = try Int64.fetchCursor(statement, arguments: [teamID])
            guard try returned.next() != nil else { throw WorldCupError("That team no longer exists.") }
            guard let team = Team(currentRowOf: statement) else { throw DatabaseFile.damagedRow(path: database.path) }
            while try returned.next() != nil {}
            var before = team
            before.wins -= 1
            return TeamChange(action: .tap, before: before, after: team)
        }
    }

    /// Adds a secret team with no wins. Refuses blank, overlong or duplicate names and zones.
    /// A zone spelt in another case or normalisation than one on the board takes its spelling.
    @discardableResult
    public func recordedAdd(name: String, zone: String) throws -> TeamChange {
        try refuseIfReadOnly()
        let new = try TeamValidation.newTeam(name: name, zone: zone)
        return try recordedWrite { db in
            var team = new
            try TeamValidation.checkName(of: team, heldBy: Self.team(nameKey: Team.nameKey(team.teamName), db))
            try Self.placeInZone(&team, db)
            try team.insert(db)
            return TeamChange(action: .add, before: nil, after: team)
        }
    }

    /// Deletes a team. Returns the delete with its history entry's id.
    @discardableResult
    public func recordedDelete(teamID: Int64) throws -> TeamChange {
        try recordedWrite { db in
            guard let team = try Self.team(id: teamID, db), try Team.deleteOne(db, key: teamID) else {
                throw WorldCupError("That team no longer exists.")
            }
            return TeamChange(action: .delete, before: team, after: nil)
        }
    }

    /// The team whose folded name is `key`, if any, with its zone's name.
    static func team(nameKey key: String, _ db: Database) throws -> Team? {
        try Team.fetchOne(db, sql: "\(Schema.teamsWithZone) WHERE team.nameKey = ?", arguments: [key])
    }

    /// The team with this id, if any, with its zone's name.
    static func team(id: Int64, _ db: Database) throws -> Team? {
        try Team.fetchOne(db, sql: "\(Schema.teamsWithZone) WHERE team.id = ?", arguments: [id])
    }
}
