import Foundation
import LiveResults
import LiveResultsPostgres
import NIOConcurrencyHelpers
import NIOCore
import PostgresNIO
import PostgresURLs
import Synchronization
import WorldCup

/// The teams on a PostgreSQL server, shared by every machine that opens the same database:
/// opens it (refusing a server too old, a database that is not ours or a newer schema),
/// brings its schema up to date and seeds it once, and changes teams.
///
/// Every change is one statement, with its history entry. Taps, adds, deletes, edits and
/// undos go through a `PostgresWriter`, which hands what they committed to the controllers'
/// reader, so this process's boards show them from the statement's own answer, without
/// waiting for the change log's notification. Every write records its own id (a UUID) in its
/// history entry in the same statement, so a write whose connection died on the way is sent
/// again with the same id and happens exactly once. Connecting and every statement
/// have a deadline (`deadline`): a server that stops answering is reported in one sentence
/// instead of hanging the program.
public final class PostgresTeamStore: TeamStore {
    /// Where the teams are (the password masked when shown).
    public let place: PostgresLocation
    /// How long connecting, or one statement or transaction, may take.
    public let deadline: Duration
    /// The store's own connection: reads and changes.
    let database: PostgresReader
    /// The connection of the controllers' reads (one at a time: the app's loop makes them).
    private let controllerDatabase: PostgresReader
    /// Who this store's changes are recorded under, in the history.
    public let author: String
    /// The history entries this store wrote, so a board names only others' changes.
    public let ownEntries = OwnEntries()
    /// Whether the connections are encrypted, once asked of the server (`isEncrypted`).
    let encrypted = Mutex<Bool?>(nil)
    /// The name of the server's certificate that matched the host, for `sslmode=verify-full`
    /// (`HostCheckedChannel`), once connected.
    let matchedName: NIOLockedValueBox<String?>
    /// Why the board is read-only, as found when it opened (nil: it may be changed).
    private let access = Mutex<ReadOnlyBoard?>(nil)

    /// How long connecting or one statement may take by default.
    public static let defaultDeadline = Duration.seconds(5)
    static let logger = Logger(label: "worldcup")

    /// Opens the database at `location`, brings its schema up to date and imports `seed`
    /// (already checked, such as `Seed.bundled()`) if no seed was imported before and it
    /// holds no team; all of it safe when many clients open the same database at once.
    /// Throws one sentence, having created and changed nothing, when the server cannot be
    /// reached, refuses the login, is older than 13, or the database is not a worldcup one
    /// (other tables and no worldcup schema) or has a newer schema.
    ///
    /// `readOnly`: the board only watches (`--read-only`): nothing is written, and a database
    /// that is not set up yet is refused. Otherwise the store finds out what the user may do
    /// (`readOnly` then says why it may not change the board, if it may not).
    ///
    /// `live`: a board will follow the database (`controllerDatabase`): its connection is
    /// made while this store opens its own, not after.
    public convenience init(location: PostgresLocation, seed: [SeedTeam]?, deadline: Duration = defaultDeadline, readOnly: Bool = false,
                            author: String = Author.machineDefault(), live: Bool = false) throws {
        try self.init(location: location, deadline: deadline, author: author)
        if live { controllerDatabase.connectAhead() }
        let (found, encrypted) = try run { connection in
            let migration = PostgresMigration(location: location, connection: connection)
            let look = try migration.firstLook()
            return (try migration.prepare(found: look.state, access: look.access, seed: seed, readOnlyAsked: readOnly), look.encrypted)
        }
        access.withLock { $0 = found }
        // Every connection of the store is made with the same settings: as this one is.
        self.encrypted.withLock { $0 = encrypted }
    }

    /// A store on `location` that has not connected yet (nothing checked: `check` and the
    /// public initialiser do that). Connecting may take `location`'s `connect_timeout` when it
    /// has one. Throws one sentence when its TLS files cannot be used.
    init(location: PostgresLocation, deadline: Duration, author: String = Author.machineDefault()) throws {
        place = location
        self.author = author
        self.deadline = deadline
        let (seconds, attoseconds) = deadline.components
        let limit = TimeAmount.nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
        // libpq's connect_timeout=0 is no limit; NIO needs one, so a day stands for it.
        let connectLimit = location.connectTimeoutSeconds.map { TimeAmount.seconds(Int64($0 == 0 ? 86_400 : $0)) }
        let matched = NIOLockedValueBox<String?>(nil)
        matchedName = matched
        let servers = try ([location.url] + location.otherURLs).map { try Self.connectionServer($0, at: location, matched: matched) }
        let check = Self.sessionCheck(location.targetSession)
        database = PostgresReader(configuration: servers[0].configuration, logger: Self.logger, deadline: limit, connectDeadline: connectLimit,
                                  makeChannel: servers[0].makeChannel, otherServers: Array(servers.dropFirst()), checkSession: check)
        controllerDatabase = PostgresReader(configuration: servers[0].configuration, logger: Self.logger, deadline: limit,
                                            connectDeadline: connectLimit, makeChannel: servers[0].makeChannel,
                                            otherServers: Array(servers.dropFirst()), checkSession: check)
        // The store's connection, open by then, tells the controller's whether notifications reach it.
        controllerDatabase.sendProbes(through: database)
    }

    /// How to connect to `url` (the location's, or one of its other hosts'): for verify-full,
    /// through a channel whose host is checked as libpq checks it (`HostCheckedChannel`).
    private static func connectionServer(_ url: PostgresURL, at location: PostgresLocation, matched: NIOLockedValueBox<String?>) throws -> PostgresReader.Server {
        let configuration = try location.connectionConfiguration(for: url)
        guard location.tls.verification == .chainAndHostName, url.socketDirectory == nil, let context = configuration.tls.sslContext else {
            return PostgresReader.Server(configuration: configuration, makeChannel: nil)
        }
        // swift-nio-ssl's own host check would accept the address connected to.
        let channel = HostCheckedChannel(host: url.host, port: url.port, context: context, matched: matched)
        return PostgresReader.Server(configuration: configuration, makeChannel: { channel.connect(on: $0, deadline: $1) })
    }

    /// Refuses a server that is not what `target_session_attrs` asks for, so the next host is tried.
    private static func sessionCheck(_ target: TargetSession) -> PostgresReader.SessionCheck? {
        guard let query = target.acceptingQuery else { return nil }
        return { connection, server in
            connection.query(PostgresQuery(unsafeSQL: query), logger: logger).flatMapThrowing { rows in
                guard try rows.first?.decode(Bool.self) == true else {
                    throw WorldCupError("The PostgreSQL server at \(server) accepts no writes (a standby, or read-only), and target_session_attrs=\(target.rawValue) asks for one that does.")
                }
            }
        }
    }

    public var location: String { place.description }

    public var readOnly: ReadOnlyBoard? { access.withLock { $0 } }

    /// `worldcup on db.example:5432 · TLS` (when encrypted), or on the Unix socket's folder.
    public var server: String? {
        let server = "\(WorldCupError.quotable(place.url.database)) on \(place.url.socketDirectory ?? "\(place.url.host):\(place.url.port)")"
        return isEncrypted() == true ? server + " · TLS" : server
    }

    public func teamCount() throws -> Int {
        try run { connection in
            try Self.query(connection, "SELECT count(*) FROM team").single(Int64.self).map(Int.init) ?? 0
        }
    }

    public func teams() throws -> [Team] {
        try run { connection in
            try Self.query(connection, PostgresQuery(unsafeSQL: """
                SELECT \(PostgresSchema.teamColumns) FROM team JOIN zone ON zone.id = team."zoneID" ORDER BY \(PostgresSchema.boardOrderSQL)
                """))
                .map(Team.init(postgresRow:))
        }
    }

    public func team(named name: String) throws -> Team? {
        let key = Team.nameKey(TeamValidation.trimmed(name))
        return try run { connection in try Self.team(nameKey: key, connection) }
    }

    public func makeController(fetchRequest: ResultsRequest<Team>, sections: RelatedSections, cacheName: String?,
                               cacheDirectory: URL?) -> ResultsController<Team> {
        ResultsController(database: controllerDatabase, fetchRequest: fetchRequest, sections: sections)
    }

    /// Nil: the server keeps its own files sound; its errors are reported as they come.
    public func damage(in error: any Error) -> WorldCupError? { nil }

    @discardableResult
    public func recordedAdd(name: String, zone: String) throws -> TeamChange {
        try refuseIfReadOnly()
        let typed = try TeamValidation.newTeam(name: name, zone: zone)
        let writeID = UUID()
        return try exactlyOnce(orElse: "so the change may or may not have been saved") { connection, resend in
            try repeatWhileRaced(writeID, connection, resend: resend) {
                var team = typed
                // A zone spelt in another case or normalisation than one on the board takes its spelling.
                try Self.placeInZone(&team, connection)
                try TeamValidation.checkName(of: team, heldBy: Self.team(nameKey: Team.nameKey(team.teamName), connection))
                let write = PostgresRecordedWrite(change: TeamChange(action: .add, before: nil, after: team), writeID: writeID, author: author,
                                                  guarded: .newName(team.teamName), apply: .insert(team))
                return try recordedWrite(write, connection).map { TeamChange(action: .add, before: nil, after: $0.team, entryID: $0.entryID) }
            }
        }
    }

    @discardableResult
    public func recordedDelete(teamID: Int64) throws -> TeamChange {
        try refuseIfReadOnly()
        let writeID = UUID()
        return try exactlyOnce(orElse: "so the change may or may not have been saved") { connection, resend in
            try repeatWhileRaced(writeID, connection, resend: resend) {
                guard let team = try Self.team(id: teamID, connection) else { throw WorldCupError("That team no longer exists.") }
                let change = TeamChange(action: .delete, before: team, after: nil)
                let write = PostgresRecordedWrite(change: change, writeID: writeID, author: author, guarded: .unchanged(team), apply: .delete)
                return try recordedWrite(write, connection).map { TeamChange(action: .delete, before: team, after: nil, entryID: $0.entryID) }
            }
        }
    }

    @discardableResult
    public func recordedTap(teamID: Int64) throws -> TeamChange {
        try recordedTap(teamID: teamID, tapID: UUID())
    }

    /// Adds one win to a team for the tap `tapID`, exactly once however often it is called
    /// with that id (`recordedTap(teamID:tapID:)`). Returns the team as saved.
    @discardableResult
    public func tap(teamID: Int64, tapID: UUID) throws -> Team {
        try recordedTap(teamID: teamID, tapID: tapID).team
    }

    /// Adds one win to a team for the tap `tapID`, exactly once however often it is called
    /// with that id: a tap id already recorded means the tap counted, and its recorded change
    /// is returned. When the connection dies during the statement (its outcome unknown), it is
    /// made again and the statement sent again with the same id, for up to `deadline`. The
    /// tap is a recorded write like every change, by one win: its entry holds the team as
    /// the lock found it and after.
    @discardableResult
    public func recordedTap(teamID: Int64, tapID: UUID) throws -> TeamChange {
        try recordedTap(.exists(teamID: teamID), tapID: tapID, missing: WorldCupError("That team no longer exists."))
    }

    /// Adds one win to the team with this name (case ignored), its lookup and its write in one
    /// statement; when no team has that name, to the one a person means (`team(meant:)`, folded
    /// as the board folds names). Returns the team as saved.
    @discardableResult
    public func tap(named name: String) throws -> Team {
        let missing = noTeam(named: name)
        do {
            return try recordedTap(.named(key: Team.nameKey(TeamValidation.trimmed(name))), tapID: UUID(), missing: missing).team
        } catch let error as WorldCupError where error == missing {
            return try tap(teamID: team(meant: name).id ?? 0)
        }
    }

    /// A tap of the team `guarded` finds, exactly once for `tapID`; `missing` when there is none.
    private func recordedTap(_ guarded: PostgresRecordedWrite.Guard, tapID: UUID, missing: WorldCupError) throws -> TeamChange {
        try refuseIfReadOnly()
        return try exactlyOnce(orElse: "so the tap may or may not have counted") { connection, resend in
            try repeatWhileDeadlocked { try tapOnce(guarded, tapID: tapID, resend: resend, missing: missing, connection) }
        }
    }

    /// Runs `body` again (up to three times) when the server rolled it back to end a deadlock
    /// (a write and a zone's merge that waited for each other).
    func repeatWhileDeadlocked<T>(_ body: () throws -> T) throws -> T {
        for _ in 0..<2 {
            do { return try body() } catch let error as PSQLError where error.serverInfo?[.sqlState] == "40P01" { continue }
        }
        return try body()
    }

    /// One attempt of a tap: one statement, unless it is a `resend` (whose tap may have
    /// counted: its id is looked for first) or its guard found no team (the id is looked for
    /// then too, in case an earlier attempt counted before the team went).
    private func tapOnce(_ guarded: PostgresRecordedWrite.Guard, tapID: UUID, resend: Bool, missing: WorldCupError,
                         _ connection: PostgresConnection) throws -> TeamChange {
        if resend, let done = try Self.recorded(tapID, connection) { return done }
        let write = PostgresRecordedWrite(change: TeamChange(action: .tap, before: nil, after: nil), writeID: tapID, author: author,
                                          guarded: guarded, apply: .addWin)
        if let written = try recordedWrite(write, connection) {
            var before = written.team
            before.wins -= 1
            return TeamChange(action: .tap, before: before, after: written.team, entryID: written.entryID)
        }
        guard let done = try Self.recorded(tapID, connection) else { throw missing }
        return done
    }

    /// Runs a recorded write; returns the team it wrote (as it was, for a delete) and its
    /// history entry's id, or nil when its guard stopped it (nothing was written).
    func recordedWrite(_ write: PostgresRecordedWrite, _ connection: PostgresConnection) throws -> (team: Team, entryID: Int64)? {
        guard let row = try self.write(write.write, connection).first else { return nil }
        guard let entryID = try row.makeRandomAccess()[PostgresRecordedWrite.entryIDIndex].decode(Int64?.self) else { return nil }
        return (try Team(postgresRow: row), entryID)
    }

    /// Runs `change` on `connection`, handing the rows it committed to the controllers this
    /// store made (their reader's feeds), and returns its rows.
    /// A recorded write's history entry goes to `ownEntries`.
    func write(_ change: PostgresWrite, _ connection: PostgresConnection) throws -> [PostgresRow] {
        let rows = try PostgresWriter(handingOverTo: controllerDatabase).write(change, on: connection)
        if change.returning == PostgresRecordedWrite.returning, let entry = try rows.first?.makeRandomAccess()[PostgresRecordedWrite.entryIDIndex].decode(Int64?.self) {
            ownEntries.insert(entry)
        }
        return rows
    }

    /// The team whose folded name is `key`, if any.
    static func team(nameKey key: String, _ connection: PostgresConnection) throws -> Team? {
        try query(connection, "SELECT \(unescaped: PostgresSchema.teamColumns) FROM team WHERE team.\"nameKey\" = \(key)")
            .map(Team.init(postgresRow:)).first
    }
}

extension PostgresQueryResult {
    /// The first column of the first row, if any.
    func single<T: PostgresDecodable>(_ type: T.Type) throws -> T? {
        try first.map { try $0.decode(T.self) }
    }

    /// Whether it has no row.
    var isEmpty: Bool { first == nil }
}

extension WorldCupError {
    /// The sentence with `clause` added before its full stop.
    func appending(_ clause: String) -> WorldCupError {
        WorldCupError(description.hasSuffix(".") ? "\(description.dropLast()), \(clause)." : "\(description), \(clause).")
    }
}
